import { BlockList, isIP } from "node:net";
import { getRequestIP, type H3Event } from "h3";

/** The proxies whose `X-Forwarded-For` is believed (PETSTORE_TRUST_PROXY). */
export interface TrustedProxies {
  has(address: string): boolean;
  readonly size: number;
}

/** `::ffff:10.0.0.1` is the IPv4 address 10.0.0.1, whichever form the socket or a proxy reports. */
const canonical = (address: string): string => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return (mapped ? mapped[1]! : address).toLowerCase();
};

const family = (address: string): "ipv4" | "ipv6" | undefined => {
  const v = isIP(address);
  return v === 4 ? "ipv4" : v === 6 ? "ipv6" : undefined;
};

/**
 * Parses a comma list of addresses and CIDRs (IPv4 and IPv6): "10.0.0.0/8, 192.168.1.7, fd00::/8".
 * Throws an Error naming the first bad entry.
 */
export const parseTrustedProxies = (list: string): TrustedProxies => {
  const blocks = new BlockList();
  let size = 0;
  for (const raw of list.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const [address = "", prefix, extra] = entry.split("/");
    const kind = family(canonical(address));
    const max = kind === "ipv4" ? 32 : 128;
    if (
      !kind ||
      extra !== undefined ||
      (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= max))
    ) {
      throw new Error(`${JSON.stringify(entry)} is not an IPv4/IPv6 address or CIDR`);
    }
    if (prefix === undefined) blocks.addAddress(canonical(address), kind);
    else blocks.addSubnet(canonical(address), Number(prefix), kind);
    size += 1;
  }
  return {
    size,
    has: (address) => {
      const a = canonical(address);
      const kind = family(a);
      return kind !== undefined && blocks.check(a, kind);
    },
  };
};

export const noTrustedProxies: TrustedProxies = { size: 0, has: () => false };

/** One X-Forwarded-For hop: an address, optionally "[v6]:port" or "v4:port" as some proxies write it. */
const hopAddress = (hop: string): string | undefined => {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  const v4WithPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(hop);
  const address = canonical(bracketed?.[1] ?? v4WithPort?.[1] ?? hop);
  return family(address) ? address : undefined;
};

/**
 * The client's address: the socket's peer, unless that peer is a trusted proxy; then the right-most
 * `X-Forwarded-For` hop that is not a trusted proxy. Hops left of it were written by the client and are never
 * believed. A hop that is not an address stops the walk at the trusted proxy that reported it; a chain of
 * trusted proxies only gives its left-most hop.
 */
export const resolveClientAddress = (
  socketAddress: string | undefined,
  forwardedFor: string | null | undefined,
  trusted: TrustedProxies,
): string | undefined => {
  if (socketAddress === undefined) return undefined;
  let client = canonical(socketAddress);
  if (trusted.size === 0 || !forwardedFor || !trusted.has(client)) return client;
  const hops = forwardedFor.split(",").map((h) => h.trim());
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = hopAddress(hops[i]!);
    if (hop === undefined) return client;
    client = hop;
    if (!trusted.has(hop)) return client;
  }
  return client;
};

/** The request's client address under these trusted proxies: what limits, logs and metrics use. */
export const clientAddressOf = (event: H3Event, trusted: TrustedProxies): string =>
  resolveClientAddress(getRequestIP(event), event.req.headers.get("x-forwarded-for"), trusted) ?? "unknown";
