import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { API_VERSION, errorCodesOf, type OpenApiDocument } from "../../adapters/http/openapi/document.ts";
import { standaloneDocuments } from "../../adapters/http/openapi/standalone.ts";
import { statusOfCode } from "../../adapters/http/problem.ts";
import { route, type Route } from "../../adapters/http/route.ts";
import { routeTable } from "../../adapters/http/route-table.ts";
import { startTestPetstore, type TestPetstore } from "../support/test-petstore.ts";
import { free } from "../support/limits.ts";

/** PRODUCT.md §4: every operation of the public API, with its success status. */
const productOperations: [string, string, number][] = [
  ["GET", "/pets", 200],
  ["POST", "/pets", 201],
  ["GET", "/pets/{petId}", 200],
  ["PUT", "/pets/{petId}", 200],
  ["DELETE", "/pets/{petId}", 204],
  ["GET", "/categories", 200],
  ["POST", "/categories", 201],
  ["GET", "/categories/{categoryId}", 200],
  ["PUT", "/categories/{categoryId}", 200],
  ["DELETE", "/categories/{categoryId}", 204],
  ["POST", "/store/orders", 201],
  ["GET", "/store/orders", 200],
  ["GET", "/store/orders/{orderId}", 200],
  ["PATCH", "/store/orders/{orderId}", 200],
  ["DELETE", "/store/orders/{orderId}", 204],
  ["GET", "/store/inventory", 200],
  ["GET", "/store/inventory/{petId}", 200],
  ["PUT", "/store/inventory/{petId}", 200],
  ["GET", "/me", 200],
];

/** PRODUCT.md §4's notable errors, per operation. */
const notableErrors: Record<string, string[]> = {
  "POST /pets": ["unknown_category"],
  "GET /pets/{petId}": ["not_found", "gone"],
  "PUT /pets/{petId}": ["not_found", "unknown_category", "invalid_transition"],
  "DELETE /pets/{petId}": ["not_found", "pet_has_open_orders"],
  "POST /categories": ["category_name_taken"],
  "GET /categories/{categoryId}": ["not_found"],
  "PUT /categories/{categoryId}": ["not_found", "category_name_taken"],
  "DELETE /categories/{categoryId}": ["not_found", "category_in_use"],
  "POST /store/orders": ["unknown_pet", "pet_not_available", "insufficient_stock"],
  "GET /store/orders/{orderId}": ["not_found"],
  "PATCH /store/orders/{orderId}": ["not_found", "order_completed"],
  "DELETE /store/orders/{orderId}": ["not_found", "order_completed"],
  "GET /store/inventory/{petId}": ["not_found"],
  "PUT /store/inventory/{petId}": ["not_found"],
};

type Json = Record<string, any>;
/** The document's operations; HEAD and OPTIONS, which every path has, only with `all`. */
const operationsOf = (document: OpenApiDocument, all = false) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => all || (method !== "head" && method !== "options"))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op: op as Json })),
  );

/** Every Schema Object in the document (components, parameters, bodies, responses, headers), walked. */
const schemasIn = (node: unknown, inSchema = false, found: Json[] = []): Json[] => {
  if (Array.isArray(node)) node.forEach((item) => schemasIn(item, inSchema, found));
  else if (node && typeof node === "object") {
    if (inSchema) found.push(node as Json);
    for (const [key, value] of Object.entries(node)) {
      if (key === "example" || key === "examples") continue;
      const entersSchema =
        key === "schema" ||
        (inSchema && ["items", "additionalProperties", "allOf", "anyOf", "oneOf", "not"].includes(key));
      if (key === "schemas" || (inSchema && key === "properties")) {
        for (const child of Object.values(value as Json)) schemasIn(child, true, found);
      } else schemasIn(value, entersSchema || (inSchema && false), found);
    }
  }
  return found;
};

