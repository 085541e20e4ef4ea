/**
 * For test/http/hostile-input.property.test.ts: a reference model of the request bodies, and the generators of
 * hostile ones.
 */
import fc from "fast-check";
import { expect } from "vitest";
import type { z } from "zod";
import {
  ApiKeyBody,
  ApiKeyChangesBody,
  CategoryBody,
  InventoryBody,
  OrderBody,
  OrderChangesBody,
  PetBody,
} from "../../adapters/http/schemas.ts";
import type { TestResponse } from "./test-petstore.ts";
import {
  expectOneOf,
  expectValidationFailedAt,
  hostileValueText,
  LIMIT,
  numberText,
  unicodeName,
  boundaryString,
} from "./hostile-input.ts";

// --- A reference model of the request bodies (adapters/http/schemas.ts, as PRODUCT.md states them) ----------

type Kind =
  | { kind: "name"; max: number }
  | { kind: "description" }
  | { kind: "int64" }
  | { kind: "int"; min: number; max: number }
  | { kind: "enum"; values: readonly string[] }
  | { kind: "dateTime" }
  | { kind: "true" }
  | { kind: "limits" };

interface Field {
  type: Kind;
  required: boolean;
}

export interface BodyOperation {
  method: string;
  path: string;
  /** Under /admin: the staff key gets 403. */
  admin: boolean;
  fields: Record<string, Field>;
  /** The route's schema, to check that `fields` still names every property it takes. */
  schema: z.ZodObject;
  /** A body it accepts, as JSON texts per field. */
  valid: Record<string, string>;
}

export const name: Kind = { kind: "name", max: 100 };
const int64: Kind = { kind: "int64" };
const petStatus: Kind = { kind: "enum", values: ["available", "pending", "sold"] };
const roles: Kind = { kind: "enum", values: ["customer", "staff", "admin"] };
const plans: Kind = { kind: "enum", values: ["free", "pro", "business", "enterprise"] };
const dateTime: Kind = { kind: "dateTime" };
const req = (type: Kind): Field => ({ type, required: true });
const opt = (type: Kind): Field => ({ type, required: false });

const NewPet = { name: req(name), categoryId: req(int64), status: opt(petStatus) };
const NewCategory = { name: req(name), description: opt({ kind: "description" }) };

/** Every operation that takes a body (the victim key's id is filled in once the petstore runs). */
export const bodyOperations = (victimId: number): BodyOperation[] => [
  {
    method: "POST",
    path: "/pets",
    admin: false,
    fields: NewPet,
    schema: PetBody,
    valid: { name: '"Tom"', categoryId: "1" },
  },
  {
    method: "PUT",
    path: "/pets/1",
    admin: false,
    fields: NewPet,
    schema: PetBody,
    valid: { name: '"Rex"', categoryId: "1" },
  },
  {
    method: "POST",
    path: "/categories",
    admin: false,
    fields: NewCategory,
    schema: CategoryBody,
    valid: { name: '"Birds"' },
  },
  {
    method: "PUT",
    path: "/categories/1",
    admin: false,
    fields: NewCategory,
    schema: CategoryBody,
    valid: { name: '"Dogs"' },
  },
  {
    method: "POST",
    path: "/store/orders",
    admin: false,
    fields: { petId: req(int64), quantity: req({ kind: "int", min: 1, max: 1000 }), shipDate: opt(dateTime) },
    schema: OrderBody,
    valid: { petId: "1", quantity: "1" },
  },
  {
    method: "PATCH",
    path: "/store/orders/1",
    admin: false,
    fields: { complete: opt({ kind: "true" }), shipDate: opt(dateTime) },
    schema: OrderChangesBody,
    valid: { shipDate: '"2027-01-01T00:00:00Z"' },
  },
  {
    method: "PUT",
    path: "/store/inventory/1",
    admin: false,
    fields: { quantity: req({ kind: "int", min: 0, max: 1_000_000 }) },
    schema: InventoryBody,
    valid: { quantity: "5" },
  },
  {
    method: "POST",
    path: "/admin/api-keys",
    admin: true,
    fields: { label: req(name), role: req(roles), plan: req(plans), limits: opt({ kind: "limits" }) },
    schema: ApiKeyBody,
    valid: { label: '"new key"', role: '"customer"', plan: '"free"' },
  },
  {
    method: "PATCH",
    path: `/admin/api-keys/${victimId}`,
    admin: true,
    fields: { label: opt(name), role: opt(roles), plan: opt(plans), limits: opt({ kind: "limits" }) },
    schema: ApiKeyChangesBody,
    valid: { label: '"renamed"' },
  },
];

