/**
 * The Python client's generated module (clients/python/src/petstore_client/_generated.py), from the public OpenAPI
 * document: a TypedDict or alias per schema, the error codes as a Literal, and a method per operation for the sync
 * and the async client. `npm run generate:client` writes it and `npm run check:client` fails when it is stale, as for
 * the TypeScript client. Hand-written behaviour (retries, errors, paging) is in the package's other modules.
 */
import type { OpenApiDocument, OperationObject } from "../../adapters/http/openapi/document.ts";

type Json = Record<string, any>;

const pyString = (value: string) => JSON.stringify(value);
const pyLiteral = (value: unknown): string =>
  typeof value === "string" ? pyString(value) : value === true ? "True" : value === false ? "False" : String(value);

const snake = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toLowerCase();

const refName = (ref: string) => ref.replace("#/components/schemas/", "");

const pascal = (name: string) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("");

const PY_KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);

/**
 * The module's TypedDicts: a component schema's objects, and the objects nested in them, each named after the place
 * it sits (`Me.limits` → `MeLimits`). A class whose fields are not all identifiers (`from`) takes TypedDict's
 * functional form, placed at the end of the module: its types are evaluated when it is defined.
 */
class Classes {
  readonly classes: string[] = [];
  readonly functional: string[] = [];
  readonly taken = new Set<string>();
  readonly finals = new Set<string>();

  /** The Python type of a Schema Object; an inline object with properties becomes a class named `name`. */
  typeOf(schema: Json, name?: string): string {
    if (schema.$ref) return refName(schema.$ref as string);
    if (schema.enum) return `Literal[${(schema.enum as unknown[]).map(pyLiteral).join(", ")}]`;
    if ("const" in schema) return `Literal[${pyLiteral(schema.const)}]`;
    for (const key of ["anyOf", "oneOf"]) {
      const members = schema[key] as Json[] | undefined;
      if (Array.isArray(members))
        return members
          .map((member, i) => {
            const memberName = this.#memberName(name, members, i);
            // Final, so that `"delta" in data` tells the members apart under mypy.
            if (memberName && member.type === "object" && member.properties) this.finals.add(memberName);
            return this.typeOf(member, memberName);
          })
          .join(" | ");
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return this.typeOf(schema.allOf[0] as Json, name);
    switch (schema.type) {
      case "string":
        return "str";
      case "integer":
        return "int";
      case "number":
        return "float";
      case "boolean":
        return "bool";
      case "array":
        return `list[${this.typeOf(schema.items as Json, name && `${name}Item`)}]`;
      case "object":
        if (schema.properties && Object.keys(schema.properties as Json).length > 0 && name)
          return this.define(name, schema);
        return schema.additionalProperties &&
          typeof schema.additionalProperties === "object" &&
          Object.keys(schema.additionalProperties as Json).length > 0
          ? `dict[str, ${this.typeOf(schema.additionalProperties as Json)}]`
          : "dict[str, Any]";
      default:
        return "Any";
    }
  }

  /** An inline object of an anyOf: named by a property only it has (`InventoryChangedEventData` + `Delta`). */
  #memberName(name: string | undefined, members: Json[], index: number): string | undefined {
    if (!name) return undefined;
    const own = Object.keys((members[index]!.properties ?? {}) as Json).find(
      (field) => !members.some((other, i) => i !== index && field in ((other.properties ?? {}) as Json)),
    );
    return `${name}${own ? pascal(own) : index + 1}`;
  }

