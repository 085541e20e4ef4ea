import { beforeEach, describe, expect, it } from "vitest";
import { RecoverInterruptedWrites } from "../../core/recovery/recover-interrupted-writes.ts";
import { expectError } from "../support/http-assertions.ts";
import { stockedPet, stockOf, usePetstore } from "../support/http-fixtures.ts";
import { describeViolations, readViolations } from "../support/invariants.ts";
import type { TestPetstore } from "../support/test-petstore.ts";

const LOCK_MS = 60_000;
const GRACE_MS = 30_000;

/**
 * Makes the next call of `target[name]` stop where it is: `die()` fails it (the process died there), `proceed()`
 * runs it after all (the request was only slow), `loseAnswer()` runs it and then fails it (the store applied the
 * write, its answer never came back). Later calls go straight through.
 */
const stopNext = <T extends object>(target: T, name: keyof T & string) => {
  const method = target[name] as (...args: unknown[]) => Promise<unknown>;
  const real = method.bind(target);
  let reached!: () => void;
  let go!: (how: "die" | "proceed" | "lose") => void;
  const gate = new Promise<"die" | "proceed" | "lose">((resolve) => (go = resolve));
  const died = () => Promise.reject(new Error("the process died here"));
  (target as Record<string, unknown>)[name] = (...args: unknown[]) => {
    (target as Record<string, unknown>)[name] = real;
    reached();
    return gate.then((how) => (how === "die" ? died() : how === "proceed" ? real(...args) : real(...args).then(died)));
  };
  return {
    reached: new Promise<void>((resolve) => (reached = resolve)),
    die: () => go("die"),
    proceed: () => go("proceed"),
    loseAnswer: () => go("lose"),
  };
};

type Answer = Awaited<ReturnType<TestPetstore["client"]["post"]>>;
type Stopped = Awaited<ReturnType<typeof firstSentStoppedAt>>;

/** A first attempt sent by `send`, stopped at the next call of `target[name]`, and its retry (`send` again). */
const firstSentStoppedAt = async <T extends object>(send: () => Promise<Answer>, target: T, name: keyof T & string) => {
  const stop = stopNext(target, name);
  const first = send();
  await stop.reached;
  return { stop, first, retry: send };
};

/** The lock runs out, a retry takes the key over and answers 201; then the stopped first attempt goes on (`go`). */
const retryTakingOver = async (
  t: TestPetstore,
  go: () => void,
  first: Promise<Answer>,
  retry: () => Promise<Answer>,
) => {
  t.clock.advance(LOCK_MS);
  const retried = await retry();
  expect(retried.status).toBe(201);
  go();
  return { retried, late: await first };
};

/**
 * A keyed creation whose first attempt (stopped at recording its answer) made the one item `listed()` finds, at
 * `${path}/{id}`: it dies there, and the retry after the lock answers that item with its Location, then is replayed.
 */
const expectRetryAnswersWhatDiedUnrecorded = async (
  t: TestPetstore,
  { stop, first, retry }: Stopped,
  listed: () => Promise<{ id: number }[]>,
  path: string,
) => {
  const [made] = await listed();
  expect(made).toBeDefined();

  t.clock.advance(LOCK_MS);
  const retried = await retry();
  expect(retried.status).toBe(201);
  expect(retried.body).toEqual(made);
  expect(retried.headers.get("location")).toBe(`${path}/${made!.id}`);
  stop.die();
  expect((await first).status).toBeGreaterThanOrEqual(500);

  expect((await retry()).headers.get("idempotent-replayed")).toBe("true");
  return made;
};

/**
 * A keyed creation whose first attempt's write (stopped) is applied but its answer lost: the attempt answers a 5xx and
 * frees the key at once; the retry, with no lock to wait out, answers the one item `listed()` finds.
 */
const expectRetryAnswersWhatLostItsAnswer = async (
  { stop, first, retry }: Stopped,
  listed: () => Promise<{ id: number }[]>,
) => {
  stop.loseAnswer();
  expect((await first).status).toBeGreaterThanOrEqual(500);
  const [made] = await listed();
  expect(made).toBeDefined();

  const retried = await retry();
  expect(retried.status).toBe(201);
  expect(retried.body).toEqual(made);
  return made;
};

/**
 * Placing an order under an Idempotency-Key (core/orders/place-order.ts): the attempt writes its order id into the
 * key's record before its first write, and an attempt that takes over a lost one's record (after the 60-second lock)
 * finishes or finds that attempt's work instead of placing a second order. One test per step a crash can cut, and
 * the interleavings of a lost attempt that was only slow.
 */
