import type { Expectations, Violation } from "./invariants.ts";
import type { TestClient, TestResponse } from "./test-petstore.ts";

/**
 * Rounds of a delete racing the writes that would make it wrong, sent through one or more service instances
 * (`clients`) at once: DELETE pet against concurrent orders for it, DELETE category against concurrent pet
 * creations in it, DELETE category against a PUT moving a pet into it. Each round records what the service acknowledged, so the invariant check afterwards knows the
 * stock it gave and what was deleted, and the round itself can tell an acknowledged write that was lost.
 */

export interface RaceKeys {
  staff: string;
  customer: string;
}

export interface RoundOutcome {
  kind: "pet" | "category" | "move";
  round: number;
  /** The pet or category the round deletes. */
  targetId: number;
  deleted: boolean;
  /** Orders (pet rounds), pets (category rounds) the service answered 201 for, or the pet moved in (move rounds, 200). */
  acknowledged: number[];
  /** Answers no interleaving allows (a 5xx, a status outside the contract, a 204 beside an acknowledged write). */
  anomalies: string[];
  /** The delete answered 409 and yet none of its competitors succeeded. */
  bothRefused?: boolean;
}

/** What the rounds gave and deleted, for findViolations. */
export class RaceLedger {
  readonly stockGiven = new Map<number, number>();
  readonly deletedPets = new Set<number>();
  readonly deletedCategories = new Set<number>();
  readonly outcomes: RoundOutcome[] = [];

  expectations(): Expectations {
    return {
      stockGiven: this.stockGiven,
      deletedPets: this.deletedPets,
      deletedCategories: this.deletedCategories,
      statusFollowsStockOnly: true,
    };
  }

  /** The rounds each violation belongs to (by the pet, category or order it names). */
  roundsWith(violations: readonly Violation[]): Set<RoundOutcome> {
    const rounds = new Set<RoundOutcome>();
    for (const v of violations) {
      for (const outcome of this.outcomes) {
        const names =
          outcome.kind === "pet"
            ? v.petId === outcome.targetId || (v.orderId !== undefined && outcome.acknowledged.includes(v.orderId))
            : v.categoryId === outcome.targetId || (v.petId !== undefined && outcome.acknowledged.includes(v.petId));
        if (names) rounds.add(outcome);
      }
    }
    return rounds;
  }
}

