import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { plainParserOf, type RawParams } from "../../adapters/http/plain-input.ts";
import { routeTable } from "../../adapters/http/route-table.ts";
import {
  CategoryIdParam,
  InventoryListQuery,
  KeyIdParam,
  OrderBody,
  OrderIdParam,
  OrderListQuery,
  PageQuery,
  PetBody,
  PetIdParam,
  PetListQuery,
  WebhookIdParam,
} from "../../adapters/http/schemas.ts";

const parameters: Record<string, z.ZodObject> = {
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
const bodies: Record<string, z.ZodObject> = { PetBody, OrderBody };

const parserOf = (schema: z.ZodType) => {
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
  "open",
  "complete",
  "-id",
  "name",
  "",
);
const text = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""));
const value = fc.oneof(
  { weight: 5, arbitrary: text },
  { weight: 1, arbitrary: fc.array(text, { minLength: 2, maxLength: 3 }) },
);

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
  status: fc
    .array(fc.constantFrom("available", "pending", "sold"), { minLength: 1, maxLength: 3 })
    .map((s) => s.join(",")),
  complete: fc.constantFrom("true", "false"),
  placedBy: id,
  state: fc.constantFrom("open", "complete"),
  // Valid for pets and orders alike.
  sort: fc.constantFrom("id", "-id"),
  name: fc.constantFrom("Rex", " rex ", "a", "Bella the 2nd"),
  afterName: fc.constantFrom("rex", "bella the 2nd", " x"),
};

/** JSON values near every edge the body schemas draw: integers at their bounds, fractions, text to trim, other kinds. */
const jsonValue = fc.oneof(
  fc.constantFrom(
    0,
    1,
    -1,
    1000,
    1001,
    1.5,
    2 ** 53,
    2 ** 63,
    2 ** 64,
    -(2 ** 63),
    -(2 ** 64),
    Number.MAX_VALUE,
    "1",
    "available",
    "sold",
    "x",
    "",
    " ",
    true,
    null,
  ),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 120 }),
  fc
    .array(fc.constantFrom(" ", "a", "Z", "~", "\t", "\n", "é", "\ud800", "🐕", "\u00a0"), { maxLength: 110 })
    .map((chars) => chars.join("")),
  fc.constant([]),
  fc.constant({}),
);

/** Usual, valid bodies. */
const asciiName = fc
  .array(
    fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
    { minLength: 1, maxLength: 100 },
  )
  .map((chars) => chars.join(""))
  .filter((name) => name.trim().length > 0);
const usualBodies: Record<string, Record<string, fc.Arbitrary<unknown>>> = {
  PetBody: {
    name: asciiName,
    categoryId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    status: fc.constantFrom("available", "pending", "sold"),
  },
  OrderBody: {
    petId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    quantity: fc.integer({ min: 1, max: 1000 }),
  },
};

const requiredOf = (schema: z.ZodObject) =>
  Object.keys(schema.shape).filter((n) => !schema.shape[n]!.safeParse(undefined).success);

/** Whatever the plain parser answers, zod answers the same; what it leaves, zod reads. */
const agreesWithZod = (schema: z.ZodObject, raw: fc.Arbitrary<unknown>, numRuns: number) => {
  const parser = parserOf(schema);
  fc.assert(
    fc.property(raw, (input) => {
      const plain = parser(input);
      if (plain === undefined) return;
      const zod = schema.safeParse(input);
      expect(zod.success).toBe(true);
      expect(plain).toStrictEqual(zod.data);
    }),
    { numRuns },
  );
};

/** The usual input never goes to zod. */
const readsItself = (schema: z.ZodObject, usualInput: fc.Arbitrary<unknown>) => {
  const parser = parserOf(schema);
  fc.assert(
    fc.property(usualInput, (input) => {
      const plain = parser(input);
      expect(plain).toBeDefined();
      expect(plain).toStrictEqual(schema.parse(input));
    }),
    { numRuns: 500 },
  );
};

describe.each(Object.entries(parameters))("the plain parser of %s", (_name, schema) => {
  const names = Object.keys(schema.shape);

  it("answers only what zod answers, and leaves zod every text it is not sure of", () => {
    agreesWithZod(
      schema,
      fc.dictionary(fc.constantFrom(...names, "other", "constructor"), value, { maxKeys: 4 }),
      3_000,
    );
  });

  it("reads the usual, valid texts itself", () => {
    readsItself(
      schema,
      fc.record(Object.fromEntries(names.map((name) => [name, usual[name]!])), { requiredKeys: requiredOf(schema) }),
    );
  });
});

describe.each(Object.entries(bodies))("the plain parser of %s", (name, schema) => {
  const names = Object.keys(schema.shape);

  it("answers only what zod answers, and leaves zod every value it is not sure of", () => {
    const anyBody = fc.oneof(
      fc.dictionary(fc.constantFrom(...names, "other", "__proto__"), jsonValue, { maxKeys: 4 }),
      jsonValue,
    );
    agreesWithZod(schema, anyBody, 5_000);
  });

  it("reads the usual, valid bodies itself", () => {
    readsItself(schema, fc.record(usualBodies[name]!, { requiredKeys: requiredOf(schema) }));
  });

  it("leaves a body zod must explain to zod", () => {
    const parser = parserOf(schema);
    expect(parser(null)).toBeUndefined();
    expect(parser([])).toBeUndefined();
    expect(parser({ ...fc.sample(fc.record(usualBodies[name]!), 1)[0], extra: 1 })).toBeUndefined();
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

  it("read a repeated list parameter as its comma-separated form, as zod does", () => {
    const repeated = { ids: ["1", "2,3"], status: ["sold", "pending"] };
    expect(parserOf(PetListQuery)(repeated)).toStrictEqual({ limit: 20, ids: [1, 2, 3], status: ["sold", "pending"] });
    expect(PetListQuery.parse(repeated)).toStrictEqual(parserOf(PetListQuery)(repeated));
    expect(parserOf(PetListQuery)({ ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) })).toBeUndefined();
  });

  it("leave a repeated single-valued name to zod", () => {
    expect(parserOf(PetListQuery)({ categoryId: ["1", "2"] })).toBeUndefined();
  });

  it("exist for every query and path schema of the route table", () => {
    const missing = routeTable.flatMap((route) =>
      [route.input?.query, route.input?.path].flatMap((schema) =>
        schema && !plainParserOf(schema) ? [`${route.method} ${route.path}`] : [],
      ),
    );
    expect(missing).toEqual([]);
  });
});
