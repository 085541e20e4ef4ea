import { afterEach, beforeEach } from "vitest";
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

/** For a suite: a fresh petstore (memory stores, or MongoDB in the http-on-mongo project) and its keys per test. */
export const petstoreWithKeysPerTest = (): (() => { t: TestPetstore; keys: Keys }) => {
  let current: { t: TestPetstore; keys: Keys } | undefined;
  beforeEach(async () => {
    const t = await startTestPetstore();
    current = { t, keys: await makeKeys(t) };
  });
  afterEach(() => current?.t.close());
  return () => current!;
};

export const makeKeys = async (t: TestPetstore): Promise<Keys> => ({
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
