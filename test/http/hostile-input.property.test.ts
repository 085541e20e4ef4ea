/**
 * Property-based tests of the HTTP layer against hostile request bodies (issue 6): malformed JSON text,
 * wrong types in every field of every request body, huge and deeply nested values, unicode edge cases,
 * `__proto__` / `constructor` / `prototype` keys and `$`-operators. Every generated request must keep the
 * invariants of test/support/hostile-input.ts (no 5xx, the Error shape, nothing stored when refused,
 * untouched prototypes, rate-limit headers, documented) and get the outcome a small reference model of
 * PRODUCT.md §1 predicts (test/support/hostile-bodies.ts). Query strings, path ids and headers: hostile-input-requests.property.test.ts.
 *
 * fast-check prints the seed and the shrunk request of a failure; replay it with `fc.assert(..., { seed, path })`.
 */
import fc from "fast-check";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  expectOneOf,
  expectPrototypesUntouched,
  expectValidationFailedAt,
  HostilePetstore,
  keyChoice,
  operatorText,
  pollutingText,
  prototypeState,
  refusalFor,
  RUNS,
  unicodeName,
  type HostileRequest,
} from "../support/hostile-input.ts";
import { expectedCategory, expectedPet } from "../support/bodies.ts";
import {
  bodyOperations,
  editedBody,
  expectBodyOutcome,
  hugeBody,
  malformedBytes,
  name,
  outcomeOf,
  verdictOf,
  type BodyOperation,
} from "../support/hostile-bodies.ts";

// --- The properties --------------------------------------------------------------------------------------------

