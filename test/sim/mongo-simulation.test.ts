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

  it("a read the driver sends twice answers what the query matches, as a second run of it would", async () => {
    const store = await family(1);
    try {
      await store.raw.webhooks.add({
        id: 1,
        url: "https://hooks.example/twice",
        events: ["inventory.changed"],
        description: undefined,
        secrets: [{ value: "twice-secret-0123456789abcdef", expiresAt: undefined }],
        createdAt: new Date("2026-11-21T12:00:00.000Z"),
      });
      const stores = store.instanceStores!();
      const notes: string[] = [];
      const armed = store.arm!(
        "twice",
        1,
        (line) => notes.push(line),
        () => {},
      );
      // The relay fans an event out to what this answers: an empty answer would drop the subscriber's message.
      const listening = await stores.webhooks.listeningTo("inventory.changed");
      expect(armed.disarm()).toBe(true);
      expect(notes).toEqual(["driver webhook_subscriptions.find.toArray twice"]);
      expect(listening.map((s) => s.id)).toEqual([1]);
    } finally {
      await store.close();
    }
  });

  it("replays a seed to the same trace", { timeout: 300_000 }, async () => {
    // A seed whose faults land below the adapters (driver calls), so the replay covers the injector too.
    const first = await runSeed(6, family);
    const again = await runSeed(6, family);
    expect(again.trace).toEqual(first.trace);
    expect(first.trace.some((line) => line.includes("driver "))).toBe(true);
  });
});
