/**
 * Property-based tests of the HTTP layer against hostile URLs and headers (issue 6): odd query strings
 * (repeated, empty, unknown, encoded separators, huge numbers, percent-encoding junk), odd path ids
 * (`/pets/%20`, `/pets/0x10`, `/pets/１`, `..%2F`, very long digit strings), odd headers (Content-Type
 * variants, repeated or very long or non-ASCII X-API-Key) and, last, any mix of them. Every request keeps the
 * invariants of test/support/hostile-input.ts and gets what a small reference model of PRODUCT.md §1 predicts.
 * Request bodies: hostile-input.property.test.ts.
 */
import fc from "fast-check";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { z } from "zod";
import { InventoryListQuery, OrderListQuery, PageQuery, PetListQuery } from "../../adapters/http/schemas.ts";
import {
  BASE,
  expectOneOf,
  expectPrototypesUntouched,
  expectValidationFailedAt,
  garbageKey,
  hostileValueText,
  HostilePetstore,
  keyChoice,
  LIMIT,
  prototypeState,
  refusalFor,
  RUNS,
  unicodeName,
  type HostileRequest,
} from "../support/hostile-input.ts";

// --- A reference model of the parameters (adapters/http/schemas.ts, as PRODUCT.md states them) --------------

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const isInt64 = (s: string) => /^-?\d{1,19}$/.test(s) && BigInt(s) >= INT64_MIN && BigInt(s) <= INT64_MAX;
const statuses = ["available", "pending", "sold"];
const commaList = (item: (s: string) => boolean, max: number) => (s: string) => {
  const items = s.split(",");
  return items.length >= 1 && items.length <= max && items.every(item);
};

const params = {
  limit: (s: string) => /^\d{1,3}$/.test(s) && Number(s) >= 1 && Number(s) <= 100,
  after: isInt64,
  categoryId: isInt64,
  petId: isInt64,
  status: commaList((s) => statuses.includes(s), 3),
  ids: commaList(isInt64, 100),
  complete: (s: string) => s === "true" || s === "false",
} satisfies Record<string, (value: string) => boolean>;
type Param = keyof typeof params;
const listParams: Param[] = ["status", "ids"];

/**
 * `params` are the parameters this model judges; `elsewhere` are the ones the route also knows whose rules depend on
 * each other or on the key (`sort` with `afterName`, `state` against `complete`, `placedBy`):
 * test/http/search-and-sort.test.ts and test/http/orders.test.ts judge those, so a query naming one is not drawn here.
 */