  define(name: string, schema: Json): string {
    if (this.taken.has(name)) throw new Error(`two schemas would be the Python class ${name}`);
    this.taken.add(name);
    const required = new Set((schema.required ?? []) as string[]);
    const fields = Object.entries(schema.properties as Record<string, Json>).map(([field, property]) => {
      const type = this.typeOf(property, `${name}${pascal(field)}`);
      return {
        field,
        type: required.has(field) ? type : `NotRequired[${type}]`,
        description: property.description as string | undefined,
      };
    });
    const plain = fields.every(({ field }) => /^[A-Za-z_]\w*$/.test(field) && !PY_KEYWORDS.has(field));
    if (plain) {
      this.classes.push(
        `${this.finals.has(name) ? "@final\n" : ""}class ${name}(TypedDict):\n${docstring(schema.description as string | undefined, "    ")}` +
          fields
            .map(({ field, type, description }) => `    ${field}: ${type}\n${docstring(description, "    ")}`)
            .join(""),
      );
    } else {
      this.functional.push(
        `${name} = TypedDict(${pyString(name)}, {${fields.map(({ field, type }) => `${pyString(field)}: ${type}`).join(", ")}})\n` +
          docstring(schema.description as string | undefined, ""),
      );
    }
    return name;
  }
}

/** A query parameter's type: the `"true"`/`"false"` enum is a bool (sent as the API spells it). */
const parameterType = (classes: Classes, schema: Json): string =>
  Array.isArray(schema.enum) && [...(schema.enum as unknown[])].sort().join() === "false,true"
    ? "bool"
    : classes.typeOf(schema);

const docstring = (text: string | undefined, indent: string) =>
  text ? `${indent}"""${text.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"')}"""\n` : "";

const renderSchemas = (classes: Classes, schemas: Record<string, Json>): string => {
  const objects = Object.entries(schemas).filter(([, s]) => s.type === "object" && s.properties);
  const objectNames = new Set(objects.map(([name]) => name));
  const aliases = Object.entries(schemas).filter(([name]) => !objectNames.has(name));
  for (const [name, schema] of objects) classes.define(name, schema);
  const usesClass = (expression: string) =>
    [...classes.taken].some((name) => new RegExp(`\\b${name}\\b`).test(expression));
  const alias = ([name, schema]: [string, Json]) =>
    `${name}: TypeAlias = ${classes.typeOf(schema, name)}\n${docstring(schema.description as string | undefined, "")}`;
  const early = aliases.filter(([, s]) => !usesClass(classes.typeOf(s)));
  const late = aliases.filter(([, s]) => usesClass(classes.typeOf(s)));
  return [...early.map(alias), ...classes.classes, ...late.map(alias), ...classes.functional].join("\n\n");
};

interface Operation {
  method: string;
  path: string;
  op: OperationObject & Json;
}

const operationsOf = (document: OpenApiDocument, include: (path: string) => boolean = () => true): Operation[] =>
  Object.entries(document.paths)
    .filter(([path]) => include(path))
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== "head" && method !== "options")
        .map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as OperationObject & Json })),
    );

/** One way to call an operation: its expansion (if any) and what it then answers. */
interface Variant {
  expand: string | undefined;
  result: string;
  item: string | undefined;
}

/**
 * The answers of an operation that takes `expand`: one per value, each the member of the answer's anyOf that has
 * the expanded property, and the member with none of them without `expand`.
 */
const variantsOf = (
  classes: Classes,
  expand: Json | undefined,
  resultSchema: Json | undefined,
  schemas: Record<string, Json>,
): Variant[] => {
  const whole = (schema: Json | undefined): Variant => {
    const list = schema?.$ref ? schemas[refName(schema.$ref as string)] : schema;
    return {
      expand: undefined,
      result: schema ? classes.typeOf(schema) : "None",
      item: list?.type === "array" ? classes.typeOf(list.items as Json) : undefined,
    };
  };
  if (!expand) return [whole(resultSchema)];
  const values = (expand.schema as Json).enum as string[];
  const isList = resultSchema?.type === "array";
  const members = ((isList ? (resultSchema!.items as Json) : resultSchema)?.anyOf ?? []) as Json[];
  const has = (member: Json, field: string) =>
    field in ((schemas[refName(member.$ref as string)]?.properties ?? {}) as Json);
  const shape = (member: Json | undefined, value: string | undefined): Variant => {
    if (!member?.$ref) throw new Error(`no answer schema for expand=${value ?? "(none)"}`);
    const item = refName(member.$ref as string);
    return { expand: value, result: isList ? `list[${item}]` : item, item: isList ? item : undefined };
  };
  return [
    shape(
      members.find((m) => values.every((v) => !has(m, v))),
      undefined,
    ),
    ...values.map((value) =>
      shape(
        members.find((m) => has(m, value)),
        value,
      ),
    ),
  ];
};

