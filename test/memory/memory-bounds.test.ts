import { describe, expect, it } from "vitest";
import { MemoryIdempotencyRecords } from "../../adapters/memory/memory-idempotency-records.ts";
import { MemoryRateLimiter } from "../../adapters/memory/memory-rate-limiter.ts";
import type { IdempotencyClaim, RecordedResponse } from "../../core/idempotency/idempotency-records.port.ts";
import type { Windows } from "../../core/rate-limiting/windows.ts";
import { workOf } from "../support/work-meter.ts";

const start = Date.parse("2026-11-21T00:00:00.000Z");
const MINUTE = 60_000;
const DAY = 86_400_000;
/** The minute window `n` minutes after day 0 starts, and the day window it lies in. */
const windowsAt = (n: number, limits = { perMinute: 5, perDay: 100 }): Windows => {
  const dayIndex = Math.floor((n * MINUTE) / DAY);
  return {
    minute: { key: `m${n}`, limit: limits.perMinute, resetsAt: new Date(start + (n + 1) * MINUTE) },
    day: { key: `d${dayIndex}`, limit: limits.perDay, resetsAt: new Date(start + (dayIndex + 1) * DAY) },
  };
};
const minutesPerDay = DAY / MINUTE;

describe("MemoryRateLimiter: memory bounded by day", () => {
  it("keeps the previous day's counters for requests that read the clock before midnight", async () => {
    const limiter = new MemoryRateLimiter();
    const lastMinute = windowsAt(minutesPerDay - 1, { perMinute: 5, perDay: 3 });
    for (let i = 0; i < 3; i++) await limiter.consume("address:10.0.0.1", lastMinute);
    await limiter.consume("address:10.0.0.2", windowsAt(minutesPerDay + 1)); // the new day has begun

    expect(await limiter.consume("address:10.0.0.1", lastMinute)).toEqual({
      admitted: false,
      counts: { minute: 3, day: 3 },
      strikes: 1,
    });
  });

  it("forgets a subject unseen in the new day two minutes after its day ended", async () => {
    const limiter = new MemoryRateLimiter();
    const lastMinute = windowsAt(minutesPerDay - 1, { perMinute: 5, perDay: 3 });
    for (let i = 0; i < 3; i++) await limiter.consume("address:10.0.0.1", lastMinute);
    await limiter.consume("address:10.0.0.2", windowsAt(minutesPerDay + 2));

    // Its counters are gone: the day that ended is counted afresh (a request that late is one no client sends).
    expect(await limiter.consume("address:10.0.0.1", lastMinute)).toMatchObject({ admitted: true, counts: { day: 1 } });
  });

  it("keeps counting a subject seen in the new day, from zero", async () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 3; i++) await limiter.consume("key:1", windowsAt(minutesPerDay - 1));
    await limiter.consume("key:1", windowsAt(minutesPerDay));
    await limiter.consume("key:2", windowsAt(minutesPerDay + 3));

    expect(await limiter.consume("key:1", windowsAt(minutesPerDay + 3))).toEqual({
      admitted: true,
      counts: { minute: 1, day: 2 },
      strikes: 0,
    });
  });

  it("counts a straggler of the previous minute in that minute, not the current one", async () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 5; i++) await limiter.consume("key:1", windowsAt(10));
    await limiter.consume("key:1", windowsAt(11));

    expect(await limiter.consume("key:1", windowsAt(10))).toEqual({
      admitted: false,
      counts: { minute: 5, day: 6 },
      strikes: 1,
    });
    expect(await limiter.consume("key:1", windowsAt(11))).toEqual({
      admitted: true,
      counts: { minute: 2, day: 7 },
      strikes: 0,
    });
  });
});

const aResponse: RecordedResponse = { status: 201, body: '{"id":1}', headers: { location: "/store/orders/1" } };
const now = new Date("2026-11-21T12:00:00.000Z");
const aClaim = (key: string, overrides: Partial<IdempotencyClaim> = {}): IdempotencyClaim => ({
  scope: "key:1",
  key,
  fingerprint: `fp-${key}`,
  now,
  leaseUntil: new Date(now.getTime() + MINUTE),
  expiresAt: new Date(now.getTime() + DAY),
  ...overrides,
});
const completed = async (records: MemoryIdempotencyRecords, key: string, overrides: Partial<IdempotencyClaim> = {}) => {
  const claim = await records.claim(aClaim(key, overrides));
  if (claim.outcome !== "claimed") throw new Error(`expected to claim ${key}, got ${claim.outcome}`);
  expect(await records.complete(overrides.scope ?? "key:1", key, claim.token, aResponse)).toBe(true);
};