type Verdict = "valid" | "invalid" | "unknown";

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isInt = (v: unknown, min: number, max: number) =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;
const codePoints = (s: string) => [...s].length;

/** RFC 3339 with an offset, shape only: a string of this shape may still name no real instant. */
const dateTimeShape = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;
const realDateTimes = new Set([
  "2027-01-01T00:00:00Z",
  "2027-01-01T00:00:00.000Z",
  "2027-06-30T23:59:59+02:00",
  "2026-11-21T12:00:00-05:30",
]);

export const verdictOf = (type: Kind, v: unknown): Verdict => {
  switch (type.kind) {
    case "name":
    case "description": {
      // Lone surrogates have no UTF-8 form: refused, or a MongoDB store would keep U+FFFD instead.
      if (typeof v !== "string" || !v.isWellFormed()) return "invalid";
      const trimmed = v.trim();
      const max = type.kind === "name" ? type.max : 500;
      const min = type.kind === "name" ? 1 : 0;
      const units = trimmed.length >= min && trimmed.length <= max;
      // The length of a string in the OpenAPI document (JSON Schema) counts code points, zod UTF-16 units:
      // where they disagree, the model does not judge.
      const points = codePoints(trimmed) >= min && codePoints(trimmed) <= max;
      return units === points ? (units ? "valid" : "invalid") : "unknown";
    }
    case "int64":
      return typeof v === "number" && Number.isInteger(v) && v >= -(2 ** 63) && v <= 2 ** 63 ? "valid" : "invalid";
    case "int":
      return isInt(v, type.min, type.max) ? "valid" : "invalid";
    case "enum":
      return typeof v === "string" && type.values.includes(v) ? "valid" : "invalid";
    case "true":
      return v === true ? "valid" : "invalid";
    case "dateTime":
      if (typeof v !== "string" || !dateTimeShape.test(v)) return "invalid";
      return realDateTimes.has(v) ? "valid" : "unknown";
    case "limits": {
      if (!isPlainObject(v)) return "invalid";
      const keys = Object.keys(v);
      const exact = keys.length === 2 && keys.includes("perMinute") && keys.includes("perDay");
      return exact && isInt(v.perMinute, 1, 1_000_000) && isInt(v.perDay, 1, 1_000_000_000) ? "valid" : "invalid";
    }
  }
};

type BodyOutcome =
  | { kind: "too_large" }
  | { kind: "invalid_json" }
  | { kind: "invalid"; paths: string[] }
  | { kind: "valid" }
  | { kind: "unknown" };

/** Stands for a number the body holds but a double does not (PRODUCT.md §6): no field takes it. */
const inexact = Symbol("inexact number");

/** Whether a JSON number's text denotes exactly the integer `value`: the decimal point shifted by hand. */
const denotesExactly = (source: string, value: number): boolean => {
  const [mantissa = "", exponent = "0"] = source.replace(/^-/, "").toLowerCase().split("e");
  const [whole = "", fraction = ""] = mantissa.split(".");
  const shift = Number(exponent);
  if (Math.abs(shift) > 400) return /^0*\.?0*$/.test(mantissa) && value === 0;
  let digits = whole + fraction;
  let point = whole.length + shift;
  if (point < 0) [digits, point] = ["0".repeat(-point) + digits, 0];
  if (point > digits.length) digits += "0".repeat(point - digits.length);
  const integer = digits.slice(0, point).replace(/^0+(?=\d)/, "") || "0";
  return /^0*$/.test(digits.slice(point)) && integer === Math.abs(value).toFixed(0);
};

