/**
 * PETSTORE_TRUST_PROXY on a real process (a real socket address): the client behind a trusted proxy gets its own
 * rate-limit budget and log lines; without the setting, X-Forwarded-For changes nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";
import { free } from "../support/limits.ts";

/** Unkeyed requests answer 401 and count against the free plan's minute per client address. */
const statuses = async (
  service: ServiceProcess,
  forwardedFor: (i: number) => string,
  count: number,
): Promise<number[]> => {
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) {
    out.push((await fetch(`${service.url}/pets`, { headers: { "x-forwarded-for": forwardedFor(i) } })).status);
  }
  return out;
};

/** The access-log lines of the requests above. */
const accessLines = (service: ServiceProcess): string[] =>
  service.output.filter((line) => line.includes('"message":"request"') && line.includes('"path":"/pets"'));

describe("client addresses behind proxies", () => {
  let service: ServiceProcess | undefined;
  afterEach(() => {
    service?.child.kill("SIGKILL");
  });

  it("behind a trusted proxy: each client has its own budget, and the log names it", async () => {
    service = await startServiceProcess({ PETSTORE_TRUST_PROXY: "127.0.0.0/8, ::1" });
    const first = await statuses(service, () => "203.0.113.5, 198.51.100.7", free.perMinute + 1);
    expect(first.slice(0, free.perMinute).every((s) => s === 401)).toBe(true);
    expect(first[free.perMinute]).toBe(429);
    // Another client through the same proxy still has its whole budget; a spoofed left-most hop changes nothing.
    expect(await statuses(service, () => "198.51.100.7, 198.51.100.8", 1)).toEqual([401]);
    expect(await statuses(service, () => "10.9.9.9, 198.51.100.7", 1)).toEqual([429]);
    // Access lines are written within the logger's delay: wait for the last request's.
    await expect.poll(() => accessLines(service!).length).toBe(free.perMinute + 3);
    const logged = accessLines(service).map((line) => (JSON.parse(line) as { client?: string }).client);
    expect(logged).toContain("198.51.100.7");
    expect(logged).toContain("198.51.100.8");
    expect(logged).not.toContain("203.0.113.5");
  });

  it("by default: X-Forwarded-For is not believed, every request counts against the socket's address", async () => {
    service = await startServiceProcess();
    const all = await statuses(service, (i) => `198.51.100.${i % 256}`, free.perMinute + 1);
    expect(all[free.perMinute]).toBe(429);
    await expect.poll(() => accessLines(service!).length).toBe(free.perMinute + 1);
    const logged = accessLines(service).map((line) => (JSON.parse(line) as { client?: string }).client);
    expect(new Set(logged)).toEqual(new Set(["127.0.0.1"]));
  });

  it("refuses a bad PETSTORE_TRUST_PROXY at start-up with one line naming it", async () => {
    await expect(startServiceProcess({ PETSTORE_TRUST_PROXY: "10.0.0.0/8, the-load-balancer" })).rejects.toThrow(
      /Invalid setting PETSTORE_TRUST_PROXY: expected a comma list of addresses or CIDRs: "the-load-balancer" is not an IPv4\/IPv6 address or CIDR/,
    );
  });
});
