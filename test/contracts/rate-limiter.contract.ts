import { describe, expect, it } from "vitest";
import type { WindowSpec } from "../../core/rate-limiting/rate-limiter.port.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { aDayWindow, aMinuteWindow } from "./mothers.ts";

export const rateLimiterContract = (harness: ContractHarness): void => {
  describe(`RateLimiter contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const consume = (subject: string, minute: WindowSpec, day: WindowSpec = aDayWindow(1, 1_000)) =>
      stores().limiter.consume(subject, { minute, day });
    const times = async <T>(n: number, run: () => Promise<T>): Promise<T[]> => {
      const results: T[] = [];
      for (let i = 0; i < n; i++) results.push(await run());
      return results;
    };
    const admittedFirst = { admitted: true, counts: { minute: 1, day: 1 }, strikes: 0 };

    it("counts admitted requests in both windows, up to the limit", async () => {
      const minute = aMinuteWindow(1, 3);

      expect(await times(3, () => consume("key:1", minute))).toEqual([
        { admitted: true, counts: { minute: 1, day: 1 }, strikes: 0 },
        { admitted: true, counts: { minute: 2, day: 2 }, strikes: 0 },
        { admitted: true, counts: { minute: 3, day: 3 }, strikes: 0 },
      ]);
      expect(await consume("key:1", minute)).toEqual({ admitted: false, counts: { minute: 3, day: 3 }, strikes: 1 });
    });

    it("tells a subject's usage without counting it: 0 before any request", async () => {
      const minute = aMinuteWindow(1, 3);
      const day = aDayWindow(1, 1_000);

      expect(await stores().limiter.usage("key:1", { minute, day })).toEqual({ minute: 0, day: 0 });
      await times(2, () => consume("key:1", minute, day));
      await consume("key:2", minute, day);

      expect(await stores().limiter.usage("key:1", { minute, day })).toEqual({ minute: 2, day: 2 });
      expect(await stores().limiter.usage("key:1", { minute, day })).toEqual({ minute: 2, day: 2 });
      expect(await stores().limiter.usage("key:1", { minute: aMinuteWindow(2, 3), day: day })).toEqual({
        minute: 0,
        day: 2,
      });
    });

    it("is exact under concurrency: limit 60, 80 parallel requests, 60 admitted", async () => {
      const minute = aMinuteWindow(1, 60);

      const results = await Promise.all(Array.from({ length: 80 }, () => consume("key:1", minute)));

      const admitted = results.filter((r) => r.admitted);
      const refused = results.filter((r) => !r.admitted);
      expect(admitted).toHaveLength(60);
      expect(new Set(admitted.map((r) => r.counts.minute))).toEqual(
        new Set(Array.from({ length: 60 }, (_, i) => i + 1)),
      );
      expect(new Set(refused.map((r) => r.strikes))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => i + 1)));
      expect(await consume("key:1", minute)).toMatchObject({ admitted: false, counts: { minute: 60, day: 60 } });
    });

    it("is exact for the day window under concurrency", async () => {
      const day = aDayWindow(1, 25);

      const results = await Promise.all(Array.from({ length: 40 }, () => consume("key:1", aMinuteWindow(1, 100), day)));

      expect(results.filter((r) => r.admitted)).toHaveLength(25);
      expect(await consume("key:1", aMinuteWindow(2, 100), day)).toMatchObject({
        admitted: false,
        counts: { day: 25 },
      });
    });

    describe("both windows or neither", () => {
      it("a full day window refuses, and the minute count does not grow", async () => {
        const day = aDayWindow(1, 2);
        await times(2, () => consume("key:1", aMinuteWindow(1, 10), day));

        expect(await consume("key:1", aMinuteWindow(1, 10), day)).toMatchObject({
          admitted: false,
          counts: { minute: 2, day: 2 },
        });
        expect(await consume("key:1", aMinuteWindow(2, 10), day)).toMatchObject({
          admitted: false,
          counts: { minute: 0, day: 2 },
        });
      });

      it("a full minute window refuses, and the day count does not grow", async () => {
        const day = aDayWindow(1, 10);
        await times(5, () => consume("key:1", aMinuteWindow(1, 2), day));

        expect(await consume("key:1", aMinuteWindow(2, 2), day)).toEqual({
          admitted: true,
          counts: { minute: 1, day: 3 },
          strikes: 0,
        });
      });
    });

    it("starts a new count when the window key changes", async () => {
      await times(3, () => consume("key:1", aMinuteWindow(1, 3)));
      expect((await consume("key:1", aMinuteWindow(1, 3))).admitted).toBe(false);

      expect(await consume("key:1", aMinuteWindow(2, 3))).toEqual({
        admitted: true,
        counts: { minute: 1, day: 4 },
        strikes: 0,
      });
      expect(await consume("key:1", aMinuteWindow(1441, 3), aDayWindow(2, 1_000))).toEqual(admittedFirst);
    });

    describe("strikes", () => {
      it("count per refusing minute window and start again in the next one", async () => {
        await times(2, () => consume("key:1", aMinuteWindow(1, 2)));
        const firstMinute = await times(3, () => consume("key:1", aMinuteWindow(1, 2)));
        await times(2, () => consume("key:1", aMinuteWindow(2, 2)));
        const secondMinute = await times(2, () => consume("key:1", aMinuteWindow(2, 2)));

        expect(firstMinute.map((r) => r.strikes)).toEqual([1, 2, 3]);
        expect(secondMinute.map((r) => r.strikes)).toEqual([1, 2]);
      });

      it("count against the day window while it is full, across minutes", async () => {
        const day = aDayWindow(1, 2);
        await times(2, () => consume("key:1", aMinuteWindow(1, 10), day));
        const refused = [
          await consume("key:1", aMinuteWindow(1, 10), day),
          await consume("key:1", aMinuteWindow(1, 10), day),
          await consume("key:1", aMinuteWindow(2, 10), day),
        ];

        expect(refused.map((r) => r.strikes)).toEqual([1, 2, 3]);
      });

      it("are 0 for admitted requests", async () => {
        expect(await consume("key:1", aMinuteWindow(1, 10))).toEqual(admittedFirst);
      });
    });

    it("keeps subjects independent", async () => {
      await times(3, () => consume("key:1", aMinuteWindow(1, 2)));

      expect(await consume("address:10.0.0.1", aMinuteWindow(1, 2))).toEqual(admittedFirst);
      expect(await consume("key:2", aMinuteWindow(1, 2))).toEqual(admittedFirst);
      expect((await consume("key:1", aMinuteWindow(1, 2))).admitted).toBe(false);
    });
  });
};