describe("the public OpenAPI document", () => {
  const document = standaloneDocuments().public;

  it("is OpenAPI 3.0.3, at the release's version, titled Petstore, with exactly the tags Pets, Store and Account", () => {
    expect(document.openapi).toBe("3.0.3");
    expect(document.info).toMatchObject({ title: "Petstore", version: API_VERSION });
    expect((document.tags as Json[]).map((t) => t.name)).toEqual(["Pets", "Store", "Account"]);
    for (const { op } of operationsOf(document, true)) expect(["Pets", "Store", "Account"]).toContain(op.tags[0]);
  });

  it("has every operation of PRODUCT.md §4 and nothing else (no admin operations)", () => {
    const documented = operationsOf(document).map(({ key, op }) => [
      key,
      Number(Object.keys(op.responses).find((s) => s.startsWith("2"))),
    ]);
    expect(documented).toEqual(productOperations.map(([method, path, status]) => [`${method} ${path}`, status]));
    expect(Object.keys(document.paths).some((p) => p.startsWith("/admin"))).toBe(false);
  });

  it("has GET /me for any key, answering Me, 401 unauthorized and 429 rate_limited with Retry-After (not 403 forbidden)", () => {
    const me = document.paths["/me"]!.get!;
    expect(me.tags).toEqual(["Account"]);
    expect(me.responses["200"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/Me" });
    expect(Object.keys(me.responses["401"]!.content!["application/json"]!.examples!)).toEqual(["unauthorized"]);
    expect(Object.keys(me.responses["429"]!.content!["application/json"]!.examples!)).toEqual(["rate_limited"]);
    expect(me.responses["429"]!.headers).toHaveProperty("Retry-After");
    expect(Object.keys(me.responses["403"]!.content!["application/json"]!.examples!)).toEqual(["api_key_banned"]);
    expect(standaloneDocuments().admin.paths).not.toHaveProperty("/me");
  });

  it("names its schemas as the seed does, with int64 ids and the PetStatus enum (their fields: wireShapes below)", () => {
    const schemas = document.components.schemas as Json;
    for (const name of [
      "PetStatus",
      "NewPet",
      "Pet",
      "Pets",
      "NewCategory",
      "Category",
      "Order",
      "InventoryItem",
      "InventoryUpdate",
      "Error",
    ]) {
      expect(schemas, name).toHaveProperty(name);
    }
    expect(schemas.PetStatus).toMatchObject({ type: "string", enum: ["available", "pending", "sold"] });
    expect(schemas.Error.required).toEqual(["code", "message", "status"]);
    for (const [schema, field] of [
      ["Pet", "id"],
      ["Pet", "categoryId"],
      ["Category", "id"],
      ["Order", "id"],
      ["Order", "petId"],
      ["InventoryItem", "petId"],
    ]) {
      expect(schemas[schema as string].properties[field as string], `${schema}.${field}`).toMatchObject({
        type: "integer",
        format: "int64",
      });
    }
    expect(schemas.Order.properties.shipDate).toMatchObject({ type: "string", format: "date-time" });
  });

  it("uses no keyword that OpenAPI 3.0.3 lacks (no type arrays, const, $defs, examples in schemas…)", () => {
    const forbidden = [
      "const",
      "$defs",
      "$id",
      "$schema",
      "examples",
      "prefixItems",
      "unevaluatedProperties",
      "propertyNames",
      "if",
      "dependentRequired",
    ];
    const schemas = schemasIn(document);
    expect(schemas.length).toBeGreaterThan(100);
    for (const schema of schemas) {
      for (const key of forbidden) expect(schema, JSON.stringify(schema)).not.toHaveProperty(key);
      if ("type" in schema) expect(typeof schema.type).toBe("string");
      if ("exclusiveMinimum" in schema) expect(typeof schema.exclusiveMinimum).toBe("boolean");
      if ("$ref" in schema) expect(Object.keys(schema)).toEqual(["$ref"]);
    }
    expect(JSON.stringify(document)).not.toMatch(/#\/definitions\//);
  });

  it("documents every array query parameter comma-separated (form, explode: false), saying the repeated form is accepted too", () => {
    const lists = operationsOf(document).flatMap(({ key, op }) =>
      ((op.parameters ?? []) as Json[])
        .filter((p) => p.in === "query" && p.schema.type === "array")
        .map((p) => ({ key, p })),
    );
    expect(lists.map(({ key, p }) => `${key} ${p.name}`)).toEqual([
      "GET /pets status",
      "GET /pets ids",
      "GET /store/inventory status",
    ]);
    for (const { key, p } of lists) {
      expect(p, key).toMatchObject({ style: "form", explode: false });
      expect(p.description, key).toContain(`the repeated form \`${p.name}=`);
    }
  });

  it("documents the rate-limit headers on every response, Retry-After on 429, Location on 201 and paging on lists", () => {
    for (const { key, op } of operationsOf(document, true)) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        // 414 included: refused by the server's guard, it counts against the client address's window (docs/api.md).
        for (const header of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]) {
          expect(response.headers?.[header], `${key} ${status} ${header}`).toEqual({
            $ref: `#/components/headers/${header}`,
          });
        }
      }
      expect(op.responses["429"]?.headers?.["Retry-After"], key).toEqual({ $ref: "#/components/headers/Retry-After" });
      if (op.responses["201"]) expect(op.responses["201"].headers.Location, key).toBeDefined();
      if (
        (key.startsWith("GET") && op.responses["200"].content["application/json"].schema.type === "array") ||
        key === "GET /pets"
      ) {
        expect(op.responses["200"].headers.Link, key).toEqual({ $ref: "#/components/headers/Link-Next" });
        expect(op.parameters.map((p: Json) => p.name).slice(0, 2), key).toEqual(["limit", "after"]);
      }
    }
    const headers = document.components.headers as Json;
    for (const header of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"])
      expect(headers[header].required).toBe(true);
  });

  it("gives every error response the Error schema and an example body per code, with PRODUCT.md's notable errors", () => {
    for (const { key, op } of operationsOf(document)) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        if (Number(status) < 400) continue;
        const media = response.content["application/json"];
        expect(media.schema, `${key} ${status}`).toEqual({ $ref: "#/components/schemas/Error" });
        for (const [code, example] of Object.entries(media.examples as Json)) {
          expect(example.value, `${key} ${status} ${code}`).toMatchObject({
            code,
            status: Number(status),
            message: expect.any(String),
          });
          expect(statusOfCode[code as keyof typeof statusOfCode]).toBe(Number(status));
        }
      }
      const codes = Object.values(op.responses as Json).flatMap((r: Json) =>
        Object.keys(r.content?.["application/json"]?.examples ?? {}),
      );
      // Any valid key may call GET /me: no role is refused.
      if (key !== "GET /me") expect(codes, key).toContain("forbidden");
      for (const code of [
        "unauthorized",
        "api_key_banned",
        "rate_limited",
        "internal_error",
        "service_unavailable",
        "validation_failed",
      ]) {
        expect(codes, key).toContain(code);
      }
      for (const code of notableErrors[key] ?? []) expect(codes, key).toContain(code);
      if (op.requestBody)
        for (const code of ["invalid_json", "payload_too_large", "unsupported_media_type"])
          expect(codes, key).toContain(code);
    }
  });

  it("documents 414 uri_too_long on every operation, OPTIONS and HEAD included: any target can be too long", () => {
    for (const { key, op } of operationsOf(document, true)) {
      expect(op.responses["414"], key).toBeDefined();
    }
    for (const { key, op } of operationsOf(standaloneDocuments().admin, true))
      expect(op.responses["414"], key).toBeDefined();
  });

  it("gives every request body an example that its own schema accepts (public and operators' documents)", () => {
    const all = [...operationsOf(document), ...operationsOf(standaloneDocuments().admin)];
    const withBodies = all.filter(({ op }) => op.requestBody);
    expect(withBodies.length).toBeGreaterThanOrEqual(10);
    for (const { key, op } of withBodies) {
      const example = op.requestBody.content["application/json"].example;
      expect(example, key).toBeDefined();
      const route = routeTable.find((r) => r.operationId === op.operationId)!;
      expect(route.input!.body!.safeParse(example).success, key).toBe(true);
    }
  });

  it("marks the HEAD and OPTIONS twins for the docs page to leave out (x-docs-hidden), and nothing else", () => {
    for (const { key, op } of operationsOf(document, true)) {
      const twin = key.startsWith("HEAD ") || key.startsWith("OPTIONS ");
      expect(op["x-docs-hidden"], key).toBe(twin ? true : undefined);
    }
  });

  it("documents HEAD beside every GET (same statuses and headers, no bodies) and OPTIONS on every path (204 with Allow, no key)", () => {
    for (const [path, item] of Object.entries(document.paths)) {
      const options = item.options as Json;
      expect(options, path).toBeDefined();
      expect(options.security, path).toEqual([]);
      expect(options.responses["204"].headers.Allow, path).toEqual({ $ref: "#/components/headers/Allow" });
      if (!item.get) {
        expect(item.head, path).toBeUndefined();
        continue;
      }
      const get = item.get as Json;
      const head = item.head as Json;
      expect(Object.keys(head.responses), path).toEqual(Object.keys(get.responses));
      for (const [status, response] of Object.entries(head.responses as Json)) {
        expect(response.content, `HEAD ${path} ${status}`).toBeUndefined();
        expect(response.headers, `HEAD ${path} ${status}`).toEqual(get.responses[status].headers);
      }
      expect(head.parameters, path).toEqual(get.parameters);
    }
  });

  it("marks GET /pets/{petId} deprecated with its sunset, the orders listing without try-out, and the stability levels", () => {
    const getPet = document.paths["/pets/{petId}"]!.get! as Json;
    expect(getPet).toMatchObject({ deprecated: true, "x-sunset": "2027-06-30T00:00:00.000Z" });
    for (const status of ["200", "404", "410"]) {
      expect(Object.keys(getPet.responses[status].headers), status).toEqual(
        expect.arrayContaining(["Deprecation", "Sunset", "Link"]),
      );
    }
    expect(document.paths["/store/orders"]!.get!["x-hideTryItPanel"]).toBe(true);
    expect(document.paths["/store/inventory/{petId}"]!.put!).toMatchObject({
      "x-stability": "beta",
      "x-badges": [{ name: "Beta" }],
    });
    expect(document.paths["/store/orders/{orderId}"]!.patch!).toMatchObject({
      "x-stability": "experimental",
      "x-badges": [{ name: "Experimental" }],
    });
    expect(document.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: "apiKey", in: "header", name: "X-API-Key" }),
    });
    expect(document.security).toEqual([{ apiKey: [] }]);
  });

  it("derives the errors of an operation from its access, inputs and flags", () => {
    const op = (declared: Partial<Route>, access: Route["access"] = "catalog:read"): Route =>
      route({
        method: "GET",
        path: "/x",
        operationId: "x",
        tag: "Pets",
        summary: "x",
        output: { status: 200, description: "x" },
        handle: () => ({}),
        ...declared,
        access,
      } as Route);
    expect(errorCodesOf(op({}, "public"))).toEqual([
      "validation_failed",
      "uri_too_long",
      "rate_limited",
      "internal_error",
      "service_unavailable",
    ]);
    expect(errorCodesOf(op({}, "unlimited"))).toEqual(["validation_failed", "uri_too_long", "internal_error"]);
    expect(errorCodesOf(op({ method: "POST", input: { body: z.object({}) }, idempotent: true }))).toEqual([
      "validation_failed",
      "invalid_json",
      "unauthorized",
      "forbidden",
      "api_key_banned",
      "idempotency_request_in_progress",
      "payload_too_large",
      "uri_too_long",
      "unsupported_media_type",
      "idempotency_key_reused",
      "rate_limited",
      "internal_error",
      "service_unavailable",
    ]);
    expect(
      errorCodesOf(
        op({
          method: "PUT",
          path: "/x/{id}",
          input: { path: z.object({ id: z.string() }) },
          versioned: { letter: "x", idParam: "id" },
        }),
      ),
    ).toContain("precondition_failed");
  });
});

