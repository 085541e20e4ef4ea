/**
 * The OpenAPI drift check: does the document describe this response? For the operation the request
 * matches (method + path template, in the public or the operators' document): the status is listed,
 * a JSON body matches that response's schema (objects checked strictly: an undocumented field is drift),
 * an error's `code` is one of the codes documented for that status, and every required header is there.
 * Requests that match no operation must get the conventions' 404 `not_found` / 405 `method_not_allowed`
 * (or the pipeline's 401/403/429/500/503 first), with the Error body.
 */
import AjvDraft04 from "ajv-draft-04";
import type { ValidateFunction } from "ajv-draft-04";
import addFormats from "ajv-formats";
import type { OpenApiDocument, OperationObject, ResponseObject } from "../../adapters/http/openapi/document.ts";
import { standaloneDocuments } from "../../adapters/http/openapi/standalone.ts";

export interface ObservedRequest {
  method: string;
  /** Path, with or without a query string. */
  path: string;
}

export interface ObservedResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the content type says JSON, else the text ("" for none). */
  body: unknown;
}

type Json = { [key: string]: unknown };

interface Operation {
  documentKey: string;
  document: OpenApiDocument;
  method: string;
  template: string;
  pattern: RegExp;
  operation: OperationObject;
}

/** Paths whose every answer carries the rate-limit headers (PRODUCT.md §3). */
const limitedPrefixes = ["/pets", "/categories", "/store", "/admin", "/openapi.json", "/docs"];
const isLimited = (path: string) => limitedPrefixes.some((p) => path === p || path.startsWith(`${p}/`));
const rateLimitHeaders = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"];

/** Statuses a request that matches no operation may get: the conventions, or the pipeline before them. */
const unmatchedStatuses: Record<number, string[]> = {
  400: ["validation_failed"],
  401: ["unauthorized"],
  403: ["forbidden", "api_key_banned"],
  404: ["not_found"],
  405: ["method_not_allowed"],
  429: ["rate_limited"],
  500: ["internal_error"],
  503: ["service_unavailable"],
};

const mediaTypeOf = (headers: Headers) => headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();

/**
 * Response schemas, made strict for checking our own output: an object that lists its properties gets
 * `additionalProperties: false` unless it says otherwise, and OpenAPI's `nullable` becomes a `null` type.
 */
const strict = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(strict);
  if (typeof node !== "object" || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "example" || key === "examples") out[key] = value;
    else if (key === "properties")
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, strict(v)]));
    else out[key] = strict(value);
  }
  if (out.type === "object" && out.properties && out.additionalProperties === undefined)
    out.additionalProperties = false;
  if (out.nullable === true && typeof out.type === "string") {
    out.type = [out.type, "null"];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  delete out.nullable;
  return out;
};

const rewriteRefs = (node: unknown, base: string): unknown => {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, base));
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string" ? `${base}${value}` : rewriteRefs(value, base),
    ]),
  );
};

