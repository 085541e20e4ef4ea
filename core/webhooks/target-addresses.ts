/**
 * Which addresses a webhook may never reach unless private targets are allowed: unspecified, loopback, private,
 * shared (CGNAT), link-local (cloud metadata at 169.254.169.254 included), unique-local IPv6 (fd00:ec2::254
 * included), multicast, reserved and broadcast. IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64,
 * 6to4) are judged by that address.
 */
const refusedV4: readonly (readonly [string, number])[] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

export const parseIpv4 = (text: string): number | undefined => {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
};

/** Eight 16-bit groups, or undefined when `text` is not an IPv6 address (brackets and zone ids are refused). */
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

const inV4 = (address: number, [base, bits]: readonly [string, number]): boolean => {
  const size = 2 ** (32 - bits);
  return Math.floor(address / size) === Math.floor(parseIpv4(base)! / size);
};

const v4Refused = (address: number): boolean => address === 0xffffffff || refusedV4.some((range) => inV4(address, range));

const v4Of = (high: number, low: number): number => high * 65_536 + low;

const v6Refused = (g: number[]): boolean => {
  const [a, b, c, d, e, f, h6, h7] = g as [number, number, number, number, number, number, number, number];
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(7) && (h7 === 0 || h7 === 1)) return true; // :: and ::1
  if (zeroUpTo(5) && f === 0xffff) return v4Refused(v4Of(h6, h7)); // ::ffff:a.b.c.d
  if (zeroUpTo(6)) return v4Refused(v4Of(h6, h7)); // ::a.b.c.d (deprecated compatible form)
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return v4Refused(v4Of(h6, h7)); // NAT64
  if (a === 0x2002) return v4Refused(v4Of(b, c)); // 6to4
  if ((a & 0xfe00) === 0xfc00) return true; // fc00::/7 unique-local
  if ((a & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((a & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((a & 0xff00) === 0xff00) return true; // multicast
  if (a === 0x2001 && b === 0x0db8) return true; // documentation
  return false;
};

/** True when a webhook must not be sent to this address; anything that is not an IP address is refused too. */
export const isRefusedAddress = (address: string): boolean => {
  const v4 = parseIpv4(address);
  if (v4 !== undefined) return v4Refused(v4);
  const v6 = parseIpv6(address);
  return v6 === undefined || v6Refused(v6);
};
