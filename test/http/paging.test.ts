import { describe, expect, it } from "vitest";
import { expectValidationFailed } from "../support/http-assertions.ts";
import { createCategory, createPet, placeOrder, setStock, usePetstore } from "../support/http-fixtures.ts";
import type { TestResponse } from "../support/test-petstore.ts";

/** The target of `Link: <…>; rel="next"`, or undefined when there is none. */
const nextLink = (res: TestResponse): string | undefined => {
  const link = res.headers.get("link");
  if (link === null) return undefined;
  const match = /^<([^>]+)>;\s*rel="next"$/.exec(link);
  expect(match, `Link header ${link}`).not.toBeNull();
  return match![1];
};

describe("paging", () => {
  const { t } = usePetstore({ keys: false });

  const get = (path: string) => t.client.get(path, { key: t.adminKey });
  const idsOf = (res: TestResponse, idField: string) => res.body.map((item: Record<string, number>) => item[idField]);

  /** Follows rel="next" from `first`; answers the ids of every page. */
  const walk = async (first: string, idField: string): Promise<number[][]> => {
    const pages: number[][] = [];
    let url: string | undefined = first;
    while (url !== undefined) {
      const res = await get(url);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages.push(idsOf(res, idField));
      url = nextLink(res);
      expect(pages.length).toBeLessThan(50);
    }
    return pages;
  };

  /** Makes `count` items of every listable kind: categories, pets (with inventory), orders, API keys. */
  const fill = async (count: number) => {
    for (let i = 1; i <= count; i++) await createCategory(t, `Category ${i}`);
    for (let i = 1; i <= count; i++)
      await createPet(t, { name: `Pet ${i}`, categoryId: 1, ...(i % 2 === 0 ? { status: "pending" } : {}) });
    await setStock(t, 1, 1000);
    for (let i = 1; i <= count; i++) await placeOrder(t, t.adminKey, { petId: 1, quantity: 1 });
    for (let i = 2; i <= count; i++) await t.newKey("customer"); // the bootstrap admin key is key 1
  };

  const lists = [
    ["/pets", "id"],
    ["/categories", "id"],
    ["/store/orders", "id"],
    ["/store/inventory", "petId"],
    ["/admin/api-keys", "id"],
  ] as const;

  describe.each(lists)("%s", (path, idField) => {
    it("answers 20 items by default, with a next link, and the rest on the next page", async () => {
      await fill(25);
      const first = await get(path);
      expect(idsOf(first, idField)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      const next = nextLink(first);
      expect(next).toBe(`${path}?after=20`);
      const second = await get(next!);
      expect(idsOf(second, idField)).toEqual([21, 22, 23, 24, 25]);
      expect(second.headers.get("link")).toBeNull();
    });

    it("walks every item exactly once, in ascending order, following rel=next", async () => {
      await fill(7);
      const pages = await walk(`${path}?limit=3`, idField);
      expect(pages).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    });

    it("sends no next link when the last page is exactly full", async () => {
      await fill(4);
      const first = await get(`${path}?limit=2`);
      expect(nextLink(first)).toBe(`${path}?limit=2&after=2`);
      const second = await get(nextLink(first)!);
      expect(idsOf(second, idField)).toEqual([3, 4]);
      expect(second.headers.get("link")).toBeNull();
    });

    it("answers ids greater than `after`, and nothing past the end", async () => {
      await fill(4);
      expect(idsOf(await get(`${path}?after=2`), idField)).toEqual([3, 4]);
      expect(idsOf(await get(`${path}?after=0`), idField)).toEqual([1, 2, 3, 4]);
      expect(idsOf(await get(`${path}?after=-5`), idField)).toEqual([1, 2, 3, 4]);
      expect(idsOf(await get(`${path}?after=4`), idField)).toEqual([]);
      expect(idsOf(await get(`${path}?after=9223372036854775807`), idField)).toEqual([]);
    });

    it("accepts limit 1 and 100", async () => {
      await fill(2);
      expect(idsOf(await get(`${path}?limit=1`), idField)).toEqual([1]);
      expect(idsOf(await get(`${path}?limit=100`), idField)).toEqual([1, 2]);
    });

    it.each([
      "limit=0",
      "limit=101",
      "limit=abc",
      "limit=-1",
      "limit=1.5",
      "limit=",
      "after=abc",
      "after=1.5",
      "after=9223372036854775808",
      "page=2",
    ])("answers 400 validation_failed for ?%s", async (query) => {
      const param = query.split("=")[0]!;
      expectValidationFailed(await get(`${path}?${query}`), param === "page" ? "query" : `query.${param}`);
    });
  });

  it("keeps the filters in the next link", async () => {
    await fill(9); // odd pets are available, even ones pending
    const first = await get("/pets?status=available&limit=2");
    expect(idsOf(first, "id")).toEqual([1, 3]);
    expect(nextLink(first)).toBe("/pets?status=available&limit=2&after=3");
    expect(await walk("/pets?status=available&limit=2", "id")).toEqual([[1, 3], [5, 7], [9]]);
    expect(await walk("/store/inventory?status=pending&limit=3", "petId")).toEqual([[2, 4, 6], [8]]);
    expect(await walk("/store/orders?petId=1&complete=false&limit=4", "id")).toEqual([[1, 2, 3, 4], [5, 6, 7, 8], [9]]);
  });

  it("walks each item once even when items are added between pages", async () => {
    await fill(3);
    const first = await get("/categories?limit=2");
    await createCategory(t, "Late");
    const second = await get(nextLink(first)!);
    expect([...idsOf(first, "id"), ...idsOf(second, "id")]).toEqual([1, 2, 3, 4]);
  });
});
