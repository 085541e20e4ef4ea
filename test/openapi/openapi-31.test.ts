import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { API_VERSION, type OpenApiDocument } from "../../adapters/http/openapi/document.ts";
import { standaloneDocuments } from "../../adapters/http/openapi/standalone.ts";
import { webhookEventTypes } from "../../core/webhooks/webhook-event.ts";
import { startTestPetstore } from "../support/test-petstore.ts";

type Json = Record<string, any>;

/**
 * A Schema Object in one spelling for both versions: 3.0.3's `nullable`, `enum: [x]`, boolean `exclusiveMinimum`
 * and `allOf: [{ $ref }]` beside a ref's siblings become 3.1's `null` type, `const`, numeric bounds and plain `$ref`.
 * Everything else must already be the same.
 */
const canonical = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(canonical);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = key === "example" ? value : canonical(value);
  if (Array.isArray(out.enum) && out.enum.length === 1 && out.type !== undefined) {
    out.const = out.enum[0];
    delete out.enum;
  }
  if (out.nullable === true) {
    out.type = [out.type, "null"].flat();
    delete out.nullable;
  }
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof out[flag] === "boolean") {
      if (out[flag]) out[flag] = out[bound];
      else delete out[flag];
      if (out[flag] !== undefined) delete out[bound];
    }
  }
  if (Array.isArray(out.allOf) && out.allOf.length === 1 && typeof out.allOf[0]?.$ref === "string") {
    const { allOf, ...rest } = out;
    return { $ref: allOf[0].$ref, ...rest };
  }
  return out;
};

const refsIn = (node: unknown, found = new Set<string>()): Set<string> => {
  if (Array.isArray(node)) node.forEach((item) => refsIn(item, found));
  else if (node && typeof node === "object")
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") found.add(value.replace("#/components/schemas/", ""));
      else refsIn(value, found);
    }
  return found;
};

/** The schema components a node needs, transitively. */
const schemasReachedFrom = (document: OpenApiDocument, node: unknown): Set<string> => {
  const reached = new Set<string>();
  const queue = [...refsIn(node)];
  while (queue.length) {
    const name = queue.pop()!;
    if (reached.has(name)) continue;
    reached.add(name);
    queue.push(...refsIn(document.components.schemas![name]));
  }
  return reached;
};

describe("the OpenAPI 3.1 rendering of the public document", () => {
  const { public: v30, public31: v31 } = standaloneDocuments();

  it("is OpenAPI 3.1.0 with the 3.0.3 document's info and servers", () => {
    expect(v30.openapi).toBe("3.0.3");
    expect(v31.openapi).toBe("3.1.0");
    expect(v31.info).toEqual(v30.info);
    expect(v31.info.version).toBe(API_VERSION);
    expect(v31.servers).toEqual(v30.servers);
    expect(v31.security).toEqual(v30.security);
    expect(v31.components.securitySchemes).toEqual(v30.components.securitySchemes);
    expect(v31.components.headers).toEqual(v30.components.headers);
  });

  it("has the same paths and, on each, the same operations, equal but for the Schema Objects' dialect", () => {
    expect(Object.keys(v31.paths)).toEqual(Object.keys(v30.paths));
    for (const [path, item] of Object.entries(v30.paths)) {
      expect(Object.keys(v31.paths[path]!), path).toEqual(Object.keys(item));
      for (const [method, operation] of Object.entries(item))
        expect(canonical(v31.paths[path]![method]), `${method.toUpperCase()} ${path}`).toEqual(canonical(operation));
    }
  });

  it("has every schema of the 3.0.3 document, equal but for the dialect; its others are the webhooks' payloads", () => {
    const schemas30 = v30.components.schemas as Json;
    const schemas31 = v31.components.schemas as Json;
    for (const [name, schema] of Object.entries(schemas30))
      expect(canonical(schemas31[name]), name).toEqual(canonical(schema));
    const extra = Object.keys(schemas31).filter((name) => !(name in schemas30));
    const forWebhooks = schemasReachedFrom(v31, v31.webhooks);
    expect(extra.length).toBeGreaterThan(0);
    for (const name of extra) expect(forWebhooks, name).toContain(name);
    // The comparison is not vacuous: the two documents do spell some schemas differently.
    const shared = (schemas: Json) => JSON.stringify(Object.keys(schemas30).map((name) => schemas[name]));
    expect(shared(schemas31)).not.toEqual(shared(schemas30));
  });

  it("lists every event type under webhooks, with its payload schema and the Standard Webhooks headers", () => {
    const webhooks = v31.webhooks as Json;
    expect(Object.keys(webhooks).sort()).toEqual([...webhookEventTypes].sort());
    for (const type of webhookEventTypes) {
      const post = webhooks[type].post as Json;
      expect(post.tags).toEqual(["Webhooks"]);
      expect(
        post.parameters.map((p: Json) => [p.name, p.in, p.required]),
        type,
      ).toEqual([
        ["webhook-id", "header", true],
        ["webhook-timestamp", "header", true],
        ["webhook-signature", "header", true],
      ]);
      const schema = post.requestBody.content["application/json"].schema as Json;
      const component = (v31.components.schemas as Json)[schema.$ref.replace("#/components/schemas/", "")];
      expect(component.properties.type, type).toEqual({ type: "string", const: type });
      expect(post.responses["2XX"]).toBeDefined();
    }
    expect(v31.tags).toEqual([...(v30.tags as Json[]), expect.objectContaining({ name: "Webhooks" })]);
    expect(v30.webhooks).toBeUndefined();
  });

  it("has schemas that JSON Schema 2020-12 compiles, and operationIds unique across paths and webhooks", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ components: v31.components }, "doc");
    for (const name of Object.keys(v31.components.schemas!))
      expect(() => ajv.getSchema(`doc#/components/schemas/${name}`), name).not.toThrow();
    const ids = [
      ...Object.values(v31.paths).flatMap((item) => Object.values(item).map((op) => op.operationId)),
      ...Object.values(v31.webhooks as Json).map((item) => item.post.operationId),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("is served at GET /openapi-3.1.json without a key, compressed and revalidated like /openapi.json", async () => {
    const t = await startTestPetstore();
    try {
      const served = await t.client.get("/openapi-3.1.json");
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(served.headers.get("etag")).toMatch(/^"/);
      expect(served.body.openapi).toBe("3.1.0");
      expect(Object.keys(served.body.webhooks).sort()).toEqual([...webhookEventTypes].sort());
      const again = await t.client.get("/openapi-3.1.json", {
        headers: { "if-none-match": served.headers.get("etag")! },
      });
      expect(again.status).toBe(304);
      const other = await t.client.get("/openapi.json");
      expect(other.body.openapi).toBe("3.0.3");
      expect(served.headers.get("etag")).not.toBe(other.headers.get("etag"));
    } finally {
      await t.close();
    }
  });
});
