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

/** The Python type of a Schema Object. */
const typeOf = (schema: Json): string => {
  if (schema.$ref) return refName(schema.$ref);
  if (schema.enum) return `Literal[${(schema.enum as unknown[]).map(pyLiteral).join(", ")}]`;
  if ("const" in schema) return `Literal[${pyLiteral(schema.const)}]`;
  for (const key of ["anyOf", "oneOf"])
    if (Array.isArray(schema[key])) return (schema[key] as Json[]).map(typeOf).join(" | ");
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return typeOf(schema.allOf[0] as Json);
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
      return `list[${typeOf(schema.items as Json)}]`;
    case "object":
      return schema.additionalProperties && typeof schema.additionalProperties === "object"
        ? `dict[str, ${typeOf(schema.additionalProperties as Json)}]`
        : "dict[str, Any]";
    default:
      return "Any";
  }
};

const docstring = (text: string | undefined, indent: string) =>
  text ? `${indent}"""${text.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"')}"""\n` : "";

const renderSchemas = (schemas: Record<string, Json>): string => {
  const classes = Object.entries(schemas).filter(([, s]) => s.type === "object" && s.properties);
  const classNames = new Set(classes.map(([name]) => name));
  const aliases = Object.entries(schemas).filter(([name]) => !classNames.has(name));
  const usesClass = (expression: string) =>
    [...classNames].some((name) => new RegExp(`\\b${name}\\b`).test(expression));
  const alias = ([name, schema]: [string, Json]) =>
    `${name}: TypeAlias = ${typeOf(schema)}\n${docstring(schema.description as string | undefined, "")}`;
  const early = aliases.filter(([, s]) => !usesClass(typeOf(s)));
  const late = aliases.filter(([, s]) => usesClass(typeOf(s)));
  const renderClass = ([name, schema]: [string, Json]) => {
    const required = new Set((schema.required ?? []) as string[]);
    const fields = Object.entries(schema.properties as Record<string, Json>).map(([field, property]) => {
      if (!/^[A-Za-z_]\w*$/.test(field)) throw new Error(`${name}.${field} is not a Python identifier`);
      const type = typeOf(property);
      return `    ${field}: ${required.has(field) ? type : `NotRequired[${type}]`}\n${docstring(property.description as string | undefined, "    ")}`;
    });
    return `class ${name}(TypedDict):\n${docstring(schema.description as string | undefined, "    ")}${fields.join("")}`;
  };
  return [...early.map(alias), ...classes.map(renderClass), ...late.map(alias)].join("\n\n");
};

interface Operation {
  method: string;
  path: string;
  op: OperationObject & Json;
}

const operationsOf = (document: OpenApiDocument): Operation[] =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method !== "head" && method !== "options")
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as OperationObject & Json })),
  );

/** The parameters a method takes, its call to the core and its result type. */
const signatureOf = ({ method, path, op }: Operation, schemas: Record<string, Json>) => {
  const parameters = (op.parameters ?? []) as Json[];
  const pathParams = parameters.filter((p) => p.in === "path");
  const queryParams = parameters.filter((p) => p.in === "query");
  const ifMatch = parameters.some((p) => p.in === "header" && p.name === "If-Match");
  const bodySchema = op.requestBody?.content?.["application/json"]?.schema as Json | undefined;
  const success = Object.entries(op.responses).find(([status]) => status.startsWith("2"))!;
  const resultSchema = success[1].content?.["application/json"]?.schema as Json | undefined;
  const result = resultSchema ? typeOf(resultSchema) : "None";
  const args = [
    "self",
    ...pathParams.map((p) => `${snake(p.name)}: ${typeOf(p.schema)}`),
    ...(bodySchema ? [`body: ${typeOf(bodySchema)}`] : []),
    ...(queryParams.length || ifMatch ? ["*"] : []),
    ...queryParams.map((p) => `${snake(p.name)}: ${typeOf(p.schema)} | None = None`),
    ...(ifMatch ? ["if_match: str | None = None"] : []),
  ];
  const call = [
    pyString(method),
    pyString(path),
    `path_params={${pathParams.map((p) => `${pyString(p.name)}: ${snake(p.name)}`).join(", ")}}`,
    `query={${queryParams.map((p) => `${pyString(p.name)}: ${snake(p.name)}`).join(", ")}}`,
    ...(bodySchema ? ["body=body"] : []),
    ...(ifMatch ? ["if_match=if_match"] : []),
  ].join(", ");
  const list = resultSchema?.$ref ? schemas[refName(resultSchema.$ref as string)] : resultSchema;
  const item = list?.type === "array" ? typeOf(list.items as Json) : undefined;
  return { args, call, result, paged: Boolean(item && success[1].headers?.Link), item, queryParams };
};

