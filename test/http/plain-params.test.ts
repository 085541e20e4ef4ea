import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { plainParserOf, type RawParams } from "../../adapters/http/plain-params.ts";
import { routeTable } from "../../adapters/http/route-table.ts";
import {
  CategoryIdParam,
  InventoryListQuery,
  KeyIdParam,
  OrderIdParam,
  OrderListQuery,
  PageQuery,
  PetIdParam,
  PetListQuery,
  WebhookIdParam,
} from "../../adapters/http/schemas.ts";

const schemas: Record<string, z.ZodObject> = {
  PetListQuery,
  PageQuery,
  OrderListQuery,
  InventoryListQuery,
  PetIdParam,
  CategoryIdParam,
  OrderIdParam,
  KeyIdParam,
  WebhookIdParam,
};

const parserOf = (schema: z.ZodObject) => {
  const parser = plainParserOf(schema);
  if (!parser) throw new Error("no plain parser");
  return parser;
};

/** Pieces that make texts near every edge the schemas draw: signs, zeros, lengths, separators, enum words. */
const piece = fc.constantFrom(
  "0",
  "1",
  "7",
  "9",
  "00",
  "100",
  "101",
  "999",
  "1000",
  "9007199254740991",
  "9007199254740993",
  "99999999999999999999",
  "-",
  ",",
  " ",
  "+",
  "e",
  ".",
  "x",
  "available",
  "pending",
  "sold",
  "true",
  "false",
  "True",
  "",
);
const text = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""));
const value = fc.oneof({ weight: 5, arbitrary: text }, { weight: 1, arbitrary: fc.array(text, { minLength: 2, maxLength: 3 }) });

/** Texts each name usually carries, all valid. */
// Ids of up to 15 digits: far more than a store will ever assign, and all safe integers.
const id = fc.integer({ min: 1, max: 999_999_999_999_999 }).map(String);
const usual: Record<string, fc.Arbitrary<string>> = {
  limit: fc.integer({ min: 1, max: 100 }).map(String),
  after: id,
  categoryId: id,
  petId: id,
  orderId: id,
  keyId: id,
  webhookId: id,
  ids: fc.array(id, { minLength: 1, maxLength: 100 }).map((ids) => ids.join(",")),
  status: fc.array(fc.constantFrom("available", "pending", "sold"), { minLength: 1, maxLength: 3 }).map((s) => s.join(",")),
  complete: fc.constantFrom("true", "false"),
};

describe.each(Object.entries(schemas))("the plain parser of %s", (_name, schema) => {
  const parser = parserOf(schema);
  const names = Object.keys(schema.shape);

  it("answers only what zod answers, and leaves zod every text it is not sure of", () => {
    const raw = fc.dictionary(fc.constantFrom(...names, "other", "constructor"), value, { maxKeys: 4 });
    fc.assert(
      fc.property(raw, (query: RawParams) => {
        const plain = parser(query);
        if (plain === undefined) return;
        const zod = schema.safeParse(query);
        expect(zod.success).toBe(true);
        expect(plain).toStrictEqual(zod.data);
      }),
      { numRuns: 3_000 },
    );
  });

  it("reads the usual, valid texts itself", () => {
    const raw = fc.record(Object.fromEntries(names.map((name) => [name, usual[name]!])), { requiredKeys: names.filter((n) => !schema.shape[n]!.safeParse(undefined).success) });
    fc.assert(
      fc.property(raw, (query) => {
        const plain = parser(query as RawParams);
        expect(plain).toBeDefined();
        expect(plain).toStrictEqual(schema.parse(query));
      }),
      { numRuns: 500 },
    );
  });
});

describe("plain parsers", () => {
  it("leave a prototype's name to zod, which refuses it", () => {
    const query: RawParams = {};
    Object.defineProperty(query, "__proto__", { value: "1", enumerable: true });
    expect(parserOf(PetListQuery)(query)).toBeUndefined();
    expect(PetListQuery.safeParse(query).success).toBe(false);
  });

  it("leave a list longer than its schema allows to zod, which refuses it", () => {
    const ids = Array.from({ length: 101 }, (_, i) => i + 1).join(",");
    expect(parserOf(PetListQuery)({ ids })).toBeUndefined();
    expect(PetListQuery.safeParse({ ids }).success).toBe(false);
    expect(parserOf(PetListQuery)({ ids: ids.slice(0, ids.lastIndexOf(",")) })).toBeDefined();
  });

  it("leave a repeated name to zod", () => {
    expect(parserOf(PetListQuery)({ ids: ["1", "2"] })).toBeUndefined();
  });

  it("exist for every query and path schema of the route table", () => {
    const missing = routeTable.flatMap((route) =>
      [route.input?.query, route.input?.path].flatMap((schema) => (schema && !plainParserOf(schema) ? [`${route.method} ${route.path}`] : [])),
    );
    expect(missing).toEqual([]);
  });
});
