import { describe, expect, it } from "vitest";
import { runSeed } from "./simulate.ts";

describe("the simulation is deterministic", () => {
  it("replays a seed to the same trace and the same outcome, whatever ran before it", async () => {
    const seeds = [116, 1312, 2892, 47];
    const first = [];
    for (const seed of seeds) first.push(await runSeed(seed));
    // Other schedules in between: nothing a schedule leaves in the process may change the next.
    for (let seed = 500; seed < 520; seed++) await runSeed(seed);
    for (const [i, seed] of [...seeds].reverse().entries()) {
      const again = await runSeed(seed);
      const before = first[seeds.length - 1 - i]!;
      expect(again.trace).toEqual(before.trace);
      expect(again.hash).toBe(before.hash);
      expect(again.violations).toEqual(before.violations);
    }
    // And the schedules differ: a trace is the seed's, not a constant.
    expect(new Set(first.map((r) => r.hash)).size).toBe(seeds.length);
  });

  it("explores faults: crashes, stalls, lost answers, late copies and clock jumps all happen across seeds", async () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 200; seed++)
      for (const line of (await runSeed(seed)).trace) {
        const decision =
          /\s(run|throw-before|throw-after|twice|crash-before|crash-after|stall-before|stall-after|again-later|arrive-later|jump)$/.exec(
            line,
          );
        if (decision) seen.add(decision[1]!);
      }
    expect([...seen].sort()).toEqual([
      "again-later",
      "arrive-later",
      "crash-after",
      "crash-before",
      "jump",
      "run",
      "stall-after",
      "stall-before",
      "throw-after",
      "throw-before",
      "twice",
    ]);
  });
});
