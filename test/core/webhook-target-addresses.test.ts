import { describe, expect, it } from "vitest";
import type { AddressResolver } from "../../core/webhooks/address-resolver.port.ts";
import { isRefusedAddress, parseIpv6, specialPurposeBlocks } from "../../core/webhooks/target-addresses.ts";
import { assertTargetAllowed } from "../../core/webhooks/webhook-target.ts";

const refusedAddresses = [
  "127.0.0.1",
  "127.255.255.254",
  "10.0.0.1",
  "10.255.255.255",
  "172.16.0.1",
  "172.31.255.255",
  "192.168.1.1",
  "169.254.169.254",
  "169.254.0.1",
  "100.64.0.1",
  "100.100.100.200",
  "0.0.0.0",
  "255.255.255.255",
  "224.0.0.1",
  "::1",
  "::",
  "fe80::1",
  "fd00::1",
  "fd00:ec2::254",
  "fc00::1",
  "ff02::1",
  "::ffff:127.0.0.1",
  "::ffff:10.0.0.1",
  "::ffff:7f00:1",
  "64:ff9b::a9fe:a9fe",
  "2002:a00:1::",
  "not-an-address",
  "1.2.3",
  "01.2.3.4",
];
const publicAddresses = [
  "93.184.215.14",
  "8.8.8.8",
  "172.32.0.1",
  "172.15.255.255",
  "100.128.0.1",
  "192.169.0.1",
  "2606:4700::1111",
  "2a00:1450:4001:80b::200e",
  "::ffff:8.8.8.8",
];

const resolverOf = (answers: Record<string, string[]>): AddressResolver => ({
  resolve: async (host) => {
    const found = answers[host];
    if (!found) throw new Error("NXDOMAIN");
    return found;
  },
});

/**
 * One address inside every block of the IANA special-purpose registries (IPv4 and IPv6; the "Globally Reachable"
 * column) and the multicast spaces, written out here rather than read from the table under test. `true`: refused.
 */