describe("MemoryIdempotencyRecords: a cap per scope", () => {
  it("keeps 1,000 records per API key by default and forgets the oldest past it", async () => {
    const records = new MemoryIdempotencyRecords();
    for (let i = 1; i <= 1_001; i++) await completed(records, `k${i}`);

    expect(await records.claim(aClaim("k2"))).toMatchObject({ outcome: "completed" });
    expect(await records.claim(aClaim("k1001"))).toMatchObject({ outcome: "completed" });
    expect(await records.claim(aClaim("k1"))).toMatchObject({ outcome: "claimed" }); // forgotten: a retry acts afresh
  });

  it("forgets the oldest claimed first, a re-claimed stale key counting as new", async () => {
    const records = new MemoryIdempotencyRecords({ perScope: 3 });
    await records.claim(aClaim("lost")); // never completed
    await completed(records, "a");
    await completed(records, "b");
    const later = { now: new Date(now.getTime() + 2 * MINUTE), leaseUntil: new Date(now.getTime() + 3 * MINUTE) };
    await completed(records, "lost", later); // its lease ran out: claimed anew, now the newest
    await completed(records, "c", later);

    expect(await records.claim(aClaim("a", later))).toMatchObject({ outcome: "claimed" });
    expect(await records.claim(aClaim("lost", later))).toMatchObject({ outcome: "completed" });
  });

  it("never forgets a key still in progress, even past the cap", async () => {
    const records = new MemoryIdempotencyRecords({ perScope: 2 });
    await records.claim(aClaim("running-1"));
    await records.claim(aClaim("running-2"));
    await completed(records, "done");

    expect(await records.claim(aClaim("running-1", { fingerprint: "other" }))).toMatchObject({
      outcome: "in-progress",
      fingerprint: "fp-running-1",
    });
    expect(await records.claim(aClaim("running-2", { fingerprint: "other" }))).toMatchObject({
      outcome: "in-progress",
      fingerprint: "fp-running-2",
    });
  });

  it("caps each API key on its own", async () => {
    const records = new MemoryIdempotencyRecords({ perScope: 2 });
    await completed(records, "a", { scope: "key:1" });
    for (const key of ["b", "c", "d"]) await completed(records, key, { scope: "key:2" });

    expect(await records.claim(aClaim("a", { scope: "key:1" }))).toMatchObject({ outcome: "completed" });
    expect(await records.claim(aClaim("b", { scope: "key:2" }))).toMatchObject({ outcome: "claimed" });
  });

  it("hands out recorded responses that cannot be changed", async () => {
    const records = new MemoryIdempotencyRecords();
    await completed(records, "a");
    const claim = await records.claim(aClaim("a"));
    if (claim.outcome !== "completed") throw new Error(`expected a completed record, got ${claim.outcome}`);

    expect(() => {
      claim.response.headers.location = "/elsewhere";
    }).toThrow(TypeError);
    expect(await records.claim(aClaim("a"))).toMatchObject({ response: aResponse });
  });
});

describe("MemoryIdempotencyRecords: expired records forgotten at the cost of what expires", () => {
  const KEYS = 5_000;
  const PER_KEY = 10;
  /** A claim `ms` after `now`, kept a day from then. */
  const claimAt = (key: string, scope: string, ms: number): IdempotencyClaim =>
    aClaim(key, {
      scope,
      now: new Date(now.getTime() + ms),
      leaseUntil: new Date(now.getTime() + ms + MINUTE),
      expiresAt: new Date(now.getTime() + ms + DAY),
    });
  const filled = async (): Promise<MemoryIdempotencyRecords> => {
    const records = new MemoryIdempotencyRecords();
    for (let k = 0; k < KEYS; k++) {
      for (let i = 0; i < PER_KEY; i++) {
        const claim = await records.claim(claimAt(`k${i}`, `key:${k}`, 0));
        if (claim.outcome !== "claimed") throw new Error(`expected to claim, got ${claim.outcome}`);
        await records.complete(`key:${k}`, `k${i}`, claim.token, aResponse);
      }
    }
    return records;
  };

  it("walks a few records, not the 50,000 that 5,000 API keys hold, to find that none has expired", async () => {
    const records = await filled();
    for (const ms of [2 * MINUTE, 2 * 60 * MINUTE, DAY - MINUTE]) {
      const work = await workOf(() => records.claim(claimAt("new", "key:other", ms)));
      expect(work.walked).toBeLessThan(50);
    }
    expect(await records.claim(claimAt("k3", "key:42", DAY - MINUTE))).toMatchObject({ outcome: "completed" });
  });

  it("keeps a key's records after its last one was released and it claims again", async () => {
    const records = new MemoryIdempotencyRecords();
    const first = await records.claim(aClaim("a"));
    if (first.outcome !== "claimed") throw new Error(`expected to claim, got ${first.outcome}`);
    await records.release("key:1", "a", first.token);
    await completed(records, "b");

    expect(await records.claim(aClaim("b"))).toMatchObject({ outcome: "completed" });
  });

  it("forgets them once expired, and keeps a key's records claimed since", async () => {
    const records = await filled();
    // key:7 claims again half a day later: its records from then on outlive the others.
    const later = await records.claim(claimAt("later", "key:7", DAY / 2));
    if (later.outcome !== "claimed") throw new Error(`expected to claim, got ${later.outcome}`);
    await records.complete("key:7", "later", later.token, aResponse);

    const work = await workOf(() => records.claim(claimAt("new", "key:other", DAY + MINUTE)));
    expect(work.walked).toBeGreaterThanOrEqual(KEYS * PER_KEY);
    expect(await records.claim(claimAt("k3", "key:42", DAY + MINUTE))).toMatchObject({ outcome: "claimed" });
    expect(await records.claim(claimAt("later", "key:7", DAY + MINUTE))).toMatchObject({ outcome: "completed" });
    // Forgotten once: the next claim walks only what is left at the front.
    expect((await workOf(() => records.claim(claimAt("newer", "key:other", DAY + MINUTE)))).walked).toBeLessThan(50);
  });
});
