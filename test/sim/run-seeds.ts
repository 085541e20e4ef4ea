import { expect, it } from "vitest";
import { describeFailure, runSeed, type SimResult } from "./simulate.ts";
import { orderIdReused, TRACKED } from "./tracked.ts";

const CHUNK = 500;

/** Registers one test per chunk of seeds: each fails on any untracked rule, naming the seed and its replay command. */
export const scheduleSeeds = (from: number, count: number): void => {
  for (let start = from; start < from + count; start += CHUNK) {
    const end = Math.min(start + CHUNK, from + count);
    it(`schedules ${start}–${end - 1} keep every invariant`, { timeout: 600_000 }, async () => {
      const failures: SimResult[] = [];
      const tracked = new Map<string, number>();
      for (let seed = start; seed < end; seed++) {
        const result = await runSeed(seed);
        const untracked = orderIdReused(result) ? [] : result.violations.filter((v) => TRACKED[v.rule] === undefined);
        for (const v of result.violations)
          if (TRACKED[v.rule] !== undefined) tracked.set(v.rule, (tracked.get(v.rule) ?? 0) + 1);
        if (untracked.length > 0) failures.push({ ...result, violations: untracked });
      }
      if (tracked.size > 0)
        console.log(
          `seeds ${start}–${end - 1}, known bugs still open: ${[...tracked].map(([r, n]) => `${r} ×${n}`).join(", ")}`,
        );
      expect(failures.map(describeFailure).join("\n")).toBe("");
    });
  }
};