const listRoutes: { path: string; admin: boolean; params: Param[]; elsewhere: string[]; schema: z.ZodObject }[] = [
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
    params: ["limit", "after", "status"],
    elsewhere: [],
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
const queryString = (): fc.Arbitrary<string> =>
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
const oddId = (): fc.Arbitrary<string> =>
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

interface IdRoute {
  method: string;
  template: string;
  name: string;
  admin: boolean;
  body?: unknown;
}

const idRoutes: IdRoute[] = [
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

const decoded = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
};

// --- The properties --------------------------------------------------------------------------------------------

describe("hostile URLs and headers (property-based)", () => {
  let store: HostilePetstore;
  const prototypesAtStart = prototypeState();

  // A fresh petstore per property: one property's accepted requests (a deleted pet, a cancelled order) must not
  // change what the next one expects.
  beforeEach(async () => {
    store = await HostilePetstore.start();
  });
  afterEach(async () => {
    await store?.close();
  });
  afterAll(() => {
    expectPrototypesUntouched(prototypesAtStart);
  });

  it("the model knows every parameter of every list: a parameter added to a route is judged here or named as judged elsewhere", () => {
    for (const route of listRoutes)
      expect([...route.params, ...route.elsewhere].sort(), route.path).toEqual(Object.keys(route.schema.shape).sort());
  });

  it("odd query strings on every list are 200 exactly when each parameter is known, given once and well-formed, else 400 naming it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...listRoutes), queryString(), keyChoice(), async (route, query, key) => {
        const path = `${route.path}${query}`;
        const url = new URL(path, BASE);
        // The parameters as the service sees them: decoded by the URL parser, repeated names grouped.
        const seen = new Map<string, string[]>();
        for (const [name, value] of url.searchParams) seen.set(name, [...(seen.get(name) ?? []), value]);
        fc.pre(!route.elsewhere.some((name) => seen.has(name)));
        const unknown = [...seen.keys()].filter((name) => !(route.params as string[]).includes(name));
        // A list parameter may be repeated: its values read as if joined with commas. Any other may not.
        const isList = (name: string) => (listParams as string[]).includes(name);
        const repeated = [...seen]
          .filter(([name, values]) => !unknown.includes(name) && !isList(name) && values.length > 1)
          .map(([name]) => name);
        const malformed = [...seen]
          .filter(
            ([name, values]) =>
              !unknown.includes(name) &&
              (values.length === 1 || isList(name)) &&
              !params[name as Param](values.join(",")),
          )
          .map(([name]) => name);

        await store.exchange({ method: "GET", path, key }, (res, headers) => {
          const refusal = refusalFor(store.roleOf(headers), route.admin);
          if (refusal) return expectOneOf(res, [refusal], `GET ${path} without the right key`);
          if (!unknown.length && !repeated.length && !malformed.length) {
            expect(res.status, `GET ${path}: ${JSON.stringify(res.body)}`).toBe(200);
            return expect(Array.isArray(res.body)).toBe(true);
          }
          expectValidationFailedAt(
            res,
            [...repeated, ...malformed].map((name) => `query.${name}`),
            `GET ${path}`,
          );
          const details = (res.body as { details: { path: string; message: string }[] }).details;
          for (const name of unknown) {
            expect(
              details.some((d) => d.path.startsWith("query") && d.message.includes(name)),
              `GET ${path}: details ${JSON.stringify(details)} should name the unknown parameter ${JSON.stringify(name)}`,
            ).toBe(true);
          }
        });
      }),
      { numRuns: RUNS },
    );
  });

  it("odd path ids are 400 naming the id unless they decode to an int64, which is 404 or the operation's answer", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...idRoutes), oddId(), async (route, id) => {
        const path = route.template.replace("{id}", id);
        const url = new URL(path, BASE);
        // The segment where the id belongs, after the URL parser's normalisation (`%2e%2e` is `..`, say).
        const [prefix, suffix] = route.template.split("{id}") as [string, string];
        const segment =
          url.pathname.startsWith(prefix) && url.pathname.endsWith(suffix)
            ? url.pathname.slice(prefix.length, url.pathname.length - suffix.length)
            : undefined;
        const routed = segment !== undefined && segment.length > 0 && !segment.includes("/") && url.search === "";
        const value = routed ? decoded(segment) : undefined;
        // A path id has one spelling: a leading zero (`02`, `-0`, `00`) is refused, not an alias.
        const valid = value !== undefined && /^(?:0|-?[1-9]\d*)$/.test(value) && isInt64(value);
        // Never revoke or change the keys sending the requests.
        fc.pre(!(route.admin && route.method !== "GET" && valid && store.protectedKeyIds.has(Number(value))));

        const body = route.body === undefined ? undefined : JSON.stringify(route.body);
        const headers: [string, string][] = body === undefined ? [] : [["content-type", "application/json"]];
        await store.exchange(
          { method: route.method, path, key: "admin", headers, ...(body === undefined ? {} : { body }) },
          (res) => {
            const why = `${route.method} ${path} (${route.template})`;
            if (!routed) return;
            if (value === undefined)
              return expectOneOf(
                res,
                [{ status: 400, code: "validation_failed" }],
                `${why}: malformed percent-encoding`,
              );
            if (!valid) return expectValidationFailedAt(res, [`path.${route.name}`], why);
            expect([200, 204, 404, 409, 422], `${why}: ${JSON.stringify(res.body)}`).toContain(res.status);
          },
        );
      }),
      { numRuns: RUNS },
    );
  });

  it("odd headers: Content-Type variants, repeated, long or non-ASCII X-API-Key, odd Content-Length and Idempotency-Key", async () => {
    const contentType = fc.oneof(
      fc.constantFrom(
        "application/json",
        "Application/JSON",
        "APPLICATION/JSON; CHARSET=UTF-8",
        "application/json;charset=utf-8",
        "application/json ; charset=latin1",
        "application/json; foo=bar; baz",
        "application/json;",
        "application/json,text/plain",
        "text/plain, application/json",
        "application/jsonx",
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/problem+json",
        "application/vnd.api+json",
        "text/json",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "*/*",
        "application/*",
        "",
        "json",
        "application/ json",
        "application /json",
        "application/json\u00e9",
        "\u00e9application/json",
      ),
      // application/json in random case, with random parameters.
      fc
        .tuple(
          fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }),
          fc.option(fc.string({ unit: "grapheme-ascii", maxLength: 12 })),
        )
        .map(([upper, parameter]) => {
          const type = [..."application/json"].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join("");
          return parameter === null ? type : `${type};${parameter}`;
        }),
    );
    const apiKeys = (admin: string, staff: string) =>
      fc.oneof(
        { weight: 8, arbitrary: fc.constant([admin]) },
        { weight: 1, arbitrary: fc.constant([staff]) },
        { weight: 1, arbitrary: fc.constant([]) },
        {
          weight: 4,
          arbitrary: fc.oneof(
            fc.constantFrom(
              [""],
              [`  ${admin}\t`],
              [admin, admin],
              [admin, staff],
              [admin.toUpperCase()],
              [`${admin}é`],
              [`${admin}\u00a0`],
              [admin.slice(0, -1)],
              [`${admin},`],
              [`"${admin}"`],
              [`Bearer ${admin}`],
            ),
            garbageKey().map((g) => [g]),
            fc.tuple(garbageKey(), fc.boolean()).map(([g, first]) => (first ? [g, admin] : [admin, g])),
          ),
        },
      );
    const operations = [
      { method: "POST", path: "/categories", success: 201, idempotent: true },
      { method: "PUT", path: "/store/inventory/1", success: 200, idempotent: false },
      { method: "GET", path: "/pets", success: 200, idempotent: false },
    ];
    let created = 0;

    await fc.assert(
      fc.asyncProperty(
        fc.record({
          op: fc.constantFrom(...operations),
          keys: apiKeys(store.admin.secret, store.staff.secret),
          contentType: fc.option(contentType, { freq: 6 }),
          contentTypeTwice: fc.nat({ max: 9 }).map((n) => n === 0),
          contentLength: fc.option(
            fc.constantFrom("0", "abc", "-1", "65536", "65537", "1e6", "10, 10", "99999999999999999999", " 12 "),
            { freq: 2 },
          ),
          idempotencyKey: fc.option(
            fc.oneof(fc.constantFrom("", "x".repeat(255), "x".repeat(256), "é", "\t"), fc.uuid()),
            { freq: 2 },
          ),
        }),
        async ({ op, keys, contentType, contentTypeTwice, contentLength, idempotencyKey }) => {
          const headers: [string, string][] = (keys as readonly string[]).map((k) => ["X-API-Key", k]);
          const hasBody = op.method !== "GET";
          if (hasBody && contentType !== null) {
            headers.push(["content-type", contentType]);
            if (contentTypeTwice) headers.push(["Content-Type", contentType]);
          }
          if (contentLength !== null) headers.push(["content-length", contentLength]);
          // An odd Idempotency-Key, made unique when it is valid (a reused one would replay or be refused as reused).
          const idem =
            idempotencyKey === null || idempotencyKey.trim().length === 0 || idempotencyKey.length > 255
              ? idempotencyKey
              : `${idempotencyKey.slice(0, 240)}-${created}`;
          if (idem !== null && op.idempotent) headers.push(["idempotency-key", idem]);
          created++;
          const body =
            op.method === "POST"
              ? JSON.stringify({ name: `Category ${created}` })
              : op.method === "PUT"
                ? '{"quantity":3}'
                : undefined;

          await store.exchange(
            { method: op.method, path: op.path, key: "none", headers, ...(body === undefined ? {} : { body }) },
            (res, seen) => {
              const why = `${op.method} ${op.path} with ${JSON.stringify(headers).slice(0, 300)}`;
              const refusal = refusalFor(store.roleOf(seen), false);
              if (refusal) return expectOneOf(res, [refusal], why);
              if (!hasBody) return expectOneOf(res, [{ status: op.success }], why);
              const key = seen.get("idempotency-key");
              if (op.idempotent && key !== null && (key.length === 0 || key.length > 255)) {
                return expectValidationFailedAt(res, ["header.Idempotency-Key"], why);
              }
              const charset = /;\s*charset\s*=\s*"?([^";,\s]*)/i
                .exec(seen.get("content-type") ?? "")?.[1]
                ?.toLowerCase();
              const json =
                seen.get("content-type")?.split(";")[0]?.trim().toLowerCase() === "application/json" &&
                (charset === undefined || charset === "utf-8" || charset === "utf8");
              const tooLarge = Number(seen.get("content-length") ?? 0) > LIMIT;
              const expected = [
                ...(json ? [] : [{ status: 415, code: "unsupported_media_type" }]),
                ...(tooLarge ? [{ status: 413, code: "payload_too_large" }] : []),
              ];
              expectOneOf(res, expected.length ? expected : [{ status: op.success }], why);
            },
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("any mix of method, path, query, headers and body keeps the invariants", async () => {
    const prefixes = [
      "/pets",
      "/categories",
      "/store/orders",
      "/store/inventory",
      "/admin/api-keys",
      "/store",
      "/admin",
      "/docs",
      "/openapi.json",
      "/healthz",
      "/readyz",
      "/",
      "/nope",
      "/PETS",
    ];
    const request = fc
      .record({
        method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"),
        prefix: fc.constantFrom(...prefixes),
        segments: fc.array(oddId(), { maxLength: 3 }),
        query: fc.option(queryString(), { freq: 3 }),
        key: keyChoice(),
        contentType: fc.constantFrom(
          "application/json",
          "text/plain",
          "application/json; charset=utf-8",
          "APPLICATION/JSON",
          undefined,
        ),
        body: fc.option(fc.oneof(hostileValueText(), fc.string({ maxLength: 40 })), { freq: 3 }),
      })
      .map(({ method, prefix, segments, query, key, contentType, body }): HostileRequest => {
        const path = [prefix.replace(/\/$/, ""), ...segments].join("/") + (query ?? "");
        const withBody = body !== null && method !== "GET";
        return {
          method,
          path: path.startsWith("/") ? path : `/${path}`,
          key,
          headers: contentType === undefined ? [] : [["content-type", contentType]],
          ...(withBody ? { body } : {}),
        };
      });

    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        // "/" + "\\ " reads as "//" + host " ": no URL, so no client could send it through fetch.
        fc.pre(URL.canParse(req.path, BASE));
        // Never revoke or change the keys sending the requests.
        const [, keyId] = /^\/admin\/api-keys\/([^/]+)/.exec(new URL(req.path, BASE).pathname) ?? [];
        const id = keyId === undefined ? undefined : decoded(keyId);
        fc.pre(!(req.method !== "GET" && id !== undefined && isInt64(id) && store.protectedKeyIds.has(Number(id))));
        await store.exchange(req);
      }),
      { numRuns: RUNS },
    );
  });
});