const expect201 = <T>(res: TestResponse<T>, what: string): T => {
  if (res.status !== 201 && res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** How far apart a round's requests may start, by round: from all at once to further apart than a request lasts. */
const SPREADS_MS = [0, 5, 30, 150];

/**
 * Starts the requests in a shuffled order, each after a random delay within the round's spread, so that over the
 * rounds either side gets to the store first and their store calls interleave in many ways.
 */
const race = async (
  requests: Array<() => Promise<TestResponse>>,
  random: () => number,
  round: number,
): Promise<TestResponse[]> => {
  const spread = SPREADS_MS[round % SPREADS_MS.length]!;
  const order = requests.map((_, i) => i).sort(() => random() - 0.5);
  const results: Promise<TestResponse>[] = new Array(requests.length);
  for (const i of order) {
    const delay = Math.floor(random() * (spread + 1));
    results[i] = new Promise((resolve) => setTimeout(resolve, delay)).then(requests[i]!);
  }
  return Promise.all(results);
};

const describe = (res: TestResponse): string =>
  `${res.status} ${typeof res.body === "object" ? (res.body?.code ?? "") : ""}`.trim();

export interface RoundContext {
  clients: readonly TestClient[];
  keys: RaceKeys;
  ledger: RaceLedger;
  random: () => number;
}

/** One pet with stock, then DELETE /pets/{id} racing `orders` orders of one unit each, spread over the instances. */
export const petDeleteRound = async (
  ctx: RoundContext,
  round: number,
  categoryId: number,
  orders = 4,
): Promise<RoundOutcome> => {
  const { clients, keys, ledger, random } = ctx;
  const via = (i: number) => clients[i % clients.length]!;
  const pet = expect201(
    await via(round).post("/pets", { key: keys.staff, body: { name: `Raced ${round}`, categoryId } }),
    "create pet",
  ) as { id: number };
  const stock = orders + 2;
  expect201(
    await via(round + 1).put(`/store/inventory/${pet.id}`, { key: keys.staff, body: { quantity: stock } }),
    "set stock",
  );
  ledger.stockGiven.set(pet.id, stock);

  const [deletion, ...placed] = await race(
    [
      () => via(round).delete(`/pets/${pet.id}`, { key: keys.staff }),
      ...Array.from(
        { length: orders },
        (_, i) => () =>
          via(round + i + 1).post("/store/orders", { key: keys.customer, body: { petId: pet.id, quantity: 1 } }),
      ),
    ],
    random,
    round,
  );
  const outcome: RoundOutcome = {
    kind: "pet",
    round,
    targetId: pet.id,
    deleted: deletion!.status === 204,
    acknowledged: placed.filter((r) => r.status === 201).map((r) => r.body.id as number),
    anomalies: [],
  };
  if (deletion!.status !== 204 && !(deletion!.status === 409 && deletion!.body.code === "pet_has_open_orders")) {
    outcome.anomalies.push(`DELETE pet answered ${describe(deletion!)}`);
  }
  const refusals = new Set(["404 not_found", "422 unknown_pet", "409 pet_not_available"]);
  for (const res of placed)
    if (res.status !== 201 && !refusals.has(describe(res)))
      outcome.anomalies.push(`an order answered ${describe(res)}`);
  if (outcome.deleted && outcome.acknowledged.length > 0) {
    outcome.anomalies.push(
      `DELETE pet answered 204 although orders ${outcome.acknowledged.join(", ")} were acknowledged for it`,
    );
  }
  if (deletion!.status === 409 && outcome.acknowledged.length === 0)
    outcome.anomalies.push("DELETE pet answered 409 pet_has_open_orders but no order was placed");
  if (outcome.deleted) ledger.deletedPets.add(pet.id);
  ledger.outcomes.push(outcome);
  return outcome;
};

/** One category, then DELETE /categories/{id} racing `creations` pet creations in it, spread over the instances. */
export const categoryDeleteRound = async (ctx: RoundContext, round: number, creations = 3): Promise<RoundOutcome> => {
  const { clients, keys, ledger, random } = ctx;
  const via = (i: number) => clients[i % clients.length]!;
  const category = expect201(
    await via(round).post("/categories", { key: keys.staff, body: { name: `Race ${round}` } }),
    "create category",
  ) as { id: number };

  const [deletion, ...created] = await race(
    [
      () => via(round).delete(`/categories/${category.id}`, { key: keys.staff }),
      ...Array.from(
        { length: creations },
        (_, i) => () =>
          via(round + i + 1).post("/pets", {
            key: keys.staff,
            body: { name: `Newcomer ${round}.${i}`, categoryId: category.id },
          }),
      ),
    ],
    random,
    round,
  );
  const outcome: RoundOutcome = {
    kind: "category",
    round,
    targetId: category.id,
    deleted: deletion!.status === 204,
    acknowledged: created.filter((r) => r.status === 201).map((r) => r.body.id as number),
    anomalies: [],
  };
  if (deletion!.status !== 204 && !(deletion!.status === 409 && deletion!.body.code === "category_in_use")) {
    outcome.anomalies.push(`DELETE category answered ${describe(deletion!)}`);
  }
  for (const res of created)
    if (res.status !== 201 && describe(res) !== "422 unknown_category")
      outcome.anomalies.push(`a creation answered ${describe(res)}`);
  if (outcome.deleted && outcome.acknowledged.length > 0) {
    outcome.anomalies.push(
      `DELETE category answered 204 although pets ${outcome.acknowledged.join(", ")} were created in it`,
    );
  }
  // Both may back off (the delete saw a provisional pet, whose confirmation then saw the category being deleted):
  // no invariant suffers, so it is counted, not refused.
  outcome.bothRefused = deletion!.status === 409 && outcome.acknowledged.length === 0;
  for (const id of outcome.acknowledged) ledger.stockGiven.set(id, 0);
  if (outcome.deleted) ledger.deletedCategories.add(category.id);
  ledger.outcomes.push(outcome);
  return outcome;
};

/**
 * A category and a pet in another one, then DELETE /categories/{id} racing a PUT that moves the pet into it, through
 * different instances: both may fail, never both succeed (the pet would name a deleted category).
 */
export const categoryMoveRound = async (ctx: RoundContext, round: number, homeId: number): Promise<RoundOutcome> => {
  const { clients, keys, ledger, random } = ctx;
  const via = (i: number) => clients[i % clients.length]!;
  const category = expect201(
    await via(round).post("/categories", { key: keys.staff, body: { name: `Move race ${round}` } }),
    "create category",
  ) as { id: number };
  const pet = expect201(
    await via(round + 1).post("/pets", { key: keys.staff, body: { name: `Mover ${round}`, categoryId: homeId } }),
    "create pet",
  ) as { id: number };
  ledger.stockGiven.set(pet.id, 0);

  const [deletion, move] = await race(
    [
      () => via(round).delete(`/categories/${category.id}`, { key: keys.staff }),
      () =>
        via(round + 1).put(`/pets/${pet.id}`, {
          key: keys.staff,
          body: { name: `Mover ${round}`, categoryId: category.id },
        }),
    ],
    random,
    round,
  );
  const outcome: RoundOutcome = {
    kind: "move",
    round,
    targetId: category.id,
    deleted: deletion!.status === 204,
    acknowledged: move!.status === 200 ? [pet.id] : [],
    anomalies: [],
  };
  if (deletion!.status !== 204 && !(deletion!.status === 409 && deletion!.body.code === "category_in_use")) {
    outcome.anomalies.push(`DELETE category answered ${describe(deletion!)}`);
  }
  if (move!.status !== 200 && describe(move!) !== "422 unknown_category")
    outcome.anomalies.push(`the move answered ${describe(move!)}`);
  if (outcome.deleted && outcome.acknowledged.length > 0)
    outcome.anomalies.push(`DELETE category answered 204 although pet ${pet.id} was moved into it`);
  outcome.bothRefused = deletion!.status === 409 && outcome.acknowledged.length === 0;
  if (outcome.deleted) ledger.deletedCategories.add(category.id);
  ledger.outcomes.push(outcome);
  return outcome;
};

/** A small seeded generator (mulberry32), so a failing round order can be replayed from the printed seed. */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};