/** The parameters a method takes, its call to the core and its answers. */
const signatureOf = (classes: Classes, { method, path, op }: Operation, schemas: Record<string, Json>) => {
  const parameters = (op.parameters ?? []) as Json[];
  const pathParams = parameters.filter((p) => p.in === "path");
  const queryParams = parameters.filter((p) => p.in === "query");
  const expand = queryParams.find((p) => p.name === "expand");
  const ifMatch = parameters.some((p) => p.in === "header" && p.name === "If-Match");
  const bodySchema = op.requestBody?.content?.["application/json"]?.schema as Json | undefined;
  const success = Object.entries(op.responses).find(([status]) => status.startsWith("2"))!;
  const resultSchema = success[1].content?.["application/json"]?.schema as Json | undefined;
  const queryArg = (p: Json, variant?: Variant) =>
    p === expand && variant
      ? variant.expand === undefined
        ? "expand: None = None"
        : `expand: Literal[${pyString(variant.expand)}]`
      : `${snake(p.name as string)}: ${parameterType(classes, p.schema as Json)} | None = None`;
  const query = `{${queryParams.map((p) => `${pyString(p.name as string)}: ${snake(p.name as string)}`).join(", ")}}`;
  const args = (variant?: Variant) => [
    "self",
    ...pathParams.map((p) => `${snake(p.name as string)}: ${classes.typeOf(p.schema as Json)}`),
    ...(bodySchema ? [`body: ${classes.typeOf(bodySchema)}`] : []),
    ...(queryParams.length || ifMatch ? ["*"] : []),
    ...queryParams.map((p) => queryArg(p, variant)),
    ...(ifMatch ? ["if_match: str | None = None"] : []),
  ];
  const pageArgs = (variant?: Variant) => ["self", "*", ...queryParams.map((p) => queryArg(p, variant))];
  const call = [
    pyString(method),
    pyString(path),
    `path_params={${pathParams.map((p) => `${pyString(p.name as string)}: ${snake(p.name as string)}`).join(", ")}}`,
    `query=${query}`,
    ...(bodySchema ? ["body=body"] : []),
    ...(ifMatch ? ["if_match=if_match"] : []),
  ].join(", ");
  const variants = variantsOf(classes, expand, resultSchema, schemas);
  const paged = Boolean(variants[0]!.item && success[1].headers?.Link);
  return { args, pageArgs, call, query, variants, paged };
};

const summaryOf = ({ method, path, op }: Operation) => `${op.summary} (\`${method} ${path}\`).`;

/** A method, with an `@overload` per variant when there are several (one answer type per `expand` value). */
const renderMethod = (
  def: string,
  name: string,
  argsOf: (variant?: Variant) => string[],
  variants: Variant[],
  resultOf: (variant: Variant) => string,
  doc: string,
  body: (result: string) => string,
): string => {
  const overloads =
    variants.length > 1
      ? variants
          .map((v) => `    @overload\n    ${def} ${name}(${argsOf(v).join(", ")}) -> ${resultOf(v)}: ...\n`)
          .join("")
      : "";
  const result = variants.map(resultOf).join(" | ");
  return `${overloads}    ${def} ${name}(${argsOf().join(", ")}) -> ${result}:\n${docstring(doc, "        ")}        ${body(result)}\n`;
};

