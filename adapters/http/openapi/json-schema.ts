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

/**
 * zod → OpenAPI 3.0.3 Schema Objects, with zod 4's own converter (`target: "openapi-3.0"`), which writes
 * `nullable: true` instead of a `null` type, `enum: [x]` instead of `const`, and boolean `exclusiveMinimum`.
 * Schemas registered with `.meta({ id })` become `components.schemas` entries and are referenced by `$ref`.
 * Request schemas are read on their input side (`io: "input"`): what a client sends, before our transforms.
 */
export class SchemaComponents {
  readonly #schemas = new Map<string, SchemaObject>();

  /** The `components.schemas` object, in the order first seen. */
  get schemas(): Record<string, SchemaObject> {
    return Object.fromEntries(this.#schemas);
  }

  /** The Schema Object for a zod schema: a `$ref` when the schema has an id. */
  convert(schema: z.ZodType): SchemaObject {
    const converted = z.toJSONSchema(schema, {
      target: "openapi-3.0",
      io: "input",
      unrepresentable: "throw",
    }) as SchemaObject;
    const { definitions, ...root } = converted;
    for (const [id, definition] of Object.entries((definitions ?? {}) as Record<string, SchemaObject>)) {
      this.#add(id, tidy(definition));
    }
    return tidy(root);
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

/** Rewrites zod's `#/definitions/` refs to components, refuses what 3.0 does not know, and simplifies. */
const tidy = (node: SchemaObject): SchemaObject => {
  const out: SchemaObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "id" || key === "$id") continue;
    if (notIn303.includes(key)) throw new Error(`OpenAPI 3.0.3 has no "${key}" keyword (from zod's output)`);
    if (key === "$ref" && typeof value === "string") out.$ref = value.replace(/^#\/definitions\//, COMPONENT_PREFIX);
    else if (key === "type" && typeof value !== "string")
      throw new Error(`OpenAPI 3.0.3 needs one type, got ${JSON.stringify(value)}`);
    else if (schemaMaps.has(key))
      out[key] = Object.fromEntries(
        Object.entries(value as SchemaObject).map(([k, v]) => [k, tidy(v as SchemaObject)]),
      );
    else if (schemaValues.has(key) && isSchema(value)) out[key] = tidy(value);
    else if (schemaLists.has(key)) out[key] = (value as SchemaObject[]).map(tidy);
    else out[key] = value;
  }
  if (out.type === "integer") delete out.pattern; // a query/path integer keeps its string pattern from zod's input side
  // `allOf: [{ $ref }]` alone (zod wraps refs that carry metadata) is the `$ref` itself.
  const allOf = out.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && Object.keys(out).length === 1) return allOf[0] as SchemaObject;
  // OpenAPI 3.0 ignores the siblings of a `$ref`; keep them beside an `allOf` instead.
  if (typeof out.$ref === "string" && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    return { allOf: [{ $ref }], ...rest };
  }
  return out;
};

const isSchema = (value: unknown): value is SchemaObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);