const registryBlocks: [block: string, address: string, refused: boolean][] = [
  // IPv4 Special-Purpose Address Registry
  ["0.0.0.0/8 This network", "0.1.2.3", true],
  ["10.0.0.0/8 Private-Use", "10.20.30.40", true],
  ["100.64.0.0/10 Shared Address Space", "100.127.255.254", true],
  ["127.0.0.0/8 Loopback", "127.1.2.3", true],
  ["169.254.0.0/16 Link Local", "169.254.255.254", true],
  ["172.16.0.0/12 Private-Use", "172.20.0.1", true],
  ["192.0.0.0/24 IETF Protocol Assignments", "192.0.0.200", true],
  ["192.0.0.0/29 IPv4 Service Continuity Prefix", "192.0.0.1", true],
  ["192.0.0.8/32 IPv4 dummy address", "192.0.0.8", true],
  ["192.0.0.9/32 Port Control Protocol Anycast (global)", "192.0.0.9", false],
  ["192.0.0.10/32 TURN Anycast (global)", "192.0.0.10", false],
  ["192.0.0.170/32 NAT64/DNS64 Discovery", "192.0.0.170", true],
  ["192.0.0.171/32 NAT64/DNS64 Discovery", "192.0.0.171", true],
  ["192.0.2.0/24 Documentation (TEST-NET-1)", "192.0.2.77", true],
  ["192.31.196.0/24 AS112-v4 (global)", "192.31.196.1", false],
  ["192.52.193.0/24 AMT (global)", "192.52.193.1", false],
  ["192.88.99.0/24 Deprecated (6to4 Relay Anycast)", "192.88.99.1", true],
  ["192.168.0.0/16 Private-Use", "192.168.200.1", true],
  ["192.175.48.0/24 Direct Delegation AS112 Service (global)", "192.175.48.1", false],
  ["198.18.0.0/15 Benchmarking", "198.19.255.1", true],
  ["198.51.100.0/24 Documentation (TEST-NET-2)", "198.51.100.9", true],
  ["203.0.113.0/24 Documentation (TEST-NET-3)", "203.0.113.9", true],
  ["240.0.0.0/4 Reserved", "250.1.2.3", true],
  ["255.255.255.255/32 Limited Broadcast", "255.255.255.255", true],
  ["224.0.0.0/4 Multicast (RFC 5771)", "239.255.255.250", true],
  // IPv6 Special-Purpose Address Registry
  ["::1/128 Loopback", "::1", true],
  ["::/128 Unspecified", "::", true],
  ["::ffff:0:0/96 IPv4-mapped, judged by its IPv4 address", "::ffff:192.168.0.1", true],
  ["64:ff9b::/96 IPv4-IPv6 Translation, judged by its IPv4 address", "64:ff9b::10.0.0.1", true],
  ["64:ff9b:1::/48 IPv4-IPv6 Translation (local use)", "64:ff9b:1::808:808", true],
  ["100::/64 Discard-Only Address Block", "100::1", true],
  ["100:0:0:1::/64 Dummy IPv6 Prefix", "100:0:0:1::1", true],
  ["2001::/23 IETF Protocol Assignments", "2001:1ff::1", true],
  ["2001::/32 TEREDO", "2001::7f00:1", true],
  ["2001::/32 TEREDO (client 127.0.0.1, obfuscated)", "2001:0:0:0:0:0:80ff:fffe", true],
  ["2001:1::1/128 Port Control Protocol Anycast (global)", "2001:1::1", false],
  ["2001:1::2/128 TURN Anycast (global)", "2001:1::2", false],
  ["2001:1::3/128 DNS-SD Service Registration Protocol Anycast (global)", "2001:1::3", false],
  ["2001:2::/48 Benchmarking", "2001:2::1", true],
  ["2001:3::/32 AMT (global)", "2001:3::1", false],
  ["2001:4:112::/48 AS112-v6 (global)", "2001:4:112::1", false],
  ["2001:10::/28 Deprecated (previously ORCHID)", "2001:10::1", true],
  ["2001:20::/28 ORCHIDv2 (global)", "2001:20::1", false],
  ["2001:30::/28 Drone Remote ID Protocol Entity Tags (global)", "2001:30::1", false],
  ["2001:db8::/32 Documentation", "2001:db8::1", true],
  ["2002::/16 6to4 (N/A: refused, whatever it carries)", "2002:c0a8:101::", true],
  ["2002::/16 6to4 carrying a public address", "2002:808:808::1", true],
  ["2620:4f:8000::/48 Direct Delegation AS112 Service (global)", "2620:4f:8000::1", false],
  ["3fff::/20 Documentation", "3fff:fff::1", true],
  ["5f00::/16 Segment Routing (SRv6) SIDs", "5f00::1", true],
  ["fc00::/7 Unique-Local", "fdff::1", true],
  ["fe80::/10 Link-Local Unicast", "febf::1", true],
  ["fec0::/10 Site-Local (deprecated)", "fec0::1", true],
  ["ff00::/8 Multicast", "ff05::1:3", true],
  ["::/96 IPv4-compatible (deprecated), judged by its IPv4 address", "::10.0.0.1", true],
];

/**
 * Every IPv6 form that carries an IPv4 address, each with a special-purpose one inside (refused), and where the form
 * is judged by what it carries, with a public one (allowed).
 */
const embeddedForms: [form: string, address: string, refused: boolean][] = [
  ["IPv4-mapped ::ffff:0:0/96, loopback", "::ffff:127.0.0.1", true],
  ["IPv4-mapped, hexadecimal", "::ffff:7f00:1", true],
  ["IPv4-mapped, public", "::ffff:8.8.8.8", false],
  ["IPv4-translated ::ffff:0:0:0/96, loopback", "::ffff:0:7f00:1", true],
  ["IPv4-translated, dotted", "::ffff:0:127.0.0.1", true],
  ["IPv4-translated, cloud metadata", "::ffff:0:a9fe:a9fe", true],
  ["IPv4-translated, public", "::ffff:0:808:808", false],
  ["IPv4-compatible ::/96, private", "::192.168.0.1", true],
  ["IPv4-compatible, public", "::8.8.8.8", false],
  ["NAT64 64:ff9b::/96, loopback", "64:ff9b::127.0.0.1", true],
  ["NAT64, public", "64:ff9b::8.8.8.8", false],
  ["NAT64 local use 64:ff9b:1::/48, loopback", "64:ff9b:1::7f00:1", true],
  ["NAT64 local use, public", "64:ff9b:1:ffff::808:808", true],
  ["6to4 2002::/16, loopback", "2002:7f00:1::1", true],
  ["6to4, private", "2002:a00:1::1", true],
  ["6to4, public", "2002:808:808::1", true],
  ["Teredo 2001::/32, loopback client", "2001:0:4136:e378:8000:63bf:80ff:fffe", true],
  ["Teredo, public server and client", "2001:0:808:808::f7f7:f7f7", true],
];