describe("Idempotency-Key: a first attempt cut at each step places at most one order", () => {
  const { t, keys } = usePetstore();

  const order = (petId: number, key: string) =>
    t.client.post("/store/orders", {
      key: keys.customer,
      body: { petId, quantity: 1 },
      headers: { "idempotency-key": key },
    });
  const ordersOf = async (petId: number) =>
    (await t.client.get(`/store/orders?petId=${petId}`, { key: keys.staff })).body as { id: number }[];
  /** A pet with 5 in stock, and a first attempt under `key` stopped at the next call of `target[name]`. */
  const firstStoppedAt = async <T extends object>(target: T, name: keyof T & string, key: string) => {
    const pet = await stockedPet(t, 5);
    const stop = stopNext(target, name);
    const first = order(pet.id, key);
    await stop.reached;
    return { pet, stop, first, retry: () => order(pet.id, key) };
  };
  /** Exactly `placed` among the pet's orders, one unit taken from its 5, and the store's invariants intact. */
  const expectOnly = async (petId: number, placed: unknown) => {
    expect(await ordersOf(petId)).toEqual([placed]);
    expect(await stockOf(t, petId)).toBe(4);
    const { violations } = await readViolations((path) => t.client.get(path, { key: keys.staff }), {
      stockGiven: new Map([[petId, 5]]),
      statusFollowsStockOnly: true,
    });
    expect(describeViolations(violations)).toBe("");
  };

  it("died after writing the order, before recording the response: the retry answers that order", async () => {
    const { pet, stop, first, retry } = await firstStoppedAt(t.stores.idempotency, "complete", "cut-after-insert");
    const [placed] = await ordersOf(pet.id);
    expect(placed).toBeDefined();

    t.clock.advance(LOCK_MS);
    const retried = await retry();
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual(placed);
    expect(retried.headers.get("location")).toBe(`/store/orders/${placed!.id}`);
    stop.die();
    expect((await first).status).toBeGreaterThanOrEqual(500);

    expect((await retry()).headers.get("idempotent-replayed")).toBe("true");
    await expectOnly(pet.id, placed);
  });

  it("the order written but the store's answer lost (a 5xx, the key released at once): the retry answers that order", async () => {
    const { pet, ...stopped } = await firstStoppedAt(t.stores.orders, "insert", "lost-insert-answer");
    // Before, the retry placed a second order.
    await expectOnly(pet.id, await expectRetryAnswersWhatLostItsAnswer(stopped, () => ordersOf(pet.id)));
  });

  it("died after reserving, before recovery came by: the retry writes the order under the same id, the units taken once", async () => {
    const { pet, stop, first, retry } = await firstStoppedAt(t.stores.orders, "insert", "cut-after-reserve");
    expect(await stockOf(t, pet.id)).toBe(4);

    t.clock.advance(LOCK_MS);
    const retried = await retry();
    expect(retried.status).toBe(201);
    stop.die();
    expect((await first).status).toBeGreaterThanOrEqual(500);

    // Recovery finds the hold with its order: nothing to undo.
    await new RecoverInterruptedWrites({ ...t.stores, clock: t.clock }, GRACE_MS).execute();
    await expectOnly(pet.id, retried.body);
  });

  it("died after noting its id, before reserving: the retry burns that id and places the order under a new one", async () => {
    const { pet, stop, first, retry } = await firstStoppedAt(t.stores.pets, "reserve", "cut-after-note");

    t.clock.advance(LOCK_MS);
    const retried = await retry();
    expect(retried.status).toBe(201);
    stop.die();
    expect((await first).status).toBeGreaterThanOrEqual(500);
    await expectOnly(pet.id, retried.body);
  });

  it("only slow after reserving, racing the retry that took over: both answer the one order, the units taken once", async () => {
    const { pet, stop, first, retry } = await firstStoppedAt(t.stores.orders, "insert", "slow-after-reserve");

    t.clock.advance(LOCK_MS);
    const retried = await retry();
    expect(retried.status).toBe(201);
    stop.proceed(); // its insert finds the order the retry wrote under the same id
    const late = await first;
    expect(late.status).toBe(201);
    expect(late.body).toEqual(retried.body);
    await expectOnly(pet.id, retried.body);
  });

  it("only slow before noting its id: the retry that took over places the order, and the late attempt writes nothing", async () => {
    const { pet, stop, first, retry } = await firstStoppedAt(t.stores.idempotency, "note", "slow-before-note");

    t.clock.advance(LOCK_MS);
    const retried = await retry();
    expect(retried.status).toBe(201);
    stop.proceed(); // its note is refused: it lost the key's record
    expectError(await first, 503, "service_unavailable");
    expect((await retry()).body).toEqual(retried.body);
    await expectOnly(pet.id, retried.body);
  });
});

