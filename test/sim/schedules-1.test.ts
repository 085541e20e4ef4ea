import { describe } from "vitest";
import { scheduleSeeds } from "./run-seeds.ts";

// Half of CI's 20,000 schedules; the other half is in schedules-2.test.ts, so the two run on both cores.
describe("deterministic simulation on the memory store, seeds 1–10,000", () => {
  scheduleSeeds(1, 10_000);
});
