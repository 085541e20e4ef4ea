/**
 * Shared machinery of the hostile-input property tests (test/http/hostile-input*.property.test.ts):
 * one petstore per property, raw requests (bytes, repeated headers) straight to app.fetch, and the
 * invariants every answer must keep, whatever came in:
 *
 *  1. never a 5xx;
 *  2. from 400 on, exactly the Error body `{ code, message, status }` (+ `details: [{ path, message }]`),
 *     `status` equal to the HTTP status;
 *  3. a refused request stores nothing (the stores read directly, before and after);
 *  4. `Object.prototype`, `Array.prototype` and friends keep exactly their own properties;
 *  5. the X-RateLimit-* headers on every answer under a limited path;
 *  6. the OpenAPI documents describe the answer (the drift check the TestClient runs, here inside the
 *     property so that fast-check shrinks a drift like any other failure).
 */
import fc from "fast-check";
import { expect } from "vitest";
import { BODY_LIMIT_BYTES } from "../../adapters/http/json-body.ts";
import { openApiDriftCheck } from "./openapi-drift.ts";
import { expectRateLimitHeaders } from "./http-assertions.ts";
import { startTestPetstore, type TestPetstore, type TestResponse } from "./test-petstore.ts";

export const BASE = "http://petstore.test";
export const LIMIT = BODY_LIMIT_BYTES;

/** The "http-on-mongo" project runs these suites again on MongoDB stores, where each request costs more. */
export const onMongo = process.env.PETSTORE_TEST_STORE === "mongo";

/** Runs per property: enough to hit every generator branch, small enough for each file to stay well under 30 s. */
export const RUNS = onMongo ? 50 : 250;

// --- The petstore under attack ------------------------------------------------------------------------------

/** Who sends a request: one of our keys, no key, or a key nobody issued. */
export type KeyChoice = "admin" | "staff" | "none" | { garbage: string };

export interface HostileRequest {
  method: string;
  /** Path and query, sent through `new URL(path, BASE)` like any client would. */
  path: string;
  key: KeyChoice;
  /** Extra headers, appended in order (a name may repeat). */
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: Uint8Array | string;
}

export interface IssuedKey {
  id: number;
  secret: string;
}

const latin1 = (s: string): string => Buffer.from(s, "utf8").toString("latin1");

/**
 * A fresh in-memory petstore with category 1, pet 1 (10 in stock), open order 1, and keys with limits no
 * property can exhaust: `admin` and `staff` (enterprise) and `victim` (a customer key the admin routes may
 * change or revoke at will).
 */
export class HostilePetstore {
  readonly t: TestPetstore;
  readonly admin: IssuedKey;
  readonly staff: IssuedKey;
  readonly victim: IssuedKey;

  private constructor(t: TestPetstore, admin: IssuedKey, staff: IssuedKey, victim: IssuedKey) {
    this.t = t;
    this.admin = admin;
    this.staff = staff;
    this.victim = victim;
  }