/**
 * Creating a category under an Idempotency-Key (core/categories/create-category.ts): the attempt writes the id it
 * allocated into the key's record before inserting, and an attempt that takes over a lost one's record answers the
 * category found under that id instead of `category_name_taken`. One test per step a crash can cut, and the
 * interleavings of a lost attempt that was only slow.
 */
describe("Idempotency-Key: a first attempt cut at each step creates at most one category", () => {
  const { t, keys } = usePetstore();

  const create = (key: string) =>
    t.client.post("/categories", { key: keys.staff, body: { name: "Ferrets" }, headers: { "idempotency-key": key } });
  const ferrets = async () =>
    ((await t.client.get("/categories?limit=100", { key: keys.staff })).body as { id: number; name: string }[]).filter(
      (c) => c.name === "Ferrets",
    );
  /** A first attempt under `key` stopped at the next call of `target[name]`. */
  const firstStoppedAt = <T extends object>(target: T, name: keyof T & string, key: string) =>
    firstSentStoppedAt(() => create(key), target, name);

  it("died after inserting, before recording the response: the retry answers that category", async () => {
    const stopped = await firstStoppedAt(t.stores.idempotency, "complete", "cut-after-insert");
    const made = await expectRetryAnswersWhatDiedUnrecorded(t, stopped, ferrets, "/categories");
    expect(await ferrets()).toEqual([made]);
  });

  it("inserted but the store's answer lost (a 5xx, the key released at once): the retry answers that category", async () => {
    // Before, the retry got 409 category_name_taken: its own category was in the way.
    const made = await expectRetryAnswersWhatLostItsAnswer(
      await firstStoppedAt(t.stores.categories, "add", "lost-add-answer"),
      ferrets,
    );
    expect(await ferrets()).toEqual([made]);
  });

  it("died after noting its id, before inserting: the retry creates the category, once", async () => {
    const { stop, first, retry } = await firstStoppedAt(t.stores.categories, "add", "cut-after-note");
    const { retried, late } = await retryTakingOver(t, stop.die, first, retry);
    expect(late.status).toBeGreaterThanOrEqual(500);
    expect(await ferrets()).toEqual([retried.body]);
  });

  it("only slow, inserting between the retry's look and its insert: the retry answers the slow one's category", async () => {
    const { stop, first, retry } = await firstStoppedAt(t.stores.categories, "add", "slow-between");

    t.clock.advance(LOCK_MS);
    const retryAtNote = stopNext(t.stores.idempotency, "note");
    const retrying = retry();
    await retryAtNote.reached; // the retry looked under the noted id and found nothing yet
    stop.proceed();
    const late = await first; // its category is in; its response cannot be recorded any more (the retry owns the key)
    expect(late.status).toBe(201);
    retryAtNote.proceed();
    const retried = await retrying;
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual(late.body);
    expect(await ferrets()).toEqual([late.body]);
  });

  it("only slow, inserting after the retry's insert: one category, the retry's; the slow one is refused", async () => {
    const { stop, first, retry } = await firstStoppedAt(t.stores.categories, "add", "slow-after");
    const { retried, late } = await retryTakingOver(t, stop.proceed, first, retry);
    expectError(late, 409, "category_name_taken");
    expect((await retry()).body).toEqual(retried.body);
    expect(await ferrets()).toEqual([retried.body]);
  });
});

/**
 * Creating a pet under an Idempotency-Key (core/pets/create-pet.ts). Pet names are not unique, so nothing but the key
 * stands between a retry and a second pet: the attempt notes its pet id, confirms it still owns the key before making
 * the pet visible, and an attempt that took the key over looks under the noted id first.
 */