/** What PRODUCT.md §1 and §6 say about these bytes, sent as application/json to this operation. */
export const outcomeOf = (op: BodyOperation, bytes: Uint8Array): BodyOutcome => {
  if (bytes.byteLength > LIMIT) return { kind: "too_large" };
  let value: unknown;
  try {
    // Invalid UTF-8 is refused, not replaced; a byte order mark is kept, and JSON.parse refuses it.
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    const exactly = (_key: string, v: unknown, context?: { source?: string }) =>
      typeof v === "number" && context?.source !== undefined && (Number.isInteger(v) || !Number.isFinite(v))
        ? Number.isSafeInteger(v) && denotesExactly(context.source, v)
          ? v
          : inexact
        : v;
    try {
      value = JSON.parse(text, exactly);
    } catch (error) {
      // Too deep for a reviver's recursion: valid JSON all the same, and too deep for any schema.
      if (!(error instanceof RangeError)) throw error;
      value = JSON.parse(text);
    }
  } catch {
    return { kind: "invalid_json" };
  }
  if (!isPlainObject(value)) return { kind: "invalid", paths: ["body"] };
  const paths: string[] = [];
  let unknown = false;
  // Any property the schema does not have, `__proto__` included, is refused: JSON.parse makes it an own property.
  const extra = Object.keys(value).filter((k) => !Object.hasOwn(op.fields, k));
  if (extra.length) paths.push("body");
  for (const [field, { type, required }] of Object.entries(op.fields)) {
    if (!Object.hasOwn(value, field)) {
      if (required) paths.push(`body.${field}`);
      continue;
    }
    const verdict = verdictOf(type, value[field]);
    if (verdict === "invalid") paths.push(`body.${field}`);
    if (verdict === "unknown") unknown = true;
  }
  if (paths.length) return { kind: "invalid", paths };
  return unknown ? { kind: "unknown" } : { kind: "valid" };
};

/** Checks the answer against the model, for a caller that may use the operation. */
export const expectBodyOutcome = (op: BodyOperation, bytes: Uint8Array, res: TestResponse): void => {
  const outcome = outcomeOf(op, bytes);
  const why = `${op.method} ${op.path} with ${outcome.kind} body`;
  switch (outcome.kind) {
    case "too_large":
      return expectOneOf(res, [{ status: 413, code: "payload_too_large" }], why);
    case "invalid_json":
      return expectOneOf(res, [{ status: 400, code: "invalid_json" }], why);
    case "invalid":
      return expectValidationFailedAt(res, outcome.paths, why);
    case "valid": {
      // Accepted by the schema: whatever the domain says next, it is no schema error (those carry details).
      const body = res.body as { code?: string; details?: unknown };
      expect(body?.code, why).not.toBe("invalid_json");
      expect(
        res.status === 400 && body?.details !== undefined,
        `${why}: a schema error for a valid body ${JSON.stringify(res.body)}`,
      ).toBe(false);
      if (!op.admin) expect(res.status, `${why}: ${JSON.stringify(res.body)}`).not.toBe(400);
      expect([413, 415]).not.toContain(res.status);
      return;
    }
    case "unknown":
      return;
  }
};

// --- Generators of bodies -------------------------------------------------------------------------------------

/** A value text aimed at a field: near-valid values of its type, mixed with anything hostile. */
const fieldValueText = (type: Kind): fc.Arbitrary<string> => {
  const json = (arb: fc.Arbitrary<unknown>) => arb.map((v) => JSON.stringify(v));
  const near: Record<Kind["kind"], () => fc.Arbitrary<string>> = {
    name: () =>
      fc.oneof(
        json(unicodeName()),
        json(boundaryString()),
        json(fc.constantFrom("$where", "$gt", '{"$gt": ""}', " Rex ", "\u0000")),
      ),
    description: () => fc.oneof(json(unicodeName(60)), json(boundaryString())),
    int64: () => numberText(),
    int: () => fc.oneof(numberText(), json(fc.constantFrom(-1, 0, 1, 999, 1000, 1001, 999_999, 1_000_000, 1_000_001))),
    enum: () =>
      json(
        fc.constantFrom(
          ...(type.kind === "enum" ? type.values : []),
          "AVAILABLE",
          " available",
          "sold ",
          "Admin",
          "enterprise\u0000",
          "__proto__",
          "toString",
          "constructor",
          "",
        ),
      ),
    dateTime: () =>
      fc.oneof(
        json(fc.constantFrom(...realDateTimes)),
        json(
          fc.constantFrom(
            "2027-01-01",
            "2027-13-01T00:00:00Z",
            "2027-02-30T00:00:00Z",
            "2027-01-01T24:00:00Z",
            "2027-01-01T00:00:00",
            "2027-01-01 00:00:00Z",
            "2027-01-01t00:00:00z",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999Z",
            "+275760-09-13T00:00:00Z",
            "2016-12-31T23:59:60Z",
            "2027-01-01T00:00:00+24:00",
            "1e3",
            "now",
            "",
          ),
        ),
        json(
          fc
            .date({ noInvalidDate: true, min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z") })
            .map((d) => d.toISOString()),
        ),
        json(fc.integer()),
      ),
    true: () => fc.constantFrom("true", "false", "1", "0", '"true"', "null", "[true]"),
    limits: () =>
      fc.oneof(
        fc.tuple(numberText(), numberText()).map(([m, d]) => `{"perMinute": ${m}, "perDay": ${d}}`),
        fc.constantFrom(
          '{"perMinute": 10, "perDay": 100}',
          '{"perMinute": 10}',
          '{"perMinute": 10, "perDay": 100, "burst": 5}',
          '{"perMinute": 10, "perDay": 100, "__proto__": {"polluted": 1}}',
          '{"perMinute": {"$gt": 0}, "perDay": 100}',
        ),
      ),
  };
  return fc.oneof({ weight: 3, arbitrary: near[type.kind]() }, { weight: 2, arbitrary: hostileValueText() });
};

/** Property names that are not in any schema, or nearly are. */
const extraKey = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      "__proto__",
      "constructor",
      "prototype",
      "toString",
      "hasOwnProperty",
      "valueOf",
      "$where",
      "$set",
      "id",
      "status",
      "",
      " name",
      "Name",
      "name ",
      "name\u0000",
      "admin",
      "role",
    ),
    fc.string({ maxLength: 12 }),
    unicodeName(3),
  );

