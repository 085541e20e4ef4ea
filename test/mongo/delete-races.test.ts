import { afterAll, beforeAll, expect, it } from "vitest";
import { connectMongoStores } from "../../adapters/mongo/mongo-stores.ts";
import {
  categoryDeleteRound,
  categoryMoveRound,
  petDeleteRound,
  RaceLedger,
  seededRandom,
  type RaceKeys,
  type RoundContext,
} from "../support/delete-races.ts";
import { describeViolations, readViolations } from "../support/invariants.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";
import { startTestPetstore, type TestPetstore } from "../support/test-petstore.ts";

const ROUNDS = 30;
/** The move rounds are cheap; test/mongo/category-check-race.test.ts lands a move between the check's reads at will. */
const MOVE_ROUNDS = 60;

/**
 * Issue 11, item 4: two service instances (each its own MongoClient and pool) on one database. A delete must
 * exclude the competing order or pet creation whatever the interleaving; checked black-box afterwards.
 */
describeMongo("deletes racing orders and creations on two instances", () => {
  let mongo: FreshMongoDatabase;
  let a: TestPetstore;
  let b: TestPetstore;
  let ctx: RoundContext;
  const clock = new ManualClock("2026-11-21T12:00:10.000Z");
  const seed = Number(process.env.PETSTORE_RACE_SEED ?? Date.now() % 1_000_000);

  beforeAll(async () => {
    mongo = await freshMongoDatabase("delete_races");
    const instance = async () =>
      startTestPetstore({
        clock,
        stores: await connectMongoStores({ url: mongoUrl(), dbName: mongo.db.databaseName }),
      });
    a = await instance();
    b = await instance();
    const limits = { perMinute: 1_000_000, perDay: 10_000_000 };
    const keys: RaceKeys = {
      staff: await a.newKey("staff", "enterprise", limits),
      customer: await b.newKey("customer", "enterprise", limits),
    };
    ctx = { clients: [a.client, b.client], keys, ledger: new RaceLedger(), random: seededRandom(seed) };
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await mongo?.close();
  });

  it(
    `${ROUNDS} rounds of DELETE pet against 4 orders, ${ROUNDS} of DELETE category against 3 creations and ${MOVE_ROUNDS} against a move into it: every invariant holds (seed in the message)`,
    { timeout: 180_000 },
    async () => {
      const category = await a.client.post("/categories", { key: ctx.keys.staff, body: { name: "Raced pets" } });
      expect(category.status).toBe(201);
      for (let round = 0; round < ROUNDS; round++) {
        await petDeleteRound(ctx, round, category.body.id as number);
        await categoryDeleteRound(ctx, round);
      }
      for (let round = 0; round < MOVE_ROUNDS; round++) await categoryMoveRound(ctx, round, category.body.id as number);

      const { snapshot, violations } = await readViolations(
        (path) => b.client.get(path, { key: ctx.keys.staff }),
        ctx.ledger.expectations(),
      );
      const ledger = ctx.ledger;
      const listedPets = new Set(snapshot.pets.map((p) => p.id));
      const listedOrders = new Set(snapshot.orders.map((o) => o.id));
      const lost = ledger.outcomes.flatMap((o) =>
        o.kind === "move"
          ? []
          : o.kind === "category"
            ? o.acknowledged
                .filter((id) => !listedPets.has(id))
                .map((id) => `round ${o.round}: pet ${id} was created (201) but is not listed`)
            : o.deleted
              ? []
              : o.acknowledged
                  .filter((id) => !listedOrders.has(id))
                  .map((id) => `round ${o.round}: order ${id} was placed (201) but is not listed`),
      );
      const anomalies = ledger.outcomes.flatMap((o) => o.anomalies.map((a) => `${o.kind} round ${o.round}: ${a}`));
      const orderIds = ledger.outcomes.flatMap((o) => (o.kind === "pet" ? o.acknowledged : []));
      if (new Set(orderIds).size !== orderIds.length)
        anomalies.push(`order ids handed out twice: ${orderIds.join(", ")}`);
      const bad = ledger.roundsWith(violations);
      for (const o of ledger.outcomes) if (o.anomalies.length > 0) bad.add(o);
      const summary =
        `seed ${seed}: pet rounds with a violation ${[...bad].filter((o) => o.kind === "pet").length}/${ROUNDS}, ` +
        `category rounds ${[...bad].filter((o) => o.kind === "category").length}/${ROUNDS}, ` +
        `move rounds ${[...bad].filter((o) => o.kind === "move").length}/${MOVE_ROUNDS} (moves that won ${ledger.outcomes.filter((o) => o.kind === "move" && o.acknowledged.length > 0).length}); ` +
        `deletes that won: pets ${ledger.deletedPets.size}, categories ${ledger.deletedCategories.size}; ` +
        `category rounds where both sides backed off: ${ledger.outcomes.filter((o) => o.bothRefused).length}`;
      console.info(`delete races on two instances: ${summary}`);

      expect({ violations: describeViolations(violations), anomalies, lost }, summary).toEqual({
        violations: "",
        anomalies: [],
        lost: [],
      });
      // Both sides must win sometimes, or the race was never run.
      expect(ledger.deletedPets.size, summary).toBeGreaterThan(0);
      expect(
        ledger.outcomes.some((o) => o.kind === "pet" && o.acknowledged.length > 0),
        summary,
      ).toBe(true);
    },
  );
});