describe("Idempotency-Key: a first attempt cut at each step creates at most one pet", () => {
  const { t, keys } = usePetstore();
  let categoryId: number;
  beforeEach(async () => {
    categoryId = (await t.client.post("/categories", { key: keys.staff, body: { name: "Mustelids" } })).body.id;
  });

  const create = (key: string) =>
    t.client.post("/pets", {
      key: keys.staff,
      body: { name: "Ferret", categoryId },
      headers: { "idempotency-key": key },
    });
  /** Every visible pet named Ferret. */
  const ferrets = async () =>
    ((await t.client.get("/pets?limit=100", { key: keys.staff })).body as { id: number; name: string }[]).filter(
      (p) => p.name === "Ferret",
    );
  const firstStoppedAt = <T extends object>(target: T, name: keyof T & string, key: string) =>
    firstSentStoppedAt(() => create(key), target, name);
  /** `made` is the only Ferret, and no pet is left half-created. */
  const expectOnly = async (made: unknown) => {
    expect(await ferrets()).toEqual([made]);
    expect(await t.stores.pets.provisional({ limit: 100 })).toEqual([]);
  };

  it("died after finishing, before recording the response: the retry answers that pet", async () => {
    const stopped = await firstStoppedAt(t.stores.idempotency, "complete", "cut-after-finish");
    await expectOnly(await expectRetryAnswersWhatDiedUnrecorded(t, stopped, ferrets, "/pets"));
  });

  it("died after inserting, before finishing, recovery not yet by: the retry finishes that pet", async () => {
    const { stop, first, retry } = await firstStoppedAt(t.stores.pets, "finishCreating", "cut-after-insert");
    expect(await ferrets()).toEqual([]);
    const { retried, late } = await retryTakingOver(t, stop.die, first, retry);
    expect(late.status).toBeGreaterThanOrEqual(500);
    await expectOnly(retried.body);
    // Recovery finds nothing left to finish or undo.
    expect(await new RecoverInterruptedWrites({ ...t.stores, clock: t.clock }, GRACE_MS).execute()).toMatchObject({
      finishedPets: 0,
    });
    await expectOnly(retried.body);
  });

  it("died after inserting, recovery finished the pet first: the retry answers it", async () => {
    const { stop, first, retry } = await firstStoppedAt(t.stores.pets, "finishCreating", "cut-then-recovered");
    stop.die();
    expect((await first).status).toBeGreaterThanOrEqual(500);
    t.clock.advance(LOCK_MS);
    expect(await new RecoverInterruptedWrites({ ...t.stores, clock: t.clock }, GRACE_MS).execute()).toMatchObject({
      finishedPets: 1,
    });
    const [made] = await ferrets();

    const retried = await retry();
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual(made);
    await expectOnly(made);
  });

  it("failed after inserting (a 5xx, the key released at once): the retry finishes that pet instead of creating another", async () => {
    const { stop, first, retry } = await firstStoppedAt(t.stores.pets, "finishCreating", "failed-after-insert");
    stop.die(); // the store call failed; the process lives on, answers 500 and releases the key
    expect((await first).status).toBeGreaterThanOrEqual(500);

    const retried = await retry(); // no lock to wait out
    expect(retried.status).toBe(201);
    await expectOnly(retried.body);
    // Recovery after the grace period finds nothing left: before, it finished the first pet, a second Ferret.
    t.clock.advance(LOCK_MS);
    expect(await new RecoverInterruptedWrites({ ...t.stores, clock: t.clock }, GRACE_MS).execute()).toMatchObject({
      finishedPets: 0,
    });
    await expectOnly(retried.body);
  });

  it("finished but the store's answer lost (a 5xx, the key released at once): the retry answers that pet", async () => {
    await expectOnly(
      await expectRetryAnswersWhatLostItsAnswer(
        await firstStoppedAt(t.stores.pets, "finishCreating", "lost-finish-answer"),
        ferrets,
      ),
    );
  });

  it("died after noting its id, before inserting: the retry creates the pet, once", async () => {
    const { stop, first, retry } = await firstStoppedAt(t.stores.pets, "insert", "cut-after-note");
    const { retried, late } = await retryTakingOver(t, stop.die, first, retry);
    expect(late.status).toBeGreaterThanOrEqual(500);
    await expectOnly(retried.body);
  });

  it("only slow before inserting, racing the retry that took over: one pet, the retry's; the slow one undoes its own (503)", async () => {
    const { stop, first, retry } = await firstStoppedAt(t.stores.pets, "insert", "slow-before-insert");
    // The retry looks under the noted id, finds nothing and creates its own pet.
    const { retried, late } = await retryTakingOver(t, stop.proceed, first, retry);
    expectError(late, 503, "service_unavailable");
    await expectOnly(retried.body);
    expect((await retry()).body).toEqual(retried.body);
  });

  it("only slow after inserting, before confirming its key: the retry finishes the slow one's pet, and both answer it", async () => {
    const atInsert = stopNext(t.stores.pets, "insert");
    const first = create("slow-before-confirm");
    await atInsert.reached;
    const atConfirm = stopNext(t.stores.idempotency, "note"); // the first attempt's id is noted: the next note confirms
    atInsert.proceed();
    await atConfirm.reached;

    const { retried, late } = await retryTakingOver(t, atConfirm.proceed, first, () => create("slow-before-confirm"));
    expect(late.status).toBe(201);
    expect(late.body).toEqual(retried.body);
    await expectOnly(retried.body);
  });

  it("only slow after confirming, before finishing: the retry finishes the slow one's pet, and both answer it", async () => {
    const { stop, first, retry } = await firstStoppedAt(t.stores.pets, "finishCreating", "slow-before-finish");
    const { retried, late } = await retryTakingOver(t, stop.proceed, first, retry);
    expect(late.status).toBe(201);
    expect(late.body).toEqual(retried.body);
    await expectOnly(retried.body);
  });
});
