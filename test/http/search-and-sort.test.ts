import { describe, expect, it } from "vitest";
import { expectError, expectValidationFailed } from "../support/http-assertions.ts";
import { createCategory, createPet, placeOrder, setStock, usePetstore } from "../support/http-fixtures.ts";
import type { TestResponse } from "../support/test-petstore.ts";

/** The target of `Link: <…>; rel="next"`, or undefined when there is none. */
const nextLink = (res: TestResponse): string | undefined =>
  /^<([^>]+)>;\s*rel="next"$/.exec(res.headers.get("link") ?? "")?.[1];

describe("search and sort", () => {
  const { t, keys } = usePetstore();
  const get = (path: string, key = t.adminKey) => t.client.get(path, { key });
  const idsOf = (res: TestResponse) => res.body.map((item: { id: number }) => item.id);

  /** Follows rel="next" from `first`; answers every page's ids. */
  const walk = async (first: string, key?: string): Promise<number[][]> => {
    const pages: number[][] = [];
    let url: string | undefined = first;
    while (url !== undefined) {
      const res = await get(url, key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages.push(idsOf(res));
      url = nextLink(res);
      expect(pages.length).toBeLessThan(20);
    }
    return pages;
  };

  const names = ["Rex", "bella", "REX", "Rexa", "Max", "rex", "Ébène", "Bo"];
  const namedPets = async () => {
    const category = await createCategory(t);
    for (const name of names) await createPet(t, { name, categoryId: category.id });
  };

  it("GET /pets?name= finds pets by the start of their name, ignoring case", async () => {
    await namedPets();

    expect(idsOf(await get("/pets?name=rex"))).toEqual([1, 3, 4, 6]);
    expect(idsOf(await get("/pets?name=REXA"))).toEqual([4]);
    expect(idsOf(await get(`/pets?name=${encodeURIComponent("éb")}`))).toEqual([7]);
    expect(idsOf(await get("/pets?name=%20rex%20"))).toEqual([1, 3, 4, 6]);
    expect(idsOf(await get("/pets?name=nobody"))).toEqual([]);
  });

  it("GET /pets?name= ignores case by Unicode case folding: the final sigma, ß and ligatures", async () => {
    const category = await createCategory(t);
    for (const name of ["ΟΔΟΣΑ", "οδός", "Straße", "ﬁne"]) await createPet(t, { name, categoryId: category.id });
    const search = async (name: string) => idsOf(await get(`/pets?name=${encodeURIComponent(name)}`));

    expect(await search("ΟΔΟΣ")).toEqual([1]);
    expect(await search("οδος")).toEqual([1]);
    expect(await search("ΟΔΌΣ")).toEqual([2]);
    expect(await search("STRASS")).toEqual([3]);
    expect(await search("FI")).toEqual([4]);
  });

  it("sort=name orders by name ignoring case, then id, and Link pages through it without gaps or repeats", async () => {
    await namedPets();
    const byName = [2, 8, 5, 1, 3, 6, 4, 7];

    expect(idsOf(await get("/pets?sort=name&limit=100"))).toEqual(byName);
    const pages = await walk("/pets?sort=name&limit=3");
    expect(pages).toEqual([byName.slice(0, 3), byName.slice(3, 6), byName.slice(6)]);
    const first = await get("/pets?sort=name&limit=3&name=r");
    expect(nextLink(first)).toBe("/pets?sort=name&limit=3&name=r&after=6&afterName=rex");
    expect(await walk("/pets?sort=name&limit=2&name=r")).toEqual([
      [1, 3],
      [6, 4],
    ]);
  });

  it("GET /store/inventory searches, sorts and pages by the pet's name as GET /pets does", async () => {
    await namedPets();
    const petIds = (res: TestResponse) => res.body.map((item: { petId: number }) => item.petId);

    const first = await get("/store/inventory?sort=name&limit=3&name=r");
    expect(first.status).toBe(200);
    expect(petIds(first)).toEqual([1, 3, 6]);
    expect(nextLink(first)).toBe("/store/inventory?sort=name&limit=3&name=r&after=6&afterName=rex");
    expect(petIds(await get(nextLink(first)!))).toEqual([4]);
    expect(petIds(await get("/store/inventory?sort=-id&limit=3"))).toEqual([8, 7, 6]);
    expect(petIds(await get(`/store/inventory?name=${encodeURIComponent("ÉB")}`))).toEqual([7]);
    expectValidationFailed(await get("/store/inventory?afterName=rex&after=1"), "query.afterName");
    expectValidationFailed(await get("/store/inventory?ids=1"), "query");
  });

  it("sort=-id lists the newest first; Link continues below the last id", async () => {
    await namedPets();

    expect(await walk("/pets?sort=-id&limit=3")).toEqual([
      [8, 7, 6],
      [5, 4, 3],
      [2, 1],
    ]);
    expect(await walk("/pets?sort=-id&limit=3&name=rex")).toEqual([[6, 4, 3], [1]]);
  });

  it("refuses an unknown sort and a name cursor that does not fit, naming the parameter", async () => {
    expectValidationFailed(await get("/pets?sort=price"), "query.sort");
    expectValidationFailed(await get("/pets?sort=id&afterName=rex"), "query.afterName");
    expectValidationFailed(await get("/pets?sort=name&after=3"), "query.afterName");
    expectValidationFailed(await get("/pets?sort=name&afterName=rex"), "query.afterName");
    expectValidationFailed(await get("/pets?name="), "query.name");
    expectValidationFailed(await get(`/pets?name=${"x".repeat(101)}`), "query.name");
    expectValidationFailed(await get("/store/orders?sort=name"), "query.sort");
    expectValidationFailed(await get("/store/orders?state=cancelled"), "query.state");
    expectValidationFailed(await get("/store/orders?state=open&complete=true"), "query.state");
  });

  describe("orders", () => {
    /** Orders 1-6: pet 1 by the customer (1, 3, 5 completed: 3), pet 2 by staff, alternating. */
    const orders = async () => {
      const category = await createCategory(t);
      for (const name of ["A", "B"]) await createPet(t, { name, categoryId: category.id });
      await setStock(t, 1, 100);
      await setStock(t, 2, 100);
      for (let i = 1; i <= 6; i++)
        await placeOrder(t, i % 2 ? keys.customer : keys.staff, { petId: i % 2 ? 1 : 2, quantity: 1 });
      expect((await t.client.patch("/store/orders/3", { key: keys.staff, body: { complete: true } })).status).toBe(200);
    };
    const keyIdOf = async (key: string) => (await get("/me", key)).body.id as number;

    it("filter by state, pet and, for staff, the key that placed them; newest first with Link", async () => {
      await orders();
      const customerId = await keyIdOf(keys.customer);

      expect(idsOf(await get("/store/orders?state=open"))).toEqual([1, 2, 4, 5, 6]);
      expect(idsOf(await get("/store/orders?state=complete"))).toEqual([3]);
      expect(idsOf(await get("/store/orders?petId=2"))).toEqual([2, 4, 6]);
      expect(idsOf(await get(`/store/orders?placedBy=${customerId}`, keys.staff))).toEqual([1, 3, 5]);
      expect(idsOf(await get(`/store/orders?placedBy=${customerId}&state=open&petId=1`, keys.staff))).toEqual([1, 5]);
      expect(await walk("/store/orders?sort=-id&limit=4")).toEqual([
        [6, 5, 4, 3],
        [2, 1],
      ]);
      expect(await walk("/store/orders?sort=-id&state=open&limit=2")).toEqual([[6, 5], [4, 2], [1]]);
    });

    it("a customer lists its own orders; naming another key's is 403", async () => {
      await orders();
      const customerId = await keyIdOf(keys.customer);

      expect(idsOf(await get("/store/orders?sort=-id", keys.customer))).toEqual([5, 3, 1]);
      expect(idsOf(await get(`/store/orders?placedBy=${customerId}`, keys.customer))).toEqual([1, 3, 5]);
      expectError(await get(`/store/orders?placedBy=${await keyIdOf(keys.staff)}`, keys.customer), 403, "forbidden");
    });
  });

  describe("GET /me", () => {
    it("answers the calling key: id, label, role, plan, limits and today's usage, never a secret", async () => {
      const first = await get("/me", keys.customer);
      await get("/pets", keys.customer);
      const me = await get("/me", keys.customer);

      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({
        role: "customer",
        plan: "business",
        limits: { perMinute: 1000, perDay: 100000 },
      });
      expect(typeof me.body.id).toBe("number");
      expect(typeof me.body.label).toBe("string");
      expect(me.body.usage.day).toBe(first.body.usage.day + 2);
      expect(me.body.usage.minute).toBeGreaterThanOrEqual(1);
      expect(Date.parse(me.body.usage.dayResetsAt)).toBeGreaterThanOrEqual(Date.parse(me.body.usage.minuteResetsAt));
      expect(JSON.stringify(me.body)).not.toContain(keys.customer);
      expect(Object.keys(me.body).sort()).toEqual(["id", "label", "limits", "plan", "role", "usage"]);
      expect((await get("/me", t.adminKey)).body.role).toBe("admin");
    });

    it("needs a valid key", async () => {
      expectError(await t.client.get("/me"), 401, "unauthorized");
      expectError(await t.client.get("/me", { key: "nope" }), 401, "unauthorized");
    });
  });
});