/**
 * Every field of every resource on the wire, "?" for an optional one: the one place a new field is written down in
 * the tests. Every answer a test sees is checked against these schemas (test/support/openapi-drift.ts).
 */
const wireShapes: [keyof ReturnType<typeof standaloneDocuments>, string, string][] = [
  ["public", "NewPet", "name categoryId status?"],
  ["public", "Pet", "id name categoryId status"],
  ["public", "NewCategory", "name description?"],
  ["public", "Category", "id name description?"],
  ["public", "NewOrder", "petId quantity shipDate?"],
  ["public", "Order", "id? petId? quantity? shipDate? complete?"],
  ["public", "InventoryItem", "petId quantity status"],
  ["admin", "NewApiKey", "label role plan limits?"],
  ["admin", "ApiKey", "id label role plan limits createdAt revoked bannedUntil?"],
  ["admin", "NewWebhook", "url events description?"],
  ["admin", "Webhook", "id url events description? createdAt previousSecretExpiresAt?"],
];

describe("the wire shape of every resource", () => {
  it.each(wireShapes)("%s %s has exactly the fields %s", (documentKey, name, shape) => {
    const schema = (standaloneDocuments()[documentKey].components.schemas as Json)[name];
    const required: string[] = schema.required ?? [];
    const fields = Object.keys(schema.properties).map((field) => (required.includes(field) ? field : `${field}?`));
    expect(fields.join(" ")).toBe(shape);
  });
});

