/**
 * For test/http/hostile-input-requests.property.test.ts: a reference model of the query parameters and path ids,
 * and the generators of hostile query strings and ids.
 */
import fc from "fast-check";
import type { z } from "zod";
import { InventoryListQuery, OrderListQuery, PageQuery, PetListQuery } from "../../adapters/http/schemas.ts";
import { unicodeName } from "./hostile-input.ts";

// --- A reference model of the parameters (adapters/http/schemas.ts, as PRODUCT.md states them) --------------

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
export const isInt64 = (s: string) => /^-?\d{1,19}$/.test(s) && BigInt(s) >= INT64_MIN && BigInt(s) <= INT64_MAX;
const statuses = ["available", "pending", "sold"];
const commaList = (item: (s: string) => boolean, max: number) => (s: string) => {
  const items = s.split(",");
  return items.length >= 1 && items.length <= max && items.every(item);
};

export const params = {
  limit: (s: string) => /^\d{1,3}$/.test(s) && Number(s) >= 1 && Number(s) <= 100,
  after: isInt64,
  categoryId: isInt64,
  petId: isInt64,
  status: commaList((s) => statuses.includes(s), 3),
  ids: commaList(isInt64, 100),
  complete: (s: string) => s === "true" || s === "false",
} satisfies Record<string, (value: string) => boolean>;
export type Param = keyof typeof params;
export const listParams: Param[] = ["status", "ids"];

/**
 * `params` are the parameters this model judges; `elsewhere` are the ones the route also knows whose rules depend on
 * each other or on the key (`sort` with `afterName`, `state` against `complete`, `placedBy`):
 * test/http/search-and-sort.test.ts and test/http/orders.test.ts judge those, so a query naming one is not drawn here.
 */
export const listRoutes: { path: string; admin: boolean; params: Param[]; elsewhere: string[]; schema: z.ZodObject }[] =
  [
    {
      path: "/pets",
      admin: false,
      params: ["limit", "after", "status", "categoryId", "ids"],
      elsewhere: ["sort", "afterName", "name"],
      schema: PetListQuery,
    },
    { path: "/categories", admin: false, params: ["limit", "after"], elsewhere: [], schema: PageQuery },
    {
      path: "/store/orders",
      admin: false,
      params: ["limit", "after", "complete", "petId"],
      // `expand`: test/http/order-placement.test.ts.
      elsewhere: ["state", "placedBy", "sort", "expand"],
      schema: OrderListQuery,
    },
    {
      path: "/store/inventory",
      admin: false,
      params: ["limit", "after", "status", "categoryId"],
      elsewhere: ["sort", "afterName", "name"],
      schema: InventoryListQuery,
    },
    { path: "/admin/api-keys", admin: true, params: ["limit", "after"], elsewhere: [], schema: PageQuery },
  ];

// --- Generators ------------------------------------------------------------------------------------------------

const paramName = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...Object.keys(params)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "",
        "LIMIT",
        "Limit",
        "limit[]",
        "limit[0]",
        "status.0",
        " limit",
        "limit ",
        "%6Cimit",
        "lim%00it",
        "li+mit",
        "__proto__",
        "constructor",
        "prototype",
        "toString",
        "hasOwnProperty",
        "valueOf",
        "$where",
        "utm_source",
        "_",
        "page",
        "offset",
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );

const hundredIds = Array.from({ length: 100 }, (_, i) => i + 1).join(",");

const paramValue = (): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        "",
        "1",
        "20",
        "100",
        "101",
        "0",
        "-1",
        "1e2",
        "0x10",
        "-0",
        "00001",
        "0001",
        "+1",
        " 1",
        "1 ",
        "1.0",
        "9".repeat(19),
        "9".repeat(40),
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "Infinity",
        "NaN",
        "true",
        "false",
        "TRUE",
        "1",
        ",,,",
        ",",
        "available,,sold",
        "available,sold",
        "available,pending,sold",
        "available,pending,sold,available",
        "sold",
        "Available",
        "available ",
        "1,2,3",
        "1,,2",
        "1,2,",
        hundredIds,
        `${hundredIds},101`,
        "%",
        "%zz",
        "%E0%A4%A",
        "%00",
        "%2C",
        "1%2C2",
        "available%2Csold",
        "%26limit%3D5",
        "1%26after%3D2",
        "１",
        "١",
        "¹",
        "1;2",
        "[1]",
        '{"$gt":""}',
        "$ne",
        "null",
        "undefined",
      ),
    },
    { weight: 2, arbitrary: fc.stringMatching(/^-?\d{1,25}$/) },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
    { weight: 1, arbitrary: unicodeName(3) },
  );

