export interface SpecialPurposeBlock {
  prefix: string;
  name: string;
  /** The registry's "Globally Reachable"; N/A counts as false. */
  globallyReachable: boolean;
}

const block = (prefix: string, name: string, globallyReachable = false): SpecialPurposeBlock => ({
  prefix,
  name,
  globallyReachable,
});

/** IANA's special-purpose registries, plus multicast and site-local: docs/security.md#webhook-targets-ssrf. */
export const specialPurposeBlocks: readonly SpecialPurposeBlock[] = [
  block("0.0.0.0/8", "This network"),
  block("10.0.0.0/8", "Private-Use"),
  block("100.64.0.0/10", "Shared Address Space"),
  block("127.0.0.0/8", "Loopback"),
  block("169.254.0.0/16", "Link Local"),
  block("172.16.0.0/12", "Private-Use"),
  block("192.0.0.0/24", "IETF Protocol Assignments"),
  block("192.0.0.0/29", "IPv4 Service Continuity Prefix"),
  block("192.0.0.8/32", "IPv4 dummy address"),
  block("192.0.0.9/32", "Port Control Protocol Anycast", true),
  block("192.0.0.10/32", "Traversal Using Relays around NAT Anycast", true),
  block("192.0.0.170/32", "NAT64/DNS64 Discovery"),
  block("192.0.0.171/32", "NAT64/DNS64 Discovery"),
  block("192.0.2.0/24", "Documentation (TEST-NET-1)"),
  block("192.31.196.0/24", "AS112-v4", true),
  block("192.52.193.0/24", "AMT", true),
  block("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)"),
  block("192.168.0.0/16", "Private-Use"),
  block("192.175.48.0/24", "Direct Delegation AS112 Service", true),
  block("198.18.0.0/15", "Benchmarking"),
  block("198.51.100.0/24", "Documentation (TEST-NET-2)"),
  block("203.0.113.0/24", "Documentation (TEST-NET-3)"),
  block("224.0.0.0/4", "Multicast (IPv4 Multicast Address Space)"),
  block("240.0.0.0/4", "Reserved"),
  block("255.255.255.255/32", "Limited Broadcast"),
  block("::1/128", "Loopback Address"),
  block("::/128", "Unspecified Address"),
  block("64:ff9b:1::/48", "IPv4-IPv6 Translat. (local use)"),
  block("100::/64", "Discard-Only Address Block"),
  block("100:0:0:1::/64", "Dummy IPv6 Prefix"),
  block("2001::/23", "IETF Protocol Assignments"),
  block("2001::/32", "TEREDO"),
  block("2001:1::1/128", "Port Control Protocol Anycast", true),
  block("2001:1::2/128", "Traversal Using Relays around NAT Anycast", true),
  block("2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", true),
  block("2001:2::/48", "Benchmarking"),
  block("2001:3::/32", "AMT", true),
  block("2001:4:112::/48", "AS112-v6", true),
  block("2001:10::/28", "Deprecated (previously ORCHID)"),
  block("2001:20::/28", "ORCHIDv2", true),
  block("2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", true),
  block("2001:db8::/32", "Documentation"),
  block("2002::/16", "6to4"),
  block("2620:4f:8000::/48", "Direct Delegation AS112 Service", true),
  block("3fff::/20", "Documentation"),
  block("5f00::/16", "Segment Routing (SRv6) SIDs"),
  block("fc00::/7", "Unique-Local"),
  block("fe80::/10", "Link-Local Unicast"),
  block("fec0::/10", "Site-Local (deprecated)"),
  block("ff00::/8", "Multicast"),
];

export const parseIpv4 = (text: string): number | undefined => {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
};

/** Eight 16-bit groups; brackets and zone ids are refused. */
export const parseIpv6 = (text: string): number[] | undefined => {
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  let head = text;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIpv4(dotted[2]!);
    if (v4 === undefined) return undefined;
    head = dotted[1]!.endsWith("::") ? dotted[1]! : dotted[1]!.slice(0, -1);
    tail.push(Math.floor(v4 / 65_536), v4 % 65_536);
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const [left, right] = [groups(halves[0]!), halves.length === 2 ? groups(halves[1]!) : []];
  if (![...left, ...right].every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const known = left.length + right.length + tail.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return undefined;
  const zeros = new Array<number>(8 - known).fill(0);
  return [...left.map((g) => parseInt(g, 16)), ...zeros, ...right.map((g) => parseInt(g, 16)), ...tail];
};

const v4Bits = (address: number): bigint => BigInt(address);
const v6Bits = (groups: number[]): bigint => groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);

interface CompiledBlock {
  v6: boolean;
  length: number;
  base: bigint;
  globallyReachable: boolean;
}

const compile = ({ prefix, globallyReachable }: SpecialPurposeBlock): CompiledBlock => {
  const [address, length] = prefix.split("/") as [string, string];
  const v4 = parseIpv4(address);
  const v6 = v4 === undefined ? parseIpv6(address) : undefined;
  if (v4 === undefined && v6 === undefined) throw new Error(`not a prefix: ${prefix}`);
  const bits = v4 === undefined ? 128 : 32;
  const shift = BigInt(bits - Number(length));
  const value = v4 === undefined ? v6Bits(v6!) : v4Bits(v4);
  return { v6: v4 === undefined, length: Number(length), base: value >> shift, globallyReachable };
};

// Most specific first: the first block holding an address decides.
const compiled = specialPurposeBlocks.map(compile).sort((a, b) => b.length - a.length);

const refusedByBlocks = (value: bigint, v6: boolean): boolean => {
  const bits = v6 ? 128n : 32n;
  for (const entry of compiled) {
    if (entry.v6 === v6 && value >> (bits - BigInt(entry.length)) === entry.base) return !entry.globallyReachable;
  }
  return false;
};

const v4Refused = (address: number): boolean => refusedByBlocks(v4Bits(address), false);

const v4Of = (high: number, low: number): number => high * 65_536 + low;

/** The IPv4 address the IPv6 forms judged by it carry (docs/security.md#webhook-targets-ssrf). */
const embeddingV4 = (g: number[]): number | undefined => {
  const [a, b, c, d, e, f, h6, h7] = g as [number, number, number, number, number, number, number, number];
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(7) && (h7 === 0 || h7 === 1)) return undefined; // :: and ::1 are blocks of their own
  if (zeroUpTo(5) && f === 0xffff) return v4Of(h6, h7); // ::ffff:0:0/96 IPv4-mapped
  if (zeroUpTo(4) && e === 0xffff && f === 0) return v4Of(h6, h7); // ::ffff:0:0:0/96 IPv4-translated (SIIT)
  if (zeroUpTo(6)) return v4Of(h6, h7); // ::/96 IPv4-compatible (deprecated)
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return v4Of(h6, h7); // 64:ff9b::/96 NAT64
  return undefined;
};

/** Anything that is not an IP address is refused too. */
export const isRefusedAddress = (address: string): boolean => {
  const v4 = parseIpv4(address);
  if (v4 !== undefined) return v4Refused(v4);
  const v6 = parseIpv6(address);
  if (v6 === undefined) return true;
  const embedded = embeddingV4(v6);
  return embedded === undefined ? refusedByBlocks(v6Bits(v6), true) : v4Refused(embedded);
};