const summaryOf = ({ method, path, op }: Operation) => `${op.summary} (\`${method} ${path}\`).`;

const renderOperations = (operations: Operation[], schemas: Record<string, Json>, mode: "sync" | "async"): string => {
  const isAsync = mode === "async";
  const methods = operations.map((operation) => {
    const { args, call, result, paged, item, queryParams } = signatureOf(operation, schemas);
    const name = snake(operation.op.operationId);
    const def = isAsync ? "async def" : "def";
    const run = isAsync ? "await self._call" : "self._call";
    let text =
      `    ${def} ${name}(${args.join(", ")}) -> ${result}:\n` +
      docstring(summaryOf(operation), "        ") +
      `        return cast(${pyString(result)}, ${run}(${call}))\n`;
    if (paged) {
      const pageArgs = ["self", "*", ...queryParams.map((p) => `${snake(p.name)}: ${typeOf(p.schema)} | None = None`)];
      const iterator = isAsync ? `AsyncIterator[${item}]` : `Iterator[${item}]`;
      const query = `{${queryParams.map((p) => `${pyString(p.name)}: ${snake(p.name)}`).join(", ")}}`;
      text +=
        `\n    def iter_${name.replace(/^list_/, "")}(${pageArgs.join(", ")}) -> ${iterator}:\n` +
        docstring(
          `Every item of ${summaryOf(operation).replace(/\.$/, "")}, page after page (\`Link: rel="next"\`).`,
          "        ",
        ) +
        `        return cast(${pyString(iterator)}, self._paginate(${pyString(operation.path)}, ${query}))\n`;
    }
    return text;
  });
  const base = isAsync ? "AsyncOperations" : "Operations";
  return (
    `class ${base}:\n` +
    docstring(`Every operation of the public document, ${isAsync ? "awaited" : "called"} through \`_call\`.`, "    ") +
    `\n    if TYPE_CHECKING:\n` +
    (isAsync
      ? `        async def _call(self, method: str, path: str, *, path_params: dict[str, Any] = ..., query: dict[str, Any] = ..., body: Any = ..., if_match: str | None = ...) -> Any: ...\n`
      : `        def _call(self, method: str, path: str, *, path_params: dict[str, Any] = ..., query: dict[str, Any] = ..., body: Any = ..., if_match: str | None = ...) -> Any: ...\n`) +
    `        def _paginate(self, path: str, query: dict[str, Any]) -> Any: ...\n\n` +
    methods.join("\n")
  );
};

/** The module's text; `errorCodes` are every error `code` the document's examples name (generate-client.ts). */
export const renderPythonClient = (document: OpenApiDocument, errorCodes: readonly string[]): string => {
  const operations = operationsOf(document);
  const schemas = document.components.schemas as Record<string, Json>;
  const body =
    `"""Generated by test/support/generate-python-client.ts from the public OpenAPI document (info.version ${document.info.version}): do not edit.\n\n` +
    `Regenerate with \`npm run generate:client\`.\n"""\n\n` +
    `from __future__ import annotations\n\n` +
    `from collections.abc import AsyncIterator, Iterator\n` +
    `from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias, TypedDict, cast\n\n` +
    `API_VERSION = ${pyString(document.info.version)}\n\n` +
    `ErrorCode: TypeAlias = Literal[\n${errorCodes
      .map((code) => `    ${pyString(code)},\n`)
      .join("")}]\n"""Every error \`code\` an operation of the public API may answer."""\n\n` +
    renderSchemas(schemas) +
    "\n\n" +
    renderOperations(operations, schemas, "sync") +
    "\n\n" +
    renderOperations(operations, schemas, "async");
  return body.replace(/\n{3,}/g, "\n\n\n");
};
