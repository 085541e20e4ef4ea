import { expect, it } from "vitest";
import { describeFailure, runSeed, type SimResult } from "./simulate.ts";

const CHUNK = 500;

/** Registers one test per chunk of seeds: each fails on any broken rule, naming the seed and its replay command. */
export const scheduleSeeds = (from: number, count: number): void => {
  for (let start = from; start < from + count; start += CHUNK) {
    const end = Math.min(start + CHUNK, from + count);
    it(`schedules ${start}–${end - 1} keep every invariant`, { timeout: 600_000 }, async () => {
      const failures: SimResult[] = [];
      for (let seed = start; seed < end; seed++) {
        const result = await runSeed(seed);
        if (result.violations.length > 0) failures.push(result);
      }
      expect(failures.map(describeFailure).join("\n")).toBe("");
    });
  }
};