/** A parameter with a value it accepts: most lists should also see queries that pass. */
const plausiblePair = (): fc.Arbitrary<{ name: string; value: string }> =>
  fc.oneof(
    fc.integer({ min: 1, max: 100 }).map((n) => ({ name: "limit", value: String(n) })),
    fc.integer({ min: -5, max: 50 }).map((n) => ({ name: "after", value: String(n) })),
    fc.shuffledSubarray(statuses, { minLength: 1 }).map((s) => ({ name: "status", value: s.join(",") })),
    fc
      .array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 5 })
      .map((ids) => ({ name: "ids", value: ids.join(",") })),
    fc.nat({ max: 5 }).map((n) => ({ name: "categoryId", value: String(n) })),
    fc.nat({ max: 5 }).map((n) => ({ name: "petId", value: String(n) })),
    fc.boolean().map((b) => ({ name: "complete", value: String(b) })),
  );

/** `name=value` pairs joined into a query string, each part raw or percent-encoded, the separators odd at times. */
export const queryString = (): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.array(
        fc
          .tuple(
            fc.oneof(plausiblePair(), fc.record({ name: paramName(), value: paramValue() })),
            fc.record({ encode: fc.boolean(), equals: fc.nat({ max: 19 }) }),
          )
          .map(([pair, how]) => ({ ...pair, ...how })),
        { maxLength: 4 },
      ),
      fc.constantFrom("&", "&", "&", "&&", ";", "&amp;"),
      fc.constantFrom("?", "?", "?", "??", "?&"),
      fc.constantFrom("", "?", "?&", "?="),
    )
    .map(([pairs, separator, start, empty]) => {
      if (pairs.length === 0) return empty;
      // encodeURIComponent refuses lone surrogates; the URL parser turns them into U+FFFD anyway.
      const part = (s: string, encode: boolean) => (encode ? encodeURIComponent(s.toWellFormed()) : s);
      const text = pairs.map((p) =>
        p.equals === 0 ? part(p.name, p.encode) : `${part(p.name, p.encode)}=${part(p.value, p.encode)}`,
      );
      return start + text.join(separator);
    });

/** Path ids that are not quite ids, and ids that are. */
export const oddId = (): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        "%20",
        "0x10",
        "1e3",
        "-0",
        "00001",
        "00002",
        "１",
        "%EF%BC%91",
        "..%2F",
        "..%2f..%2fadmin",
        "%2e%2e",
        "%2E",
        "1%2F2",
        "1.0",
        "+1",
        "%2B1",
        "%2D1",
        "%31",
        "%2531",
        " 1",
        "1 ",
        "1%00",
        "%00",
        "1;x",
        "1,2",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "Infinity",
        "NaN",
        "null",
        "undefined",
        "true",
        "[1]",
        "%5B1%5D",
        "1%",
        "%",
        "%zz",
        "%E0%A4%A",
        "%C0%AF",
        "%FF",
        "٣",
        "¹",
        "1_000",
        "0b1",
        "0o7",
        "1n",
        "0",
        "1",
        "2",
        "3",
        "4",
        "-1",
        "$where",
        "__proto__",
        "constructor",
        '{"$gt":0}',
        "%7B%22%24gt%22%3A0%7D",
      ),
    },
    { weight: 2, arbitrary: fc.stringMatching(/^-?\d{1,40}$/) },
    { weight: 1, arbitrary: fc.integer({ min: 20, max: 3_000 }).map((n) => "9".repeat(n)) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 6 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 6 }) },
  );

export interface IdRoute {
  method: string;
  template: string;
  name: string;
  admin: boolean;
  body?: unknown;
}

export const idRoutes: IdRoute[] = [
  { method: "GET", template: "/pets/{id}", name: "petId", admin: false },
  { method: "PUT", template: "/pets/{id}", name: "petId", admin: false, body: { name: "Rex", categoryId: 1 } },
  { method: "DELETE", template: "/pets/{id}", name: "petId", admin: false },
  { method: "GET", template: "/categories/{id}", name: "categoryId", admin: false },
  { method: "PUT", template: "/categories/{id}", name: "categoryId", admin: false, body: { name: "Dogs" } },
  { method: "DELETE", template: "/categories/{id}", name: "categoryId", admin: false },
  { method: "GET", template: "/store/orders/{id}", name: "orderId", admin: false },
  {
    method: "PATCH",
    template: "/store/orders/{id}",
    name: "orderId",
    admin: false,
    body: { shipDate: "2027-01-01T00:00:00Z" },
  },
  { method: "DELETE", template: "/store/orders/{id}", name: "orderId", admin: false },
  { method: "GET", template: "/store/inventory/{id}", name: "petId", admin: false },
  { method: "PUT", template: "/store/inventory/{id}", name: "petId", admin: false, body: { quantity: 3 } },
  { method: "GET", template: "/admin/api-keys/{id}", name: "keyId", admin: true },
  { method: "PATCH", template: "/admin/api-keys/{id}", name: "keyId", admin: true, body: { label: "renamed" } },
  { method: "DELETE", template: "/admin/api-keys/{id}", name: "keyId", admin: true },
  { method: "POST", template: "/admin/api-keys/{id}/unban", name: "keyId", admin: true },
];

export const decoded = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
};
