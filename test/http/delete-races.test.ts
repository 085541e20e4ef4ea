import { beforeEach, describe, expect, it } from "vitest";
import {
  categoryDeleteRound,
  petDeleteRound,
  RaceLedger,
  seededRandom,
  type RoundContext,
} from "../support/delete-races.ts";
import { describeViolations, readViolations } from "../support/invariants.ts";
import { usePetstore } from "../support/http-fixtures.ts";

const ROUNDS = 5;

/**
 * Issue 11, item 4 on one instance: concurrent requests through one app (the http-on-mongo project runs it on
 * MongoDB as well). test/mongo/delete-races.test.ts runs the same rounds over two instances on one database.
 */
describe("deletes racing orders and creations on one instance", () => {
  const { t } = usePetstore({ keys: false });
  let ctx: RoundContext;
  const seed = Number(process.env.PETSTORE_RACE_SEED ?? Date.now() % 1_000_000);
  beforeEach(async () => {
    const limits = { perMinute: 1_000_000, perDay: 10_000_000 };
    const keys = {
      staff: await t.newKey("staff", "enterprise", limits),
      customer: await t.newKey("customer", "enterprise", limits),
    };
    ctx = { clients: [t.client], keys, ledger: new RaceLedger(), random: seededRandom(seed) };
  });

  it(`${ROUNDS} rounds of DELETE pet against 4 orders and of DELETE category against 3 creations keep every invariant`, async () => {
    const category = await t.client.post("/categories", { key: ctx.keys.staff, body: { name: "Raced pets" } });
    for (let round = 0; round < ROUNDS; round++) {
      await petDeleteRound(ctx, round, category.body.id as number);
      await categoryDeleteRound(ctx, round);
    }
    const { violations } = await readViolations(
      (path) => t.client.get(path, { key: ctx.keys.staff }),
      ctx.ledger.expectations(),
    );
    const anomalies = ctx.ledger.outcomes.flatMap((o) => o.anomalies.map((a) => `${o.kind} round ${o.round}: ${a}`));
    expect({ violations: describeViolations(violations), anomalies }, `seed ${seed}`).toEqual({
      violations: "",
      anomalies: [],
    });
  });
});