describe("the operators' OpenAPI document", () => {
  const document = standaloneDocuments().admin;
  it("has the admin operations, the probes and the reference endpoints, and none of the public ones", () => {
    const keys = operationsOf(document).map((o) => o.key);
    for (const key of [
      "POST /admin/api-keys",
      "GET /admin/api-keys",
      "GET /admin/api-keys/{keyId}",
      "PATCH /admin/api-keys/{keyId}",
      "DELETE /admin/api-keys/{keyId}",
      "POST /admin/api-keys/{keyId}/unban",
      "GET /admin/openapi.json",
      "GET /openapi.json",
      "GET /docs",
      "GET /healthz",
      "GET /readyz",
    ]) {
      expect(keys).toContain(key);
    }
    expect(keys.some((k) => /\/(pets|categories|store)/.test(k))).toBe(false);
    expect(document.paths["/healthz"]!.get!.security).toEqual([]);
    expect(document.paths["/openapi.json"]!.get!.security).toEqual([]);
    expect(document.paths["/admin/openapi.json"]!.get!.security).toBeUndefined();
  });
});

describe("serving the reference", () => {
  let t: TestPetstore;
  beforeEach(async () => {
    t = await startTestPetstore({ env: { PETSTORE_GET_PET_SUNSET_AT: "2028-01-31" } });
  });
  afterEach(() => t.close());

  it("GET /openapi.json needs no key, is rate limited per address and is the public document with the configured sunset", async () => {
    const res = await t.client.get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe(String(free.perMinute));
    const expected = standaloneDocuments({
      deprecatedAt: new Date("2026-09-01T00:00:00Z"),
      sunsetAt: new Date("2028-01-31T00:00:00Z"),
    }).public;
    expect(res.body).toEqual(expected);
    expect(res.body.paths["/pets/{petId}"].get["x-sunset"]).toBe("2028-01-31T00:00:00.000Z");
  });

  it("GET /admin/openapi.json needs an admin key", async () => {
    expect((await t.client.get("/admin/openapi.json")).status).toBe(401);
    expect((await t.client.get("/admin/openapi.json", { key: await t.newKey("staff") })).body.code).toBe("forbidden");
    const res = await t.client.get("/admin/openapi.json", { key: t.adminKey });
    expect(res.status).toBe(200);
    expect(res.body.info.title).toBe("Petstore administration");
    expect(Object.keys(res.body.paths)).toContain("/admin/api-keys");
  });

  it("GET /docs is an HTML page that may load nothing from other hosts, with its assets served here", async () => {
    const page = await t.client.get("/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toMatch(
      /default-src 'none'; script-src 'self'.*connect-src 'self'/,
    );
    expect(page.headers.get("x-ratelimit-remaining")).toBe(String(free.perMinute - 1));
    const sources = [...String(page.body).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.filter((s) => !s.startsWith("/") && !s.startsWith("data:"))).toEqual([]);
    for (const asset of sources.filter((s) => s.startsWith("/docs/assets/"))) {
      const res = await t.client.get(asset);
      expect(res.status, asset).toBe(200);
      expect(String(res.body).length, asset).toBeGreaterThan(100);
    }
    expect((await t.client.post("/docs")).status).toBe(405);
    expect((await t.client.get("/docs/assets/nothing.js")).status).toBe(404);
  });
});
