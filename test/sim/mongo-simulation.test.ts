import { afterAll, beforeAll, expect, it } from "vitest";
import { describeMongo, freshMongoDatabase, type FreshMongoDatabase } from "../support/mongo.ts";
import { mongoFamily } from "./mongo-family.ts";
import { describeFailure, runSeed, type SimResult, type StoreFamily } from "./simulate.ts";

/** A few seconds a schedule on the test engine: CI runs this many; `npm run simulate -- --mongo <url>` runs more. */
const SEEDS = 8;

describeMongo("deterministic simulation on the MongoDB adapters, faults between them and the driver", () => {
  let mongo: FreshMongoDatabase;
  let family: StoreFamily;
  beforeAll(async () => {
    mongo = await freshMongoDatabase("simulation");
    family = mongoFamily(mongo.db);
  });
  afterAll(async () => {
    await mongo?.close();
  });

  it(`schedules 1–${SEEDS} keep every invariant`, { timeout: 900_000 }, async () => {
    const failures: SimResult[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const result = await runSeed(seed, family);
      if (result.violations.length > 0) failures.push(result);
    }
    expect(failures.map((f) => describeFailure(f).replace("--verbose", `--mongo <url> --verbose`)).join("\n")).toBe("");
  });

  it("replays a seed to the same trace", { timeout: 300_000 }, async () => {
    const first = await runSeed(3, family);
    const again = await runSeed(3, family);
    expect(again.trace).toEqual(first.trace);
    expect(first.trace.some((line) => line.includes("driver "))).toBe(true);
  });
});
