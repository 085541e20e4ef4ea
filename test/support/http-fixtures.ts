import { afterEach, beforeEach } from "vitest";
import type { ContainerOverrides } from "../../bootstrap/container.ts";
import { startTestPetstore, type TestPetstore, type TestResponse } from "./test-petstore.ts";
import { newCategory, newOrder, newPet, type PetBody } from "./bodies.ts";

/** Setup through the public API; each helper fails loudly when the service refuses. */

const ok = <T>(res: TestResponse<T>, status: number, what: string): T => {
  if (res.status !== status)
    throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

export interface Keys {
  staff: string;
  customer: string;
  /** A second customer. */
  other: string;
}

/** What a suite starts each test with: options for startTestPetstore, whether to make keys, and data to seed. */
export interface PetstoreSetup {
  env?: Record<string, string>;
  overrides?: ContainerOverrides;
  /** Make the staff, customer and other keys (keys 2, 3, 4) before `given`; default true. */
  keys?: boolean;
  /** Seeds each fresh petstore, through the API, before the test and its own beforeEach hooks run. */
  given?: (t: TestPetstore, keys: Keys) => Promise<unknown>;
}

/**
 * For a suite: a fresh petstore (memory stores, or MongoDB in the http-on-mongo project) per test, closed after it.
 * `t` and `keys` stand for the current test's petstore and keys, so a suite can name them once at the top.
 */
export const usePetstore = (setup: PetstoreSetup = {}): { t: TestPetstore; keys: Keys } => {
  let current: { t: TestPetstore; keys: Keys } | undefined;
  const now = () => {
    if (!current) throw new Error("usePetstore: the petstore exists only inside a test and its hooks");
    return current;
  };
  beforeEach(async () => {
    const t = await startTestPetstore({
      ...(setup.env && { env: setup.env }),
      ...(setup.overrides && { overrides: setup.overrides }),
    });
    current = { t, keys: noKeys };
    try {
      if (setup.keys !== false) current.keys = await makeKeys(t);
      await setup.given?.(t, current.keys);
    } catch (error) {
      await t.close();
      current = undefined;
      throw error;
    }
  });
  afterEach(async () => {
    const closing = current;
    current = undefined;
    await closing?.t.close();
  });
  return { t: forward(() => now().t), keys: forward(() => now().keys) };
};

/** An object whose every property is read from `target()` at the time it is read. */
const forward = <T extends object>(target: () => T): T =>
  new Proxy({} as T, { get: (_, property) => Reflect.get(target(), property) });

/** Keys of a suite that asked for none: using one is a mistake in the test. */
const noKeys = forward<Keys>(() => {
  throw new Error("usePetstore({ keys: false }) made no keys");
});

const makeKeys = async (t: TestPetstore): Promise<Keys> => ({
  staff: await t.newKey("staff"),
  customer: await t.newKey("customer"),
  other: await t.newKey("customer"),
});

export const createCategory = async (t: TestPetstore, name = "Dogs", description?: string) =>
  ok(
    await t.client.post("/categories", {
      key: t.adminKey,
      body: newCategory({ name, ...(description && { description }) }),
    }),
    201,
    "create category",
  );

export const createPet = async (t: TestPetstore, pet: { name?: string; categoryId: number; status?: string }) =>
  ok(await t.client.post("/pets", { key: t.adminKey, body: newPet(pet) }), 201, "create pet");

export const setStock = async (t: TestPetstore, petId: number, quantity: number) =>
  ok(await t.client.put(`/store/inventory/${petId}`, { key: t.adminKey, body: { quantity } }), 200, "set stock");

/** A category and a pet with `stock` units: the usual starting point of an order test. */
export const stockedPet = async (t: TestPetstore, stock: number, name = "Rex") => {
  const category =
    (await t.client.get("/categories?limit=1", { key: t.adminKey })).body[0] ?? (await createCategory(t));
  const pet = await createPet(t, { name, categoryId: category.id });
  if (stock > 0) await setStock(t, pet.id, stock);
  return pet as PetBody;
};

export const placeOrder = async (
  t: TestPetstore,
  key: string,
  order: { petId: number; quantity: number; shipDate?: string },
) => ok(await t.client.post("/store/orders", { key, body: newOrder(order) }), 201, "place order");

export const petStatus = async (t: TestPetstore, petId: number): Promise<string> =>
  (await t.client.get(`/store/inventory/${petId}`, { key: t.adminKey })).body.status;

export const stockOf = async (t: TestPetstore, petId: number): Promise<number> =>
  (await t.client.get(`/store/inventory/${petId}`, { key: t.adminKey })).body.quantity;
