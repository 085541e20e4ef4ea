/**
 * Property-based tests of the HTTP layer against hostile URLs and headers (issue 6): odd query strings
 * (repeated, empty, unknown, encoded separators, huge numbers, percent-encoding junk), odd path ids
 * (`/pets/%20`, `/pets/0x10`, `/pets/１`, `..%2F`, very long digit strings), odd headers (Content-Type
 * variants, repeated or very long or non-ASCII X-API-Key) and, last, any mix of them. Every request keeps the
 * invariants of test/support/hostile-input.ts and gets what a small reference model of PRODUCT.md §1 predicts
 * (test/support/hostile-requests.ts).
 * Request bodies: hostile-input.property.test.ts.
 */
import fc from "fast-check";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
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
  type HostileRequest,
} from "../support/hostile-input.ts";
import {
  decoded,
  idRoutes,
  isInt64,
  listParams,
  listRoutes,
  oddId,
  params,
  queryString,
  type Param,
} from "../support/hostile-requests.ts";

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
