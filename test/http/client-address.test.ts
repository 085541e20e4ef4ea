import { describe, expect, it } from "vitest";
import { noTrustedProxies, parseTrustedProxies, resolveClientAddress } from "../../adapters/http/client-address.ts";

describe("PETSTORE_TRUST_PROXY parsing", () => {
  it("accepts IPv4 and IPv6 addresses and CIDRs, with spaces and empty entries", () => {
    const trusted = parseTrustedProxies(" 10.0.0.0/8, 192.168.1.7,, fd00::/8, ::1 ");
    expect(trusted.size).toBe(4);
    expect(["10.1.2.3", "192.168.1.7", "fd00::5", "::1", "::ffff:10.9.9.9"].map((a) => trusted.has(a))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(["11.0.0.1", "192.168.1.8", "fe80::1", "2001:db8::1", "not-an-address"].map((a) => trusted.has(a))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it.each(["10.0.0.0/33", "fd00::/129", "10.0.0.1/8/2", "10.0.0", "proxy.internal", "10.0.0.0/", "10.0.0.0/x", "*"])(
    "refuses %s, naming it",
    (entry) => {
      expect(() => parseTrustedProxies(`127.0.0.1, ${entry}`)).toThrow(entry);
    },
  );
});

describe("the client's address", () => {
  const trusted = parseTrustedProxies("10.0.0.0/8, 2001:db8:ffff::/48");

  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(resolveClientAddress("203.0.113.9", "198.51.100.1", noTrustedProxies)).toBe("203.0.113.9");
    expect(resolveClientAddress("10.0.0.1", "198.51.100.1", noTrustedProxies)).toBe("10.0.0.1");
  });

  it("is the socket's peer when that peer is not a trusted proxy (a client cannot spoof by sending the header)", () => {
    expect(resolveClientAddress("203.0.113.9", "10.0.0.5, 198.51.100.1", trusted)).toBe("203.0.113.9");
  });

  it("is the right-most untrusted hop behind a trusted proxy; hops the client wrote are ignored", () => {
    expect(resolveClientAddress("10.0.0.1", "198.51.100.1", trusted)).toBe("198.51.100.1");
    // The client sent "X-Forwarded-For: 1.2.3.4"; the proxy appended the address it saw.
    expect(resolveClientAddress("10.0.0.1", "1.2.3.4, 198.51.100.1", trusted)).toBe("198.51.100.1");
    // Two proxies in a chain.
    expect(resolveClientAddress("10.0.0.1", "1.2.3.4, 198.51.100.1, 10.0.0.2", trusted)).toBe("198.51.100.1");
  });

  it("is the trusted peer itself when there is no header, and the left-most hop when every hop is trusted", () => {
    expect(resolveClientAddress("10.0.0.1", null, trusted)).toBe("10.0.0.1");
    expect(resolveClientAddress("10.0.0.1", "", trusted)).toBe("10.0.0.1");
    expect(resolveClientAddress("10.0.0.1", "10.0.0.3, 10.0.0.2", trusted)).toBe("10.0.0.3");
  });

  it("stops at the trusted proxy that reported a hop that is not an address", () => {
    expect(resolveClientAddress("10.0.0.1", "198.51.100.1, garbage", trusted)).toBe("10.0.0.1");
    expect(resolveClientAddress("10.0.0.1", "198.51.100.1, unknown, 10.0.0.2", trusted)).toBe("10.0.0.2");
  });

  it("handles IPv6 peers and hops, IPv4-mapped addresses, ports and brackets", () => {
    expect(resolveClientAddress("2001:db8:ffff::7", "2001:db8::1", trusted)).toBe("2001:db8::1");
    expect(resolveClientAddress("::ffff:10.0.0.1", "198.51.100.1", trusted)).toBe("198.51.100.1");
    expect(resolveClientAddress("::ffff:203.0.113.9", "198.51.100.1", trusted)).toBe("203.0.113.9");
    expect(resolveClientAddress("10.0.0.1", "[2001:DB8::1]:4711", trusted)).toBe("2001:db8::1");
    expect(resolveClientAddress("10.0.0.1", "198.51.100.1:4711", trusted)).toBe("198.51.100.1");
  });

  it("is unknown without a socket address", () => {
    expect(resolveClientAddress(undefined, "198.51.100.1", trusted)).toBeUndefined();
  });
});
