import { describe, expect, it } from "vitest";
import { orderBody } from "../support/bodies.ts";
import { expectValidationFailed } from "../support/http-assertions.ts";
import { placeOrder, stockedPet, usePetstore } from "../support/http-fixtures.ts";
import type { TestPetstore } from "../support/test-petstore.ts";

/** A key with a label of its own, through the admin API: its id and secret. */
const labelledKey = async (t: TestPetstore, label: string, role: "customer" | "staff") => {
  const res = await t.client.post("/admin/api-keys", { key: t.adminKey, body: { label, role, plan: "business" } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id as number, key: res.body.key as string };
};

const nextLink = (link: string | null): string | undefined => /^<([^>]+)>;\s*rel="next"$/.exec(link ?? "")?.[1];

describe("orders with expand=placement: when each was placed and the key that placed it", () => {
  const { t } = usePetstore({ keys: false });
  let desk: { id: number; key: string };
  let alice: { id: number; key: string };
  let bob: { id: number; key: string };
  /** When orders 1 to 3 were placed, a minute apart. */
  const placedAt: string[] = [];

  const given = async () => {
    desk = await labelledKey(t, "Front desk", "staff");
    alice = await labelledKey(t, "Alice's shop", "customer");
    bob = await labelledKey(t, "Bob's farm", "customer");
    await stockedPet(t, 10, "Rex");
    placedAt.length = 0;
    for (const key of [alice, bob, alice]) {
      t.clock.advance(60_000);
      placedAt.push(t.clock.now().toISOString());
      await placeOrder(t, key.key, { petId: 1, quantity: 1 });
    }
  };
  const placement = (at: string, key: { id: number }, label: string) => ({ at, by: { id: key.id, label } });

  it("adds the placement to each order of a page, and only when asked", async () => {
    await given();

    const plain = await t.client.get("/store/orders", { key: desk.key });
    expect(plain.body).toEqual([1, 2, 3].map((id) => orderBody({ id, petId: 1, quantity: 1, complete: false })));

    const expanded = await t.client.get("/store/orders?expand=placement", { key: desk.key });
    expect(expanded.status).toBe(200);
    expect(expanded.body).toEqual([
      {
        ...orderBody({ id: 1, petId: 1, quantity: 1, complete: false }),
        placement: placement(placedAt[0]!, alice, "Alice's shop"),
      },
      {
        ...orderBody({ id: 2, petId: 1, quantity: 1, complete: false }),
        placement: placement(placedAt[1]!, bob, "Bob's farm"),
      },
      {
        ...orderBody({ id: 3, petId: 1, quantity: 1, complete: false }),
        placement: placement(placedAt[2]!, alice, "Alice's shop"),
      },
    ]);
  });

  it("shows a customer its own orders only, with its own label", async () => {
    await given();

    const res = await t.client.get("/store/orders?expand=placement&sort=-id", { key: alice.key });
    expect(res.body.map((o: { id: number; placement: unknown }) => [o.id, o.placement])).toEqual([
      [3, placement(placedAt[2]!, alice, "Alice's shop")],
      [1, placement(placedAt[0]!, alice, "Alice's shop")],
    ]);
  });

  it("keeps the expansion on every page the Link header leads to", async () => {
    await given();

    const first = await t.client.get("/store/orders?expand=placement&limit=2", { key: desk.key });
    expect(first.body.map((o: { placement: { by: { label: string } } }) => o.placement.by.label)).toEqual([
      "Alice's shop",
      "Bob's farm",
    ]);
    const next = nextLink(first.headers.get("link"));
    expect(next).toBe("/store/orders?expand=placement&limit=2&after=2");
    const second = await t.client.get(next!, { key: desk.key });
    expect(second.body).toEqual([
      {
        ...orderBody({ id: 3, petId: 1, quantity: 1, complete: false }),
        placement: placement(placedAt[2]!, alice, "Alice's shop"),
      },
    ]);
  });

  it("answers one order with its placement and no ETag; without expand, the seed's shape and its ETag", async () => {
    await given();

    const expanded = await t.client.get("/store/orders/2?expand=placement", { key: bob.key });
    expect(expanded.status).toBe(200);
    expect(expanded.body).toEqual({
      ...orderBody({ id: 2, petId: 1, quantity: 1, complete: false }),
      placement: placement(placedAt[1]!, bob, "Bob's farm"),
    });
    expect(expanded.headers.get("etag")).toBeNull();

    const plain = await t.client.get("/store/orders/2", { key: bob.key });
    expect(plain.body).toEqual(orderBody({ id: 2, petId: 1, quantity: 1, complete: false }));
    expect(plain.headers.get("etag")).toMatch(/^"o2r\d+"$/);
    // A customer still gets 404 for another key's order, expanded or not.
    expect((await t.client.get("/store/orders/2?expand=placement", { key: alice.key })).status).toBe(404);
  });

  it("shows the key's label as it is now, and a revoked key's label too", async () => {
    await given();
    const relabelled = await t.client.patch(`/admin/api-keys/${bob.id}`, {
      key: t.adminKey,
      body: { label: "Bob's farm and garden" },
    });
    expect(relabelled.status).toBe(200);
    expect((await t.client.delete(`/admin/api-keys/${alice.id}`, { key: t.adminKey })).status).toBe(204);

    const res = await t.client.get("/store/orders?expand=placement", { key: desk.key });
    expect(res.body.map((o: { placement: { by: { label: string } } }) => o.placement.by.label)).toEqual([
      "Alice's shop",
      "Bob's farm and garden",
      "Alice's shop",
    ]);
  });

  it.each([
    "expand=customer",
    "expand=",
    "expand=placement,pet",
    "expand=Placement",
    "expand=placement&expand=placement",
  ])("answers 400 validation_failed for ?%s, on the list and on one order", async (query) => {
    await given();
    expectValidationFailed(await t.client.get(`/store/orders?${query}`, { key: desk.key }), "query.expand");
    expectValidationFailed(await t.client.get(`/store/orders/1?${query}`, { key: desk.key }), "query.expand");
  });
});