describe("the IANA special-purpose blocks", () => {
  it.each(registryBlocks)("%s: %s refused %s", (_block, address, refused) => {
    expect(isRefusedAddress(address)).toBe(refused);
  });

  it("keeps the blocks as data, each with its registry's name", () => {
    for (const block of specialPurposeBlocks) {
      expect(block.prefix).toMatch(/^[0-9a-f.:]+\/\d{1,3}$/);
      expect(block.name.length).toBeGreaterThan(0);
      expect(typeof block.globallyReachable).toBe("boolean");
    }
    expect(specialPurposeBlocks.map((b) => b.prefix)).toEqual(
      expect.arrayContaining(["2001::/23", "2001::/32", "192.0.0.0/24", "5f00::/16"]),
    );
  });

  it("allows the public neighbours of the refused blocks", () => {
    for (const address of [
      "2001:200::1",
      "2001:4860:4860::8888",
      "2003::1",
      "3ffe::1",
      "5f01::1",
      "192.0.1.1",
      "192.88.98.1",
      "11.0.0.1",
      "223.255.255.1",
    ]) {
      expect(isRefusedAddress(address), address).toBe(false);
    }
  });
});

describe("IPv6 forms that embed an IPv4 address", () => {
  it.each(embeddedForms)("%s: %s refused %s", (_form, address, refused) => {
    expect(isRefusedAddress(address)).toBe(refused);
  });
});

describe("webhook target addresses", () => {
  it.each(refusedAddresses)("refuses %s", (address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each(publicAddresses)("allows %s", (address) => {
    expect(isRefusedAddress(address)).toBe(false);
  });

  it("parses IPv6 forms: compressed, full, with an embedded IPv4 address", () => {
    expect(parseIpv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIpv6("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(parseIpv6("1::2::3")).toBeUndefined();
    expect(parseIpv6("1:2:3:4:5:6:7:8:9")).toBeUndefined();
  });
});

describe("webhook targets", () => {
  const resolver = resolverOf({
    "hooks.example": ["93.184.215.14"],
    "inside.example": ["93.184.215.14", "10.1.2.3"],
    "metadata.example": ["169.254.169.254"],
    "v6-loopback.example": ["::1"],
  });
  const refusedWith = async (url: string, allowPrivate = false) => {
    try {
      await assertTargetAllowed(url, resolver, allowPrivate);
      return "allowed";
    } catch (error) {
      return (error as { code: string }).code;
    }
  };

  it.each([
    "http://127.0.0.1:8080/hook",
    "http://10.0.0.8/",
    "http://169.254.169.254/latest/meta-data",
    "http://[::1]:9000/",
    "http://[fd00::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:0:7f00:1]/",
    "http://[::ffff:0:127.0.0.1]/",
    "http://[2002:808:808::1]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://0x7f.1/",
    "http://2130706433/",
    "http://inside.example/",
    "http://metadata.example/",
    "https://v6-loopback.example/",
    "http://[2001::7f00:1]/",
    "http://[2001:0:0:0:0:0:80ff:fffe]/",
    "http://unresolvable.example/",
    "ftp://hooks.example/",
    "file:///etc/passwd",
    "http://user:pw@hooks.example/",
    "not a url",
  ])("refuses %s with webhook_target_refused", async (url) => {
    expect(await refusedWith(url)).toBe("webhook_target_refused");
  });

  it("allows public http(s) targets", async () => {
    expect(await refusedWith("https://hooks.example/petstore")).toBe("allowed");
    expect(await refusedWith("http://93.184.215.14:8080/x")).toBe("allowed");
  });

  it("allows private targets when told to, but still only http(s)", async () => {
    expect(await refusedWith("http://127.0.0.1:8080/hook", true)).toBe("allowed");
    expect(await refusedWith("http://unresolvable.example/", true)).toBe("allowed");
    expect(await refusedWith("ftp://127.0.0.1/", true)).toBe("webhook_target_refused");
  });
});
