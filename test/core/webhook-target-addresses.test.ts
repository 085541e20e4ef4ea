import { describe, expect, it } from "vitest";
import type { AddressResolver } from "../../core/webhooks/address-resolver.port.ts";
import { isRefusedAddress, parseIpv6 } from "../../core/webhooks/target-addresses.ts";
import { assertTargetAllowed } from "../../core/webhooks/webhook-target.ts";

const refusedAddresses = [
  "127.0.0.1", "127.255.255.254", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.1.1",
  "169.254.169.254", "169.254.0.1", "100.64.0.1", "100.100.100.200", "0.0.0.0", "255.255.255.255", "224.0.0.1",
  "::1", "::", "fe80::1", "fd00::1", "fd00:ec2::254", "fc00::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
  "::ffff:7f00:1", "64:ff9b::a9fe:a9fe", "2002:a00:1::", "not-an-address", "1.2.3", "01.2.3.4",
];
const publicAddresses = ["93.184.215.14", "8.8.8.8", "172.32.0.1", "172.15.255.255", "100.128.0.1", "192.169.0.1",
  "2606:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8"];

const resolverOf = (answers: Record<string, string[]>): AddressResolver => ({
  resolve: async (host) => {
    const found = answers[host];
    if (!found) throw new Error("NXDOMAIN");
    return found;
  },
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
    "http://127.0.0.1:8080/hook", "http://10.0.0.8/", "http://169.254.169.254/latest/meta-data", "http://[::1]:9000/",
    "http://[fd00::1]/", "http://[::ffff:127.0.0.1]/", "http://0x7f.1/", "http://2130706433/", "http://inside.example/",
    "http://metadata.example/", "https://v6-loopback.example/", "http://unresolvable.example/", "ftp://hooks.example/",
    "file:///etc/passwd", "http://user:pw@hooks.example/", "not a url",
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