type Edit = { set: string; to: string } | { drop: string } | { dup: string; to: string };

/** A body of one operation: its valid body with a few edits (set a field to a hostile value, drop it, repeat it, add one). */
export const editedBody = (op: BodyOperation): fc.Arbitrary<string> => {
  const fieldNames = Object.keys(op.fields);
  const edit: fc.Arbitrary<Edit> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .constantFrom(...fieldNames)
        .chain((f) => fieldValueText(op.fields[f]!.type).map((to): Edit => ({ set: f, to }))),
    },
    { weight: 1, arbitrary: fc.constantFrom(...fieldNames).map((f): Edit => ({ drop: f })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...fieldNames)
        .chain((f) => fieldValueText(op.fields[f]!.type).map((to): Edit => ({ dup: f, to }))),
    },
    { weight: 2, arbitrary: fc.tuple(extraKey(), hostileValueText()).map(([f, to]): Edit => ({ set: f, to })) },
  );
  return fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => {
    const entries: [string, string][] = Object.entries(op.valid);
    for (const e of edits) {
      if ("drop" in e) {
        for (let i = entries.length - 1; i >= 0; i--) if (entries[i]![0] === e.drop) entries.splice(i, 1);
      } else if ("dup" in e) {
        entries.push([e.dup, e.to]);
      } else {
        const at = entries.findIndex(([k]) => k === e.set);
        if (at >= 0) entries[at] = [e.set, e.to];
        else entries.push([e.set, e.to]);
      }
    }
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;
  });
};

