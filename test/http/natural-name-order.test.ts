import { describe, expect, it } from "vitest";
import { createCategory, createPet, usePetstore } from "../support/http-fixtures.ts";
import type { TestResponse } from "../support/test-petstore.ts";

const nextLink = (res: TestResponse): string | undefined =>
  /^<([^>]+)>;\s*rel="next"$/.exec(res.headers.get("link") ?? "")?.[1];

describe("GET /pets?sort=name: natural name order", () => {
  const { t } = usePetstore({ keys: false });
  const get = (path: string) => t.client.get(path, { key: t.adminKey });
  const namesOf = (res: TestResponse) => res.body.map((pet: { name: string }) => pet.name);

  it("lists Hamster 2 before Hamster 10, and Link pages through it exactly", async () => {
    const category = await createCategory(t, "Rodents");
    // Created out of order, so neither id order nor plain text order is the natural one.
    for (const n of [10, 2, 1, 12, 9, 11, 3, 20, 100])
      await createPet(t, { name: `Hamster ${n}`, categoryId: category.id });
    await createPet(t, { name: "hamster 02", categoryId: category.id });
    const natural = ["Hamster 1", "Hamster 2", "hamster 02", "Hamster 3", "Hamster 9", "Hamster 10", "Hamster 11"];
    const tail = ["Hamster 12", "Hamster 20", "Hamster 100"];

    expect(namesOf(await get("/pets?sort=name&limit=100"))).toEqual([...natural, ...tail]);

    const first = await get("/pets?sort=name&limit=4");
    expect(namesOf(first)).toEqual(natural.slice(0, 4));
    // The cursor is the last name's plain caseless key, as before.
    expect(nextLink(first)).toBe(`/pets?sort=name&limit=4&after=${first.body[3].id}&afterName=hamster+3`);
    const pages: string[][] = [namesOf(first)];
    for (let url = nextLink(first); url !== undefined;) {
      const res = await get(url);
      expect(res.status).toBe(200);
      pages.push(namesOf(res));
      url = nextLink(res);
    }
    expect(pages).toEqual([natural.slice(0, 4), [...natural.slice(4), tail[0]], tail.slice(1)]);
  });
});
