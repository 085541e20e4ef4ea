import { describe, expect, it } from "vitest";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { expectError, expectValidationFailed } from "../support/http-assertions.ts";
import { stockedPet, stockOf, usePetstore } from "../support/http-fixtures.ts";
import { startTestPetstore } from "../support/test-petstore.ts";

describe("Idempotency-Key on creates", () => {
  const { t, keys } = usePetstore();

  const withKey = (key: string) => ({ "idempotency-key": key });

  it("replays a placed order on retry without ordering again", async () => {
    const pet = await stockedPet(t, 5);
    const order = { petId: pet.id, quantity: 2 };
    const first = await t.client.post("/store/orders", {
      key: keys.customer,
      body: order,
      headers: withKey("order-1"),
    });
    const retry = await t.client.post("/store/orders", {
      key: keys.customer,
      body: order,
      headers: withKey("order-1"),
    });

    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get("location")).toBe(first.headers.get("location"));
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await stockOf(t, pet.id)).toBe(3);
    expect((await t.client.get("/store/orders", { key: keys.customer })).body).toHaveLength(1);
  });

  it("replays creates of pets and categories too", async () => {
    const category = { name: "Dogs" };
    const a = await t.client.post("/categories", { key: keys.staff, body: category, headers: withKey("c") });
    const b = await t.client.post("/categories", { key: keys.staff, body: category, headers: withKey("c") });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body).toEqual(a.body);

    const pet = { name: "Rex", categoryId: a.body.id };
    const p1 = await t.client.post("/pets", { key: keys.staff, body: pet, headers: withKey("p") });
    const p2 = await t.client.post("/pets", { key: keys.staff, body: pet, headers: withKey("p") });
    expect(p2.body).toEqual(p1.body);
    expect((await t.client.get("/pets", { key: keys.staff })).body).toHaveLength(1);
  });

  it("replays a refusal as well: the retry learns the same outcome", async () => {
    const order = { petId: 999, quantity: 1 };
    const first = await t.client.post("/store/orders", { key: keys.customer, body: order, headers: withKey("x") });
    const retry = await t.client.post("/store/orders", { key: keys.customer, body: order, headers: withKey("x") });
    expectError(first, 422, "unknown_pet");
    expectError(retry, 422, "unknown_pet");
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
  });

  it("refuses the same key with another body: 422 idempotency_key_reused", async () => {
    const pet = await stockedPet(t, 5);
    await t.client.post("/store/orders", {
      key: keys.customer,
      body: { petId: pet.id, quantity: 1 },
      headers: withKey("k"),
    });
    const misuse = await t.client.post("/store/orders", {
      key: keys.customer,
      body: { petId: pet.id, quantity: 2 },
      headers: withKey("k"),
    });
    expectError(misuse, 422, "idempotency_key_reused");
    expect(await stockOf(t, pet.id)).toBe(4);
  });

  it("scopes keys per API key: another caller's identical key acts on its own", async () => {
    const pet = await stockedPet(t, 5);
    const order = { petId: pet.id, quantity: 1 };
    await t.client.post("/store/orders", { key: keys.customer, body: order, headers: withKey("same") });
    const other = await t.client.post("/store/orders", { key: keys.other, body: order, headers: withKey("same") });
    expect(other.status).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(await stockOf(t, pet.id)).toBe(3);
  });

  it("forgets a key after 24 hours", async () => {
    const body = { name: "Birds" };
    await t.client.post("/categories", { key: keys.staff, body, headers: withKey("day") });
    t.clock.advance(24 * 3_600_000);
    const again = await t.client.post("/categories", { key: keys.staff, body, headers: withKey("day") });
    expectError(again, 409, "category_name_taken"); // acted again, instead of replaying the 201
  });

  it("refuses keys longer than 255 characters, and empty ones", async () => {
    const long = await t.client.post("/categories", {
      key: keys.staff,
      body: { name: "Cats" },
      headers: withKey("k".repeat(256)),
    });
    expectValidationFailed(long, "header.Idempotency-Key");
    const ok = await t.client.post("/categories", {
      key: keys.staff,
      body: { name: "Cats" },
      headers: withKey("k".repeat(255)),
    });
    expect(ok.status).toBe(201);
  });

  it("answers 409 idempotency_request_in_progress while the first request is still running", async () => {
    const stores = createMemoryStores();
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const add = stores.categories.add.bind(stores.categories);
    stores.categories.add = async (category) => {
      if (category.name === "Slow") await held;
      return add(category);
    };
    const slow = await startTestPetstore({ stores });
    const staff = await slow.newKey("staff");
    const request = () =>
      slow.client.post("/categories", { key: staff, body: { name: "Slow" }, headers: withKey("s") });

    const first = request();
    await new Promise((r) => setTimeout(r, 20));
    expectError(await request(), 409, "idempotency_request_in_progress");
    finish();
    expect((await first).status).toBe(201);
    expect((await request()).headers.get("idempotent-replayed")).toBe("true");
    await slow.close();
  });

  it("does not keep server errors: the retry acts afresh", async () => {
    const stores = createMemoryStores();
    let failures = 1;
    const add = stores.categories.add.bind(stores.categories);
    stores.categories.add = async (category) => {
      if (failures-- > 0) throw new Error("disk on fire");
      return add(category);
    };
    const flaky = await startTestPetstore({ stores });
    const staff = await flaky.newKey("staff");
    const request = () =>
      flaky.client.post("/categories", { key: staff, body: { name: "Fish" }, headers: withKey("f") });
    expectError(await request(), 500, "internal_error");
    const retry = await request();
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    await flaky.close();
  });
});