/** Text that is almost JSON, or JSON with a twist at the byte level. */
export const malformedBytes = (op: BodyOperation): fc.Arbitrary<Uint8Array> => {
  const valid = `{${Object.entries(op.valid)
    .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
    .join(",")}}`;
  const text = (arb: fc.Arbitrary<string>) => arb.map((s) => new TextEncoder().encode(s));
  const firstValue = Object.keys(op.valid)[0]!;
  const withValue = (raw: string) => valid.replace(new RegExp(`("${firstValue}":)[^,}]*`), `$1${raw}`);
  return fc.oneof(
    // Truncated anywhere.
    text(fc.integer({ min: 0, max: valid.length - 1 }).map((n) => valid.slice(0, n))),
    // Trailing garbage, a second document, comments, trailing commas.
    text(fc.string({ minLength: 1, maxLength: 20 }).map((g) => valid + g)),
    text(
      fc.constantFrom(
        `${valid}${valid}`,
        `${valid},`,
        `${valid} // c`,
        `/* c */${valid}`,
        valid.replace("}", ",}"),
        `[${valid},]`,
        `${valid}\u0000`,
      ),
    ),
    // A byte-order mark, or whitespace JSON does not allow, in front.
    text(
      fc.constantFrom(
        `\uFEFF${valid}`,
        `\u00A0${valid}`,
        `\u2028${valid}`,
        ` \t\r\n${valid} \t\r\n`,
        `\uFEFF\uFEFF${valid}`,
      ),
    ),
    // Literals JSON has not: NaN, Infinity, undefined, hex, single quotes, huge exponents.
    text(
      fc
        .constantFrom(
          "NaN",
          "Infinity",
          "-Infinity",
          "+1",
          "undefined",
          "0x10",
          "01",
          ".5",
          "5.",
          "'Rex'",
          "1e999999999",
          "-1e999999999",
          "1e-999999999",
          "True",
          "nul",
        )
        .map(withValue),
    ),
    // Control characters raw inside a string (invalid) or escaped (valid), lone surrogates escaped (valid JSON).
    text(
      fc
        .tuple(fc.integer({ min: 0, max: 0x1f }), fc.boolean())
        .map(([c, escaped]) =>
          withValue(escaped ? `"a\\u${c.toString(16).padStart(4, "0")}b"` : `"a${String.fromCharCode(c)}b"`),
        ),
    ),
    text(
      fc
        .constantFrom(
          '"\\ud800"',
          '"\\udfff"',
          '"\\udc00\\ud800"',
          '"\\uD83D"',
          '"\\u0000"',
          '"\\x41"',
          '"\\q"',
          '"\\u12"',
        )
        .map(withValue),
    ),
    // Bytes that are not UTF-8 (overlong forms, surrogates encoded, stray continuation bytes) inside a string.
    fc
      .constantFrom([0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff], [0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82])
      .map((bad) => {
        const [head, tail] = [withValue('"a'), '"'];
        const start = new TextEncoder().encode(head.slice(0, head.indexOf('"a') + 2));
        const end = new TextEncoder().encode(tail + head.slice(head.indexOf('"a') + 2));
        return new Uint8Array([...start, ...bad, ...end]);
      }),
    // Random text and random bytes.
    text(fc.string({ unit: "binary", maxLength: 60 })),
    fc.uint8Array({ maxLength: 60 }),
    text(fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))),
    text(fc.constantFrom("", " ", "null", "[]", '"x"', "0", "{", "}", "{}", '{"":""}')),
  );
};

/** Large values: long strings up to and past the body limit, deep nesting, 1e308, 2^53+1. */
export const hugeBody = (op: BodyOperation): fc.Arbitrary<string> => {
  const [first] = Object.keys(op.fields);
  return fc.oneof(
    // The first field as one long string, the whole body from a little under to a little over 64 KiB.
    fc
      .tuple(fc.integer({ min: LIMIT - 300, max: LIMIT + 300 }), fc.constantFrom("a", " ", "é", "🐶"))
      .map(([size, c]) => {
        const shell = `{${JSON.stringify(first)}:""}`;
        const units = Math.max(0, Math.floor((size - shell.length) / Buffer.byteLength(c)));
        return `{${JSON.stringify(first)}:"${c.repeat(units)}"}`;
      }),
    // A long unknown property name.
    fc.integer({ min: 1_000, max: LIMIT }).map((n) => `{"${"k".repeat(n)}":1}`),
    // Many properties.
    fc
      .integer({ min: 100, max: 5_000 })
      .map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(",")}}`),
    // Deep nesting at the top, or in a field, up to the limit.
    fc.integer({ min: 1_000, max: 32_000 }).map((n) => "[".repeat(n) + "]".repeat(n)),
    fc
      .integer({ min: 1_000, max: 10_000 })
      .map((n) => `{${JSON.stringify(first)}:${'{"a":'.repeat(n)}1${"}".repeat(n)}}`),
    fc.integer({ min: 1_000, max: 30_000 }).map((n) => `{${JSON.stringify(first)}:${"[".repeat(n)}${"]".repeat(n)}}`),
    // Long arrays.
    fc.integer({ min: 1_000, max: 30_000 }).map((n) => `{${JSON.stringify(first)}:[${"0,".repeat(n)}0]}`),
    // Extreme numbers in every field.
    fc.constantFrom("1e308", "-1e308", "-0", "9007199254740993", "1e400", "5e-324", "9223372036854775808").map(
      (n) =>
        `{${Object.keys(op.fields)
          .map((k) => `${JSON.stringify(k)}:${n}`)
          .join(",")}}`,
    ),
  );
};