describe("hostile request bodies (property-based)", () => {
  let store: HostilePetstore;
  let operations: BodyOperation[];
  const prototypesAtStart = prototypeState();

  // A fresh petstore per property: one property's accepted requests (a deleted pet, a cancelled order) must not
  // change what the next one expects.
  beforeEach(async () => {
    store = await HostilePetstore.start();
    operations = bodyOperations(store.victim.id);
  });
  afterEach(async () => {
    await store?.close();
  });
  afterAll(() => {
    expectPrototypesUntouched(prototypesAtStart);
  });

  /** One request per operation: `bodyOf` builds the bytes, the model judges them. */
  const bodyProperty = (bodyOf: (op: BodyOperation) => fc.Arbitrary<Uint8Array | string>) =>
    fc.asyncProperty(
      fc.nat({ max: 1_000 }).chain((i) => {
        const op = operations[i % operations.length]!;
        return fc.record({ op: fc.constant(op), body: bodyOf(op), key: keyChoice() });
      }),
      async ({ op, body, key }) => {
        const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
        const request: HostileRequest = {
          method: op.method,
          path: op.path,
          key,
          headers: [["content-type", "application/json"]],
          body: bytes,
        };
        await store.exchange(request, (res, headers) => {
          const refusal = refusalFor(store.roleOf(headers), op.admin);
          if (refusal) expectOneOf(res, [refusal], `${op.method} ${op.path} without the right key`);
          else expectBodyOutcome(op, bytes, res);
        });
      },
    );

  it("the model knows every property of every body: a field added to a schema must be modelled here", () => {
    for (const operation of bodyOperations(0))
      expect(Object.keys(operation.fields).sort(), `${operation.method} ${operation.path}`).toEqual(
        Object.keys(operation.schema.shape).sort(),
      );
  });

  it("malformed JSON text (truncated, trailing garbage, BOM, NaN/Infinity, control characters, bad UTF-8) is 400 invalid_json exactly when JSON.parse refuses it", async () => {
    await fc.assert(bodyProperty(malformedBytes), { numRuns: RUNS });
  });

  it("a wrong type, a missing field, a repeated or an unknown property in any body is 400 validation_failed naming it", async () => {
    await fc.assert(bodyProperty(editedBody), { numRuns: RUNS });
  });

  it("huge and deeply nested values, and bodies around 64 KiB, are 400 or 413, never a crash", async () => {
    await fc.assert(bodyProperty(hugeBody), { numRuns: Math.ceil(RUNS / 2) });
  });

  it("__proto__, constructor and prototype keys, at the top or nested, are refused and pollute nothing", async () => {
    const polluted = (op: BodyOperation) =>
      fc
        .tuple(
          fc.constantFrom(...Object.keys(op.valid), "__proto__", "constructor", "prototype"),
          pollutingText(),
          fc.boolean(),
        )
        .map(([field, value, top]) => {
          const entries = Object.entries(op.valid).filter(([k]) => k !== field);
          const evil = top ? value.slice(1, -1) : `${JSON.stringify(field)}:${value}`;
          // At the top: the polluting keys spliced in beside the valid fields; else one field's value.
          return `{${[...entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`), evil].filter(Boolean).join(",")}}`;
        });
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 1_000 }).chain((i) => {
          const op = operations[i % operations.length]!;
          return fc.record({ op: fc.constant(op), body: polluted(op) });
        }),
        async ({ op, body }) => {
          const bytes = new TextEncoder().encode(body);
          await store.exchange(
            {
              method: op.method,
              path: op.path,
              key: "admin",
              headers: [["content-type", "application/json"]],
              body: bytes,
            },
            (res) => {
              expectBodyOutcome(op, bytes, res);
              // The model agrees: whatever parses here has a key no schema has, or a value of the wrong type.
              if (outcomeOf(op, bytes).kind !== "invalid_json")
                expectOneOf(res, [{ status: 400, code: "validation_failed" }], "polluting keys");
            },
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("$-operators where a string or number belongs are 400 validation_failed naming the field", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 1_000 }).chain((i) => {
          const op = operations[i % operations.length]!;
          return fc.record({
            op: fc.constant(op),
            field: fc.constantFrom(...Object.keys(op.fields)),
            operator: operatorText(),
          });
        }),
        async ({ op, field, operator }) => {
          const entries = { ...op.valid, [field]: operator };
          const body = `{${Object.entries(entries)
            .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
            .join(",")}}`;
          await store.exchange(
            { method: op.method, path: op.path, key: "admin", headers: [["content-type", "application/json"]], body },
            (res) => expectValidationFailedAt(res, [`body.${field}`], `${field}: ${operator}`),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("unicode names (combining marks, RTL, zero-width, emoji, NUL, lone surrogates) are refused or stored exactly as sent, trimmed", async () => {
    const targets = [
      {
        path: "/categories",
        field: "name",
        extra: {},
        read: (id: number) => store.t.stores.categories.ofId(id).then((c) => c?.name),
      },
      {
        path: "/pets",
        field: "name",
        extra: { categoryId: 1 },
        read: (id: number) => store.t.stores.pets.ofId(id).then((p) => p?.name),
      },
      {
        path: "/admin/api-keys",
        field: "label",
        extra: { role: "customer", plan: "free" },
        read: (id: number) => store.t.stores.apiKeys.ofId(id).then((k) => k?.label),
      },
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), unicodeName(), async (target, value) => {
        const body = JSON.stringify({ [target.field]: value, ...target.extra });
        const verdict = verdictOf(name, value);
        const res = await store.exchange(
          { method: "POST", path: target.path, key: "admin", headers: [["content-type", "application/json"]], body },
          (res) => {
            if (verdict === "invalid")
              return expectValidationFailedAt(res, [`body.${target.field}`], JSON.stringify(value));
            if (verdict === "unknown") return;
            if (target.path === "/categories" && res.status === 409)
              return expectOneOf(res, [{ status: 409, code: "category_name_taken" }], "taken");
            expect(res.status, JSON.stringify(res.body)).toBe(201);
          },
        );
        if (res.status !== 201) return;
        // Stored as sent (trimmed), answered as stored, and read back the same.
        expect(res.body[target.field]).toBe(value.trim());
        expect(await target.read(res.body.id)).toBe(value.trim());
        const location = res.headers.get("location")!;
        const read = await store.send({
          method: "GET",
          path: target.path === "/pets" ? `/pets?ids=${res.body.id}` : location,
          key: "admin",
        });
        expect((target.path === "/pets" ? read.body[0] : read.body)[target.field]).toBe(value.trim());
      }),
      { numRuns: RUNS },
    );
  });
});

describe("$-operators as text", () => {
  it("names that look like $-operators are ordinary strings: stored and read back literally", async () => {
    const store = await HostilePetstore.start();
    try {
      for (const text of [
        "$where",
        "$gt",
        '{"$gt": ""}',
        "$ne",
        "$regex:.*",
        "{ $where: 'sleep(1000)' }",
        "a.$b",
        "$",
      ]) {
        const json: HostileRequest["headers"] = [["content-type", "application/json"]];
        const category = await store.exchange(
          {
            method: "POST",
            path: "/categories",
            key: "admin",
            headers: json,
            body: JSON.stringify({ name: text, description: text }),
          },
          (res) => expect(res.status, JSON.stringify(res.body)).toBe(201),
        );
        expect(category.body).toMatchObject({ name: text, description: text });
        const read = await store.send({ method: "GET", path: `/categories/${category.body.id}`, key: "admin" });
        expect(read.body).toEqual(expectedCategory({ id: category.body.id, name: text, description: text }));
        expect(await store.t.stores.categories.ofId(category.body.id)).toMatchObject({ name: text, description: text });

        const pet = await store.exchange(
          {
            method: "POST",
            path: "/pets",
            key: "admin",
            headers: json,
            body: JSON.stringify({ name: text, categoryId: category.body.id }),
          },
          (res) => expect(res.status, JSON.stringify(res.body)).toBe(201),
        );
        const listed = await store.send({ method: "GET", path: `/pets?ids=${pet.body.id}`, key: "admin" });
        expect(listed.body).toEqual([
          expectedPet({ id: pet.body.id, name: text, categoryId: category.body.id, status: "available" }),
        ]);
        expect(await store.t.stores.pets.ofId(pet.body.id)).toMatchObject({ name: text });
      }
    } finally {
      await store.close();
    }
  });
});
