import { describe } from "vitest";
import { scheduleSeeds } from "./run-seeds.ts";

describe("deterministic simulation on the memory store, seeds 10,001–20,000", () => {
  scheduleSeeds(10_001, 10_000);
});