  static async start(): Promise<HostilePetstore> {
    const t = await startTestPetstore();
    const issue = async (role: string, plan: string, limits?: object): Promise<IssuedKey> => {
      const res = await t.client.post("/admin/api-keys", {
        key: t.adminKey,
        body: { label: `${role} (hostile input)`, role, plan, limits },
      });
      if (res.status !== 201) throw new Error(`Could not create a key: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id, secret: res.body.key };
    };
    const high = { perMinute: 1_000_000, perDay: 1_000_000_000 };
    const admin = await issue("admin", "enterprise", high);
    const staff = await issue("staff", "enterprise", high);
    const victim = await issue("customer", "free");
    const ok = async (path: string, body: unknown, method = "POST") => {
      const res = await t.client.request(method, path, { key: admin.secret, body });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    };
    await ok("/categories", { name: "Dogs" });
    await ok("/pets", { name: "Rex", categoryId: 1 });
    await ok("/store/inventory/1", { quantity: 10 }, "PUT");
    await ok("/store/orders", { petId: 1, quantity: 1 });
    return new HostilePetstore(t, admin, staff, victim);
  }

  close(): Promise<void> {
    return this.t.close();
  }

  /** Keys the generated requests must never revoke or change: the bootstrap admin key and the ones sending. */
  get protectedKeyIds(): ReadonlySet<number> {
    return new Set([1, this.admin.id, this.staff.id]);
  }

  /** The X-API-Key value of a choice; undefined for none. */
  secretOf(key: KeyChoice): string | undefined {
    if (key === "admin") return this.admin.secret;
    if (key === "staff") return this.staff.secret;
    if (key === "none") return undefined;
    return key.garbage;
  }

  /** Who the service will take the caller for, given the X-API-Key it will see (repeated headers joined by ", "). */
  roleOf(headers: Headers): "admin" | "staff" | undefined {
    const secret = headers.get("x-api-key");
    if (secret === this.admin.secret) return "admin";
    if (secret === this.staff.secret) return "staff";
    return undefined;
  }

  headersOf(request: HostileRequest): Headers {
    const headers = new Headers();
    const secret = this.secretOf(request.key);
    if (secret !== undefined) headers.append("x-api-key", secret);
    for (const [name, value] of request.headers ?? []) headers.append(name, value);
    return headers;
  }

  async send(request: HostileRequest): Promise<TestResponse> {
    const headers = this.headersOf(request);
    // Callers without a valid key are limited per address under the free plan: a new minute for each.
    if (!this.roleOf(headers)) this.t.clock.advance(60_000);
    const body =
      typeof request.body === "string"
        ? new TextEncoder().encode(request.body)
        : request.body && new Uint8Array(request.body);
    const response = await this.t.petstore.app.fetch(
      new Request(new URL(request.path, BASE), {
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body }),
      }),
    );
    const text = await response.text();
    const isJson = response.headers.get("content-type")?.includes("json") ?? false;
    let parsed: unknown = text;
    if (text && isJson) {
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new Error(`The response says JSON but is not: ${text.slice(0, 200)}`);
      }
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  /** Everything stored, read straight from the stores (rate-limit counters aside). */
  async snapshot() {
    const { stores } = this.t;
    const all = async <T extends { id: number }>(
      list: (page: { limit: number; after?: number }) => Promise<T[]>,
    ): Promise<T[]> => {
      const items: T[] = [];
      for (;;) {
        const page = await list({ limit: 100, ...(items.length ? { after: items.at(-1)!.id } : {}) });
        items.push(...page);
        if (page.length < 100) return items;
      }
    };
    const pets = await all((p) => stores.pets.list(p));
    const categories = await all((p) => stores.categories.list(p));
    const orders = await all((p) => stores.orders.list(p));
    const keys = (await all((p) => stores.apiKeys.list(p))).map(
      ({ id, label, role, plan, limits, revokedAt, bannedUntil }) => ({
        id,
        label,
        role,
        plan,
        limits,
        revokedAt,
        bannedUntil,
      }),
    );
    // Stock of every pet, and of the ids just past the last one (an item without its pet would show there).
    const top = Math.max(0, ...pets.map((p) => p.id)) + 20;
    const stock = await Promise.all(
      Array.from({ length: top }, (_, i) => i + 1).map(async (id) => [id, (await stores.pets.ofId(id))?.stock]),
    );
    return { pets, categories, orders, stock, keys };
  }

  /**
   * Sends the request and checks the six invariants (see the top of this file); `expectOutcome` adds what
   * this particular request must get. Returns the response.
   */
  async exchange(
    request: HostileRequest,
    expectOutcome?: (res: TestResponse, headers: Headers) => void,
  ): Promise<TestResponse> {
    const before = await this.snapshot();
    const prototypes = prototypeState();
    const res = await this.send(request);
    const label = `${request.method} ${request.path} → ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`;

    expect(res.status, `no 5xx: ${label}`).toBeLessThan(500);
    if (res.status >= 400) expectErrorShape(res, label, new URL(request.path, BASE).pathname);
    if (res.status >= 400) expect(await this.snapshot(), `a refused request stores nothing: ${label}`).toEqual(before);
    expectPrototypesUntouched(prototypes);
    if (isLimited(new URL(request.path, BASE).pathname)) expectRateLimitHeaders(res);
    expect(
      openApiDriftCheck().check({ method: request.method, path: request.path }, res),
      `documented: ${label}`,
    ).toEqual([]);
    expectOutcome?.(res, this.headersOf(request));
    return res;
  }
}

/** Paths whose every answer carries the rate-limit headers (PRODUCT.md §3). */
const limitedPrefixes = ["/pets", "/categories", "/store", "/admin", "/openapi.json", "/openapi-3.1.json", "/docs"];
export const isLimited = (pathname: string): boolean =>
  limitedPrefixes.some((p) => pathname === p || pathname.startsWith(`${p}/`));

// --- Invariants ---------------------------------------------------------------------------------------------

/** Invariant 2: the seed's Error body and nothing else; no stack trace or internal name in its own words. */
export const expectErrorShape = (res: TestResponse, label = `${res.status}`, echoedPath?: string): void => {
  expect(res.headers.get("content-type"), label).toMatch(/^application\/json/);
  const body = res.body as Record<string, unknown>;
  expect(typeof body === "object" && body !== null && !Array.isArray(body), label).toBe(true);
  expect(
    Object.keys(body)
      .filter((k) => k !== "details")
      .sort(),
    label,
  ).toEqual(["code", "message", "status"]);
  expect(body.status, label).toBe(res.status);
  expect(typeof body.code === "string" && /^[a-z_]+$/.test(body.code), label).toBe(true);
  expect(typeof body.message === "string" && body.message.length > 0, label).toBe(true);
  // A 404 names the path it was asked for: that echo is the client's own text, not a leak.
  const ownWords = echoedPath ? String(body.message).replaceAll(echoedPath, "") : body.message;
  expect(`${body.code} ${ownWords}`, label).not.toMatch(
    /\bat \S+ \(\S*:\d+:\d+\)|\.ts:\d|node_modules|Error:|ZodError|DomainError|HttpProblem/,
  );
  if ("details" in body) {
    expect(Array.isArray(body.details), label).toBe(true);
    for (const detail of body.details as Record<string, unknown>[]) {
      expect(Object.keys(detail).sort(), label).toEqual(["message", "path"]);
      expect(typeof detail.path === "string" && /^(body|query|path|header)\b/.test(detail.path), label).toBe(true);
      expect(typeof detail.message, label).toBe("string");
    }
  }
};

/**
 * What admission answers a caller that may not use the operation (none or a garbage key: 401; staff under
 * /admin: 403), or undefined when the caller may.
 */
export const refusalFor = (
  role: "admin" | "staff" | undefined,
  adminOnly: boolean,
): { status: number; code: string } | undefined => {
  if (role === undefined) return { status: 401, code: "unauthorized" };
  if (role === "staff" && adminOnly) return { status: 403, code: "forbidden" };
  return undefined;
};

/** The answer is one of these (status, and code when given). */
export const expectOneOf = (
  res: TestResponse,
  outcomes: ReadonlyArray<{ status: number; code?: string }>,
  why: string,
): void => {
  const code = (res.body as { code?: string } | undefined)?.code;
  const matches = outcomes.some((o) => o.status === res.status && (o.code === undefined || o.code === code));
  expect(
    matches,
    `${why}: expected one of ${JSON.stringify(outcomes)}, got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`,
  ).toBe(true);
};

/** 400 validation_failed whose details name each path (exactly, or a path under it). */
export const expectValidationFailedAt = (res: TestResponse, paths: readonly string[], why: string): void => {
  expectOneOf(res, [{ status: 400, code: "validation_failed" }], why);
  const named: string[] = ((res.body as { details?: { path: string }[] }).details ?? []).map((d) => d.path);
  for (const path of paths) {
    expect(
      named.some((p) => p === path || p.startsWith(`${path}.`)),
      `${why}: details ${JSON.stringify(named)} should name ${path}`,
    ).toBe(true);
  }
};

const watchedPrototypes = [
  Object.prototype,
  Array.prototype,
  Function.prototype,
  String.prototype,
  Number.prototype,
  Boolean.prototype,
];

type PrototypeState = Map<PropertyKey, PropertyDescriptor>[];
export const prototypeState = (): PrototypeState =>
  watchedPrototypes.map(
    (proto) => new Map(Reflect.ownKeys(proto).map((key) => [key, Object.getOwnPropertyDescriptor(proto, key)!])),
  );

/** Invariant 4: the same own properties, each with the same value, accessors and flags. */
export const expectPrototypesUntouched = (before: PrototypeState): void => {
  const after = prototypeState();
  watchedPrototypes.forEach((proto, i) => {
    const was = before[i]!;
    const now = after[i]!;
    const name = proto === Object.prototype ? "Object.prototype" : `${proto.constructor.name}.prototype`;
    expect([...now.keys()].map(String).sort(), `${name} has the same own properties`).toEqual(
      [...was.keys()].map(String).sort(),
    );
    for (const [key, descriptor] of now) {
      const old = was.get(key)!;
      const same =
        old.value === descriptor.value &&
        old.get === descriptor.get &&
        old.set === descriptor.set &&
        old.writable === descriptor.writable &&
        old.enumerable === descriptor.enumerable &&
        old.configurable === descriptor.configurable;
      expect(same, `${name}.${String(key)} is unchanged`).toBe(true);
    }
  });
  for (const probe of ["polluted", "isAdmin", "role", "admin", "$where"]) {
    expect(({} as Record<string, unknown>)[probe], `({}).${probe}`).toBeUndefined();
    expect(([] as unknown as Record<string, unknown>)[probe], `[].${probe}`).toBeUndefined();
  }
};

// --- Generators ---------------------------------------------------------------------------------------------

/** Key choices for a request that should mostly get past admission. */
export const keyChoice = (): fc.Arbitrary<KeyChoice> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant<KeyChoice>("admin") },
    { weight: 4, arbitrary: fc.constant<KeyChoice>("staff") },
    { weight: 1, arbitrary: fc.constant<KeyChoice>("none") },
    { weight: 2, arbitrary: garbageKey().map((garbage): KeyChoice => ({ garbage })) },
  );

/**
 * X-API-Key values nobody issued, as the service would see them: header values are bytes, so anything past
 * Latin-1 arrives as its UTF-8 bytes read one by one.
 */
export const garbageKey = (): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.string({ unit: "grapheme-ascii", maxLength: 80 }),
      fc.string({ unit: "grapheme", maxLength: 40 }).map(latin1),
      fc.constantFrom(
        "test-admin-key",
        "null",
        "undefined",
        "Bearer x",
        "' OR '1'='1",
        '{"$ne": null}',
        "../../etc/passwd",
        "ключ",
        "鍵🔑",
        "é",
      ),
      fc
        .tuple(fc.constantFrom("k", "é", "0", "\u00ff"), fc.integer({ min: 1_000, max: 80_000 }))
        .map(([c, n]) => c.repeat(n)),
    )
    // Only what a header value can hold: no NUL, CR or LF.
    .map((s) => (s.includes("ключ") || s.includes("鍵") ? latin1(s) : s).replace(/[\0\r\n]/g, "x"));

/** Pieces of names that break naive code: combining marks, bidi controls, zero-width, emoji, NUL, surrogates. */
const unicodeBits = [
  "\u0301",
  "e\u0301",
  "\u0308\u0308\u0308\u0308",
  "\u202E",
  "\u202Dabc\u202C",
  "\u200F",
  "\u200B",
  "\u200C",
  "\u200D",
  "\u2060",
  "\uFEFF",
  "\u0000",
  "\u0007",
  "\u001B[31m",
  "\u007F",
  "\u0085",
  "\u00A0",
  "\u2028",
  "\u2029",
  "\u3000",
  "\t",
  "\n",
  " ",
  "🐶",
  "👨‍👩‍👧‍👦",
  "🏳️‍🌈",
  "🇫🇷",
  "\uD800",
  "\uDFFF",
  "\uDBFF\uDFFF",
  "\uDC00\uD800",
  "\uFFFD",
  "\uFFFF",
  "ﷺ",
  "Ǆ",
  "ß",
  "İ",
  "ﬃ",
  "שלום",
  "مرحبا",
  "𝕏𝕐",
  "Z̴̡̛̗͓̰̍͊a̸̢͍̓l̶̙̈́g̵̣̈o̷̡͝",
  "<script>",
  "'; DROP TABLE pets; --",
  "$where",
  "$gt",
  '{"$gt": ""}',
  "__proto__",
  "constructor",
  "%00",
  "\\u0000",
];

export const unicodeName = (maxPieces = 30): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...unicodeBits) },
        { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 4 }) },
        { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 4 }) },
        { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 6 }) },
      ),
      { maxLength: maxPieces },
    )
    .map((pieces) => pieces.join(""));

/** Raw JSON number texts: -0, huge exponents, 2^53+1, past int64, tiny, long mantissas. */
export const numberText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      "-0",
      "0",
      "-0.0",
      "1",
      "-1",
      "1e2",
      "1E2",
      "1e+2",
      "1.0",
      "1.5",
      "0.1e1",
      "100e-2",
      "1e308",
      "-1e308",
      "1.7976931348623157e308",
      "1e309",
      "-1e309",
      "1e-400",
      "5e-324",
      "9007199254740991",
      "9007199254740993",
      "9223372036854775806",
      "1.0000000000000001",
      "4.00000000000000000001e0",
      "-9007199254740993",
      "9223372036854775807",
      "9223372036854775808",
      "-9223372036854775808",
      "-9223372036854775809",
      "18446744073709551616",
      "2147483647",
      "2147483648",
      "-2147483649",
      "1000",
      "1001",
      "1000000",
      "1000001",
      "1000000000",
      "1000000001",
      "123456789012345678901234567890",
      "1e999999999",
      "-1e-999999999",
      "0.000000000000000000000000001",
    ),
    fc.integer().map(String),
    fc.integer({ min: -5, max: 1_000_005 }).map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
    fc
      .tuple(fc.stringMatching(/^-?(0|[1-9]\d{0,30})(\.\d{1,10})?$/), fc.option(fc.integer({ min: -400, max: 400 })))
      .map(([m, e]) => (e === null ? m : `${m}e${e}`)),
  );

/** `$`-operators where a string or number belongs, as a query-injection attempt would send them. */
export const operatorText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      '{"$gt": ""}',
      '{"$ne": null}',
      '{"$gt": 0}',
      '{"$where": "sleep(1000)"}',
      '{"$regex": ".*"}',
      '{"$in": [1, 2, 3]}',
      '{"$exists": true}',
      '{"$expr": {"$eq": [1, 1]}}',
      '[{"$gt": ""}]',
    ),
    fc
      .tuple(
        fc.constantFrom("$gt", "$gte", "$lt", "$ne", "$nin", "$or", "$and", "$not", "$set", "$inc", "$unset"),
        fc.jsonValue({ maxDepth: 1 }),
      )
      .map(([op, v]) => JSON.stringify({ [op]: v })),
  );

/** `__proto__`, `constructor`, `prototype` keys, at the top of a value or nested in it. */
export const pollutingText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      '{"__proto__": {"polluted": "yes", "isAdmin": true}}',
      '{"constructor": {"prototype": {"polluted": "yes"}}}',
      '{"prototype": {"polluted": "yes"}}',
      '{"a": {"__proto__": {"role": "admin"}}}',
      '[{"__proto__": {"polluted": 1}}]',
      '{"__proto__": null}',
      '{"__proto__": []}',
      '{"__proto__": {"__proto__": {"polluted": 1}}}',
      '{"constructor": {"name": "x"}, "__proto__": {"toString": "x"}}',
    ),
    fc
      .tuple(fc.constantFrom("__proto__", "constructor", "prototype"), fc.jsonValue({ maxDepth: 2 }))
      .map(([k, v]) => `{${JSON.stringify(k)}: ${JSON.stringify(v)}}`),
  );

/** Deeply nested arrays or objects, up to 10,000 levels (all well under 64 KiB). */
export const deepText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.integer({ min: 1, max: 10_000 }).map((n) => "[".repeat(n) + "]".repeat(n)),
    fc.integer({ min: 1, max: 10_000 }).map((n) => '{"a":'.repeat(n) + "null" + "}".repeat(n)),
    fc.integer({ min: 1, max: 5_000 }).map((n) => '[{"__proto__":'.repeat(n) + "1" + "}]".repeat(n)),
  );

/** Strings around the 100 / 500 character limits, padded with whitespace that trimming removes. */
export const boundaryString = (): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom(0, 1, 99, 100, 101, 499, 500, 501, 5_000),
      fc.constantFrom("a", "é", "🐶", "\u0301", "\u200B"),
      fc.constantFrom("", " ", "\t\n ", "\u3000\u00A0", "\uFEFF"),
    )
    .map(([n, c, pad]) => pad + c.repeat(n) + pad);

/** Any hostile JSON value text. */
export const hostileValueText = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 3, arbitrary: numberText() },
    { weight: 3, arbitrary: unicodeName().map((s) => JSON.stringify(s)) },
    { weight: 1, arbitrary: boundaryString().map((s) => JSON.stringify(s)) },
    { weight: 2, arbitrary: operatorText() },
    { weight: 2, arbitrary: pollutingText() },
    { weight: 1, arbitrary: deepText() },
    {
      weight: 2,
      arbitrary: fc.constantFrom("true", "false", "null", "[]", "{}", '""', '" "', "[null]", '["a"]', '{"": 1}'),
    },
  );