const renderOperations = (
  classes: Classes,
  operations: Operation[],
  schemas: Record<string, Json>,
  mode: "sync" | "async",
): string => {
  const isAsync = mode === "async";
  const methods = operations.map((operation) => {
    const { args, pageArgs, call, query, variants, paged } = signatureOf(classes, operation, schemas);
    const name = snake(operation.op.operationId);
    const run = isAsync ? "await self._call" : "self._call";
    let text = renderMethod(
      isAsync ? "async def" : "def",
      name,
      args,
      variants,
      (v) => v.result,
      summaryOf(operation),
      (result) => `return cast(${pyString(result)}, ${run}(${call}))`,
    );
    if (paged) {
      const iterator = (v: Variant) => (isAsync ? `AsyncIterator[${v.item}]` : `Iterator[${v.item}]`);
      text +=
        "\n" +
        renderMethod(
          "def",
          `iter_${name.replace(/^list_/, "")}`,
          pageArgs,
          variants,
          iterator,
          `Every item of ${summaryOf(operation).replace(/\.$/, "")}, page after page (\`Link: rel="next"\`).`,
          (result) => `return cast(${pyString(result)}, self._paginate(${pyString(operation.path)}, ${query}))`,
        );
    }
    return text;
  });
  const base = isAsync ? "AsyncOperations" : "Operations";
  return (
    `class ${base}:\n` +
    docstring(
      `Every operation of the public document, and the administration of API keys and webhooks (admin keys), ${isAsync ? "awaited" : "called"} through \`_call\`.`,
      "    ",
    ) +
    `\n    if TYPE_CHECKING:\n` +
    `        ${isAsync ? "async def" : "def"} _call(self, method: str, path: str, *, path_params: dict[str, Any] = ..., query: dict[str, Any] = ..., body: Any = ..., if_match: str | None = ...) -> Any: ...\n` +
    `        def _paginate(self, path: str, query: dict[str, Any]) -> Any: ...\n\n` +
    methods.join("\n")
  );
};

/** The operators' operations the client offers, as the TypeScript client does: API keys and webhooks. */
const isAdministration = (path: string) => /^\/admin\/(api-keys|webhooks)(\/|$)/.test(path);

/** The public schemas, then the operators' ones the public document lacks (a name in both must be the same schema). */
const mergedSchemas = (publicDocument: OpenApiDocument, adminDocument: OpenApiDocument): Record<string, Json> => {
  const merged = { ...(publicDocument.components.schemas as Record<string, Json>) };
  for (const [name, schema] of Object.entries(adminDocument.components.schemas as Record<string, Json>)) {
    if (!(name in merged)) merged[name] = schema;
    else if (JSON.stringify(merged[name]) !== JSON.stringify(schema))
      throw new Error(`schema ${name} differs between the public and the operators' document`);
  }
  return merged;
};

/**
 * The module's text, from the public document and the operators' API keys and webhooks; `errorCodes` are every
 * error `code` the documents' examples name (generate-client.ts).
 */
export const renderPythonClient = (
  publicDocument: OpenApiDocument,
  adminDocument: OpenApiDocument,
  errorCodes: readonly string[],
): string => {
  const operations = [...operationsOf(publicDocument), ...operationsOf(adminDocument, isAdministration)];
  const schemas = mergedSchemas(publicDocument, adminDocument);
  const classes = new Classes();
  const schemaText = renderSchemas(classes, schemas);
  const sync = renderOperations(classes, operations, schemas, "sync");
  const async = renderOperations(classes, operations, schemas, "async");
  const body =
    `"""Generated by test/support/generate-python-client.ts from the public OpenAPI document and the operators' API keys and webhooks (info.version ${publicDocument.info.version}): do not edit.\n\n` +
    `Regenerate with \`npm run generate:client\`.\n"""\n\n` +
    `from __future__ import annotations\n\n` +
    `from collections.abc import AsyncIterator, Iterator\n` +
    `from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias, TypedDict, cast, final, overload\n\n` +
    `API_VERSION = ${pyString(publicDocument.info.version)}\n\n` +
    `ErrorCode: TypeAlias = Literal[\n${errorCodes
      .map((code) => `    ${pyString(code)},\n`)
      .join("")}]\n"""Every error \`code\` an operation the client calls may answer."""\n\n` +
    schemaText +
    "\n\n" +
    sync +
    "\n\n" +
    async;
  return body.replace(/\n{3,}/g, "\n\n\n");
};
