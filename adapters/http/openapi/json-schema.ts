import { z } from "zod";

export type SchemaObject = { [keyword: string]: unknown };

const COMPONENT_PREFIX = "#/components/schemas/";

/** JSON Schema keywords that OpenAPI 3.0.3's Schema Object does not have (3.1 / draft 2019+ only). */
const notIn303 = [
  "$defs",
  "$id",
  "$schema",
  "const",
  "examples",
  "prefixItems",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "contentEncoding",
  "contentMediaType",
  "patternProperties",
];

/** The OpenAPI version a document is written in; its Schema Objects follow. */
export type OpenApiVersion = "3.0.3" | "3.1.0";

/**
 * zod → OpenAPI Schema Objects, with zod 4's own converter. For 3.0.3 (`target: "openapi-3.0"`) it writes
 * `nullable: true` instead of a `null` type, `enum: [x]` instead of `const`, and boolean `exclusiveMinimum`; for
 * 3.1.0 it writes JSON Schema 2020-12, which 3.1's Schema Object is.
 * Schemas registered with `.meta({ id })` become `components.schemas` entries and are referenced by `$ref`.
 * Request schemas are read on their input side (`io: "input"`): what a client sends, before our transforms.
 */
export class SchemaComponents {
  readonly #schemas = new Map<string, SchemaObject>();
  readonly #version: OpenApiVersion;
  constructor(version: OpenApiVersion = "3.0.3") {
    this.#version = version;
  }

  /** The `components.schemas` object, in the order first seen. */
  get schemas(): Record<string, SchemaObject> {
    return Object.fromEntries(this.#schemas);
  }

  /** The Schema Object for a zod schema: a `$ref` when the schema has an id. */
  convert(schema: z.ZodType): SchemaObject {
    const is31 = this.#version === "3.1.0";
    const converted = z.toJSONSchema(schema, {
      target: is31 ? "draft-2020-12" : "openapi-3.0",
      io: "input",
      unrepresentable: "throw",
    }) as SchemaObject;
    const { definitions, $defs, $schema: _dialect, ...root } = converted;
    const tidied = (node: SchemaObject) => tidy(node, this.#version);
    for (const [id, definition] of Object.entries((definitions ?? $defs ?? {}) as Record<string, SchemaObject>)) {
      this.#add(id, tidied(definition));
    }
    return tidied(root);
  }

  #add(id: string, definition: SchemaObject): void {
    const known = this.#schemas.get(id);
    if (known && JSON.stringify(known) !== JSON.stringify(definition)) {
      throw new Error(`Two different schemas are named ${id}`);
    }
    this.#schemas.set(id, definition);
  }
}

const schemaMaps = new Set(["properties"]);
const schemaValues = new Set(["items", "additionalProperties", "not"]);
const schemaLists = new Set(["allOf", "anyOf", "oneOf"]);

/**
 * Rewrites zod's `#/definitions/` (3.0) or `#/$defs/` (3.1) refs to components and simplifies; for 3.0.3, refuses
 * what its Schema Object does not know.
 */
const tidy = (node: SchemaObject, version: OpenApiVersion): SchemaObject => {
  const is303 = version === "3.0.3";
  const out: SchemaObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "id" || key === "$id") continue;
    if (is303 && notIn303.includes(key)) throw new Error(`OpenAPI 3.0.3 has no "${key}" keyword (from zod's output)`);
    if (key === "$ref" && typeof value === "string")
      out.$ref = value.replace(/^#\/(?:definitions|\$defs)\//, COMPONENT_PREFIX);
    else if (is303 && key === "type" && typeof value !== "string")
      throw new Error(`OpenAPI 3.0.3 needs one type, got ${JSON.stringify(value)}`);
    else if (schemaMaps.has(key))
      out[key] = Object.fromEntries(
        Object.entries(value as SchemaObject).map(([k, v]) => [k, tidy(v as SchemaObject, version)]),
      );
    else if (schemaValues.has(key) && isSchema(value)) out[key] = tidy(value, version);
    else if (schemaLists.has(key)) out[key] = (value as SchemaObject[]).map((v) => tidy(v, version));
    else out[key] = value;
  }
  if (out.type === "integer") delete out.pattern; // a query/path integer keeps its string pattern from zod's input side
  // `allOf: [{ $ref }]` alone (zod wraps refs that carry metadata) is the `$ref` itself.
  const allOf = out.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && Object.keys(out).length === 1) return allOf[0] as SchemaObject;
  // OpenAPI 3.0 ignores the siblings of a `$ref`; keep them beside an `allOf` instead (3.1 reads them as they are).
  if (is303 && typeof out.$ref === "string" && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    return { allOf: [{ $ref }], ...rest };
  }
  return out;
};

const isSchema = (value: unknown): value is SchemaObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);