export class OpenApiDriftCheck {
  readonly #operations: Operation[] = [];
  readonly #documents: Record<string, OpenApiDocument>;
  // CommonJS packages: their default export is on `.default` under Node's ESM interop.
  readonly #ajv = new AjvDraft04.default({ strict: false, allErrors: true, validateFormats: true });
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(documents: Record<string, OpenApiDocument>) {
    this.#documents = documents;
    addFormats.default(this.#ajv);
    for (const [key, document] of Object.entries(documents)) {
      this.#ajv.addSchema({
        id: `${key}.json`,
        components: { schemas: strict(rewriteRefs(document.components.schemas, `${key}.json`)) },
      });
      for (const [template, item] of Object.entries(document.paths)) {
        const pattern = new RegExp(
          `^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^/}]+\\?\}/g, "[^/]+")}$`,
        );
        for (const [method, operation] of Object.entries(item)) {
          this.#operations.push({
            documentKey: key,
            document,
            method: method.toUpperCase(),
            template,
            pattern,
            operation,
          });
        }
      }
    }
  }

  /** Every way the document fails to describe this response; empty when it does. */
  check(request: ObservedRequest, response: ObservedResponse): string[] {
    const path = new URL(request.path, "http://petstore.test").pathname;
    const method = request.method.toUpperCase();
    const label = `${method} ${request.path} → ${response.status}`;
    const problems = (list: string[]) => list.map((p) => `${label}: ${p}`);
    // A CORS preflight is the browser's protocol, not an operation: OpenAPI does not describe it.
    if (method === "OPTIONS" && response.status === 204 && response.headers.has("access-control-allow-origin"))
      return [];

    const onPath = this.#operations.filter((op) => op.pattern.test(path));
    const operation = onPath.find((op) => op.method === method);
    if (!operation) return problems(this.#checkUnmatched(path, onPath.length > 0, response));

    const found: string[] = [];
    const documented = operation.operation.responses[String(response.status)] ?? operation.operation.responses.default;
    if (!documented) {
      const listed = Object.keys(operation.operation.responses).join(", ");
      return problems([
        `status ${response.status} is not documented for ${operation.method} ${operation.template} (documented: ${listed})`,
      ]);
    }
    found.push(...this.#checkBody(operation, response, documented));
    found.push(...this.#checkHeaders(operation.document, response, documented));
    return problems(found);
  }

  #checkUnmatched(path: string, pathKnown: boolean, response: ObservedResponse): string[] {
    const found: string[] = [];
    const codes = unmatchedStatuses[response.status];
    const why = pathKnown ? "a known path with an undocumented method" : "an undocumented path";
    if (!codes)
      return [
        `${why} answered ${response.status}, which the conventions do not describe (404/405 or a pipeline refusal)`,
      ];
    if (!pathKnown && response.status === 405) found.push("405 for a path the document does not have");
    if (pathKnown && response.status === 404)
      found.push("404 for a path the document has (expected 405 method_not_allowed)");
    found.push(...this.#checkErrorBody(response, codes));
    if (response.status === 405 && !response.headers.has("allow")) found.push("405 without an Allow header");
    if (isLimited(path)) {
      for (const name of rateLimitHeaders)
        if (!response.headers.has(name)) found.push(`missing header ${name} (every answer under ${path} has it)`);
    }
    return found;
  }

  #checkErrorBody(response: ObservedResponse, codes: string[]): string[] {
    const validate = this.#validator("public", "#/components/schemas/Error");
    if (!validate(response.body)) return [`the Error body does not match: ${this.#ajv.errorsText(validate.errors)}`];
    const body = response.body as { code: string; status: number };
    const found: string[] = [];
    if (body.status !== response.status) found.push(`Error.status ${body.status} differs from the HTTP status`);
    if (!codes.includes(body.code))
      found.push(`code ${body.code} is not documented for ${response.status} (documented: ${codes.join(", ")})`);
    return found;
  }

  #checkBody(op: Operation, response: ObservedResponse, documented: ResponseObject): string[] {
    const content = documented.content;
    const mediaType = mediaTypeOf(response.headers);
    if (!content) {
      return response.body === "" || response.body === undefined
        ? []
        : [`a body was sent but the document describes none (${mediaType})`];
    }
    if (!mediaType || !content[mediaType])
      return [`content type ${mediaType} is not documented (documented: ${Object.keys(content).join(", ")})`];
    if (mediaType !== "application/json") return [];
    const pointer = `#/paths/${op.template.replaceAll("~", "~0").replaceAll("/", "~1")}/${op.method.toLowerCase()}/responses/${response.status}/content/application~1json/schema`;
    const schema = content[mediaType].schema;
    const validate = this.#validatorFor(`${op.documentKey}${pointer}`, op.documentKey, schema);
    if (!validate(response.body))
      return [`the body does not match the documented schema: ${this.#ajv.errorsText(validate.errors)}`];
    const examples = content[mediaType].examples;
    if (response.status >= 400 && examples) {
      const body = response.body as { code: string; status: number };
      const found: string[] = [];
      if (body.status !== response.status) found.push(`Error.status ${body.status} differs from the HTTP status`);
      if (!(body.code in examples)) {
        found.push(
          `code ${body.code} is not documented for ${response.status} (documented: ${Object.keys(examples).join(", ")})`,
        );
      }
      return found;
    }
    return [];
  }

  #checkHeaders(document: OpenApiDocument, response: ObservedResponse, documented: ResponseObject): string[] {
    const found: string[] = [];
    for (const [name, headerOrRef] of Object.entries(documented.headers ?? {})) {
      const header =
        "$ref" in headerOrRef
          ? (document.components.headers?.[headerOrRef.$ref.replace("#/components/headers/", "")] as {
              required?: boolean;
              schema?: Json;
            })
          : headerOrRef;
      if (!header) {
        found.push(`header ${name} refers to a missing component`);
        continue;
      }
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) found.push(`missing documented header ${name}`);
        continue;
      }
      const schema = header.schema ?? {};
      if (schema.type === "integer" && !/^-?\d+$/.test(value)) found.push(`header ${name}: ${value} is not an integer`);
      if (typeof schema.pattern === "string" && !new RegExp(schema.pattern).test(value))
        found.push(`header ${name}: ${value} does not match ${schema.pattern}`);
    }
    return found;
  }

  #validator(documentKey: string, pointer: string): ValidateFunction {
    return this.#validatorFor(`${documentKey}${pointer}`, documentKey, { $ref: pointer });
  }

  #validatorFor(cacheKey: string, documentKey: string, schema: unknown): ValidateFunction {
    const known = this.#validators.get(cacheKey);
    if (known) return known;
    if (!this.#documents[documentKey]) throw new Error(`No document ${documentKey}`);
    const validate = this.#ajv.compile(strict(rewriteRefs(schema, `${documentKey}.json`)) as Json);
    this.#validators.set(cacheKey, validate);
    return validate;
  }
}

let shared: OpenApiDriftCheck | undefined;
/** One checker per test worker, over the same documents the service serves (default deprecation dates). */
export const openApiDriftCheck = (): OpenApiDriftCheck => {
  if (!shared) {
    const documents = standaloneDocuments();
    shared = new OpenApiDriftCheck({ public: documents.public, admin: documents.admin });
  }
  return shared;
};

/** Problems seen since the last take: the setup file fails the running test with them. */
const recorded: string[] = [];
export const recordDrift = (problems: string[]): void => {
  recorded.push(...problems);
};
export const takeRecordedDrift = (): string[] => recorded.splice(0);
