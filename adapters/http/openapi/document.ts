import { z } from "zod";
import { rolePermissions, roles } from "../../../core/access/permissions.ts";
import { planLimits } from "../../../core/rate-limiting/plans.ts";
import { statusOfCode, type ErrorCode } from "../problem.ts";
import { headerShapeOf } from "../request-headers.ts";
import { publicTags, type Access, type Callback, type DocTag, type Route } from "../route.ts";
import { ErrorView, PAGE_SIZE } from "../schemas.ts";
import { errorDocs, reasonPhrases } from "./error-examples.ts";
import { SchemaComponents, type OpenApiVersion, type SchemaObject } from "./json-schema.ts";
import { pathExamples, requestExamples } from "./request-examples.ts";

/** The code's licence (LICENSE at the root), named in every document. */
const LICENSE = { name: "MIT", url: "https://opensource.org/licenses/MIT" };

export interface DocumentOptions {
  deprecation: { deprecatedAt: Date; sunsetAt: Date };
}

/** An OpenAPI 3.0.3 or 3.1.0 document as plain JSON data. */
export interface OpenApiDocument {
  openapi: OpenApiVersion;
  info: { title: string; version: string; description: string; license: { name: string; url: string } };
  paths: Record<string, Record<string, OperationObject>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

export interface OperationObject {
  operationId: string;
  responses: Record<string, ResponseObject>;
  [key: string]: unknown;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, Ref | HeaderObject>;
  content?: Record<string, { schema: SchemaObject; examples?: Record<string, { summary: string; value: unknown }> }>;
}

interface Ref {
  $ref: string;
}
interface HeaderObject {
  description: string;
  required?: boolean;
  schema: SchemaObject;
  example?: unknown;
}

export const API_VERSION = "1.2.0-dev";

const headerRef = (name: string): Ref => ({ $ref: `#/components/headers/${name}` });

/** Static documents and assets: compressed by Accept-Encoding, with an ETag per representation. */
const cacheableHeaders: Record<string, Ref> = {
  ETag: headerRef("ETag-Encoded"),
  Vary: headerRef("Vary-Accept-Encoding"),
};

/** Shared response headers (components.headers). `required` is what the drift check enforces. */
const headers: Record<string, HeaderObject> = {
  "ETag-Encoded": {
    description:
      "Strong entity tag of this representation (each content encoding has its own); send it back in `If-None-Match`.",
    required: true,
    schema: { type: "string" },
    example: '"q1w2e3r4t5y6u7i8o9p0aa-br"',
  },
  "Vary-Accept-Encoding": {
    description:
      "`Accept-Encoding`: the body is br- or gzip-compressed when the request accepts it (`Content-Encoding` says which).",
    required: true,
    schema: { type: "string" },
    example: "Accept-Encoding",
  },
  "X-RateLimit-Limit": {
    description:
      "Requests allowed in the window (current UTC minute or UTC day) with the fewest requests left; the minute window on a tie.",
    required: true,
    schema: { type: "integer", format: "int32", minimum: 0 },
    example: 1000,
  },
  "X-RateLimit-Remaining": {
    description:
      "Requests left in that window. With several service instances it never counts requests another instance may still admit from its share of the window, so a request may be refused (429) a little before it reaches 0.",
    required: true,
    schema: { type: "integer", format: "int32", minimum: 0 },
    example: 998,
  },
  "X-RateLimit-Reset": {
    description: "When that window resets, in Unix seconds.",
    required: true,
    schema: { type: "integer", format: "int64" },
    example: 1788220860,
  },
  "RateLimit-Policy": {
    description: "The plan's windows, as in the IETF draft `RateLimit-Policy` header.",
    schema: { type: "string" },
    example: '"minute";q=1000;w=60, "day";q=100000;w=86400',
  },
  RateLimit: {
    description: "The same state as the X-RateLimit-* headers, as in the IETF draft `RateLimit` header.",
    schema: { type: "string" },
    example: '"minute";r=998;t=42',
  },
  "Retry-After": {
    description: "Whole seconds to wait before retrying (at least 1).",
    required: true,
    schema: { type: "integer", format: "int32", minimum: 1 },
    example: 42,
  },
  "Retry-After-If-Banned": {
    description: "With `api_key_banned`: whole seconds until the ban ends.",
    schema: { type: "integer", format: "int32", minimum: 1 },
    example: 900,
  },
  "Retry-After-If-Known": {
    description: "Whole seconds to wait before retrying, when known.",
    schema: { type: "integer", format: "int32", minimum: 1 },
    example: 5,
  },
  Location: {
    description: "The path of the created resource.",
    required: true,
    schema: { type: "string", format: "uri-reference" },
    example: "/pets/1",
  },
  "Link-Next": {
    description: 'RFC 8288 `Link` to the next page (`rel="next"`), present when more items exist.',
    schema: { type: "string" },
    example: '</pets?limit=20&after=20>; rel="next"',
  },
  Deprecation: {
    description: "RFC 9745: when the operation was deprecated, as `@` and Unix seconds.",
    required: true,
    schema: { type: "string", pattern: "^@\\d+$" },
    example: "@1788220800",
  },
  Sunset: {
    description: "RFC 8594: the HTTP-date after which the operation answers 410 `gone`.",
    required: true,
    schema: { type: "string" },
    example: "Wed, 30 Jun 2027 00:00:00 GMT",
  },
  "Link-Successor": {
    description: 'The operation to use instead (`rel="successor-version"`).',
    required: true,
    schema: { type: "string" },
    example: '</pets?ids=1>; rel="successor-version"',
  },
  ETag: {
    description:
      "Strong entity tag of this revision of the resource: send it back in `If-None-Match` (GET) or `If-Match` (PUT, PATCH, DELETE).",
    required: true,
    schema: { type: "string" },
    example: '"p1r3"',
  },
  "ETag-Unless-Expanded": {
    description:
      "As `ETag`, absent when `expand` adds other resources' data (a key's label changes without the order's revision): that answer has no tag.",
    schema: { type: "string" },
    example: '"o1r2"',
  },
  Allow: {
    description: "The methods this path answers.",
    required: true,
    schema: { type: "string" },
    example: "GET, HEAD, PUT, DELETE, OPTIONS",
  },
};

const rateLimitHeaders = {
  "X-RateLimit-Limit": headerRef("X-RateLimit-Limit"),
  "X-RateLimit-Remaining": headerRef("X-RateLimit-Remaining"),
  "X-RateLimit-Reset": headerRef("X-RateLimit-Reset"),
  "RateLimit-Policy": headerRef("RateLimit-Policy"),
  RateLimit: headerRef("RateLimit"),
};

const deprecationHeaders = {
  Deprecation: headerRef("Deprecation"),
  Sunset: headerRef("Sunset"),
  Link: headerRef("Link-Successor"),
};

const tagDescriptions: Record<DocTag, string> = {
  Pets: "Pets and the categories they belong to.",
  Store: "Orders and the stock (inventory) of each pet.",
  Account: "The calling API key: who it is, its plan, limits and today's usage (any valid key).",
  Events: "The live event stream (server-sent events) for staff and admin keys.",
  Console: "The staff console: a page and its assets, served from this server.",
  "API keys": "Managing API keys: admin role only.",
  Webhooks: "Subscriptions to events, delivered as signed HTTP requests (Standard Webhooks): admin role only.",
  Reference: "This reference: the OpenAPI documents and the interactive page.",
  Health: "Probes for orchestrators: no key, never rate limited, no rate-limit headers.",
};

const planTable = Object.entries(planLimits)
  .map(([plan, { perMinute, perDay }]) => `${plan} ${perMinute.toLocaleString("en")}/${perDay.toLocaleString("en")}`)
  .join(", ");

/** The tag of the 3.1 document's `webhooks`: what the service sends, not what a caller calls. */
const webhooksTag = {
  name: "Webhooks",
  description:
    "The requests the service sends to subscribed URLs, one per event type, signed per Standard Webhooks (`webhook-id`, " +
    "`webhook-timestamp`, `webhook-signature`). Subscriptions are managed with an admin key under `/admin/webhooks` " +
    "(in `/admin/openapi.json`).",
};

const publicDescription = `The petstore: pets, their categories, orders and stock, as JSON over HTTP.

**Authentication.** Every operation needs an API key in the \`X-API-Key\` header; its role (\`customer\`, \`staff\` or \`admin\`)
decides what it may do (each operation names the roles it allows); \`GET /me\` says which key is calling, with its plan, limits and today's usage. Missing, unknown or revoked key: 401 \`unauthorized\`; wrong role: 403 \`forbidden\`. A revocation or a change of plan or role takes effect within 1 second on every instance of the service.

**Rate limits.** Each key's plan allows requests per UTC minute and per UTC day (${planTable}, enterprise as agreed). Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and
\`X-RateLimit-Reset\` for the window with the fewest requests left. A request over the limit gets 429 \`rate_limited\` with
\`Retry-After\`; back off exponentially. A key that keeps calling while limited is banned for a while (403 \`api_key_banned\`).

**Errors.** Every error body is \`Error\` (\`code\`, \`message\`, \`status\`, and \`details\` for validation). Clients branch on \`code\`.
An unknown path answers 404 \`not_found\`; a known path with another method answers 405 \`method_not_allowed\` with \`Allow\`.

**HEAD and OPTIONS.** Every GET also answers HEAD (its headers, no body), and every path answers OPTIONS (204 with \`Allow\`,
no key needed). This document describes them (marked \`x-docs-hidden\`); the /docs page leaves them out of its list.

**Text.** Names (1–100) and descriptions (up to 500) are trimmed and counted in characters (Unicode code points); they
must be well-formed Unicode (no lone surrogates). Request bodies are JSON in UTF-8 (\`Content-Type: application/json\`, no
charset or \`charset=utf-8\`; any other charset is 415), at most 64 KiB, and refuse unknown properties. Invalid UTF-8 and a
leading byte order mark are 400 \`invalid_json\`.

**Exact input.** Input is never silently altered. A JSON integer a double cannot hold exactly (beyond ±(2^53−1), for
example an int64 id near 2^63) is 400 \`validation_failed\` naming the field. Ids in paths and queries are checked exactly as
int64: outside int64 is 400; ids are assigned from 1 upward and stay below 2^53, so a valid int64 beyond that names nothing
(404 in a path). A path id has one spelling: a leading zero (\`/pets/02\`) is 400, under every method, OPTIONS included.
Requests Node's HTTP parser refuses get the \`Error\` shape and \`Connection: close\`: 400 \`bad_request\`
(unknown method, raw non-ASCII target, bad \`Content-Length\`, two \`Host\` headers, …), 414 \`uri_too_long\` (target
over 8 KiB), 431 \`headers_too_large\` (headers over 16 KiB). They count against the client address's \`free\` window
and carry its rate-limit headers.

**Retries.** \`POST /pets\`, \`POST /categories\` and \`POST /store/orders\` take an \`Idempotency-Key\` (per API key, kept
24 hours): a retry with the same key and body replays the first answer, marked \`Idempotent-Replayed: true\`. A retry
while the first request runs gets 409 \`idempotency_request_in_progress\` with \`Retry-After\`; a first request that never
answers locks its key for 60 seconds at most, after which a retry runs the operation again. That retry, like the retry of a
5xx answer, first looks for what the earlier attempt wrote and answers or finishes it: a key creates at most one pet,
category or order. A request refused before the operation runs (400, 401, 403, 413, 415, 429) is not kept: correct it and
retry with the same key.

**Lists** are bare JSON arrays in ascending id order, paged with \`limit\` (1–${PAGE_SIZE.max}, default ${PAGE_SIZE.default}) and \`after\` (an id); a
\`Link: <…>; rel="next"\` header gives the next page while more items exist.

**HTTP.** \`HEAD\` works wherever \`GET\` does (same status and headers, no body); \`OPTIONS\` answers 204 with \`Allow\`, without
a key. Every operation refuses query parameters it does not declare (400 \`validation_failed\`). A path with a trailing slash
(\`/pets/\`) is not the same path: it answers 404 \`not_found\` like any unknown path. Buffered answers carry \`Content-Length\`.

**Conditional requests.** A single pet, category, order or inventory item (\`GET /pets/{petId}\`, \`/categories/{categoryId}\`,
\`/store/orders/{orderId}\`, \`/store/inventory/{petId}\`) and the 200 answers of their writes carry a strong \`ETag\`, such as
\`"p7r3"\`: the resource's kind (\`p\`et, \`c\`ategory, \`o\`rder, \`i\`nventory item), its id and its revision, which grows with
every change (an inventory item carries its pet's revision). \`If-None-Match\` with the current tag answers 304 without a
body. \`PUT\`, \`PATCH\` and \`DELETE\` on those resources honour \`If-Match\` (one tag, or \`*\` for no condition): the change
is made only if the resource still has that revision, checked in the same write; otherwise 412 \`precondition_failed\` and
nothing changes. Read again, re-apply your change and retry.

**Versioning.** This is version ${API_VERSION} of the interface. Changes within 1.x only add (operations, optional fields,
error codes, headers). Operations marked deprecated keep working until their sunset date (\`x-sunset\`), announced by the
\`Deprecation\`, \`Sunset\` and \`Link\` headers; afterwards they answer 410 \`gone\`. \`x-stability\` marks operations whose
shape may still change: \`beta\` (only additive changes expected) and \`experimental\` (may change or go away).`;

const adminDescription = `What operators use beside the public reference (\`/openapi.json\`, which also has the calling key,
\`GET /me\`): managing API keys and webhooks (admin role), the live event stream (\`GET /events\`, staff and admin), the staff console (\`/console\`),
the health probes, and the reference endpoints themselves. Conventions (errors, rate-limit headers) are those of the public document.`;

/** Roles that hold a permission, for the operation's description. */
const rolesAllowed = (access: Access): string => {
  if (access === "unlimited") return "No API key needed; never rate limited.";
  if (access === "public") return "No API key needed; rate limited per client address (free plan).";
  const allowed = access === "any-key" ? roles : roles.filter((role) => rolePermissions[role].has(access));
  return `Roles: ${allowed.map((r) => `\`${r}\``).join(", ")}.`;
};

const isKeyed = (access: Access) => access !== "public" && access !== "unlimited";

/** The errors an operation can answer: what follows from its access, input and flags, plus its own. */
export const errorCodesOf = (route: Route): ErrorCode[] => {
  const input = route.input ?? {};
  // Every operation refuses query parameters it does not declare.
  const codes: ErrorCode[] = ["validation_failed"];
  if (input.body) codes.push("invalid_json");
  if (isKeyed(route.access))
    codes.push("unauthorized", ...(route.access === "any-key" ? [] : ["forbidden" as const]), "api_key_banned");
  if (input.path) codes.push("not_found");
  if (route.idempotent) codes.push("idempotency_key_reused", "idempotency_request_in_progress");
  if (route.versioned && route.method !== "GET") codes.push("precondition_failed");
  if (route.deprecated) codes.push("gone");
  codes.push(...(route.errors ?? []));
  if (input.body) codes.push("payload_too_large", "unsupported_media_type");
  if (route.access !== "unlimited") codes.push("rate_limited", "service_unavailable");
  // Any target can be too long: the HTTP layer refuses it before any route is chosen.
  codes.push("uri_too_long", "internal_error");
  return [...new Set(codes)].sort((a, b) => statusOfCode[a] - statusOfCode[b]);
};

/**
 * On the HEAD and OPTIONS twins every path has: described for tools and clients, left out of the /docs page's rows
 * (assets/docs.js), where they doubled the list a person scrolls through.
 */
const docsHidden = { "x-docs-hidden": true } as const;

const pathParamNames = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);

/** `z.string().transform(split).pipe(z.array(item))`: a comma-separated list on the wire. */
const commaListArray = (field: z.ZodType): z.ZodArray | undefined => {
  const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
  return inner instanceof z.ZodPipe && inner.out instanceof z.ZodArray ? (inner.out as z.ZodArray) : undefined;
};

const pascal = (path: string): string =>
  path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("");

class DocumentBuilder {
  readonly components: SchemaComponents;
  readonly usedHeaders = new Set<string>();
  readonly options: DocumentOptions;
  readonly version: OpenApiVersion;
  constructor(options: DocumentOptions, version: OpenApiVersion = "3.0.3") {
    this.options = options;
    this.version = version;
    this.components = new SchemaComponents(version);
  }

  /** The operation of a route; `head: true` describes its HEAD twin (same statuses and headers, no bodies). */
  operation(route: Route, head = false): OperationObject {
    const input = route.input ?? {};
    const { access, deprecated } = route;
    const limited = access !== "unlimited";
    const parameters = [
      ...this.#pathParameters(route),
      ...this.#fieldParameters("query", input.query?.shape),
      ...this.#fieldParameters("header", headerShapeOf(route)),
    ];
    const sunset = this.options.deprecation.sunsetAt;
    const descriptions = [
      head ? `The headers of \`GET ${route.path}\`, without the body.` : route.description,
      rolesAllowed(access),
    ];
    if (deprecated) {
      descriptions.push(
        `**Deprecated** since ${this.options.deprecation.deprecatedAt.toISOString().slice(0, 10)} in favour of \`${deprecated.successor}\`. ` +
          `Sunset on ${sunset.toISOString().slice(0, 10)}: from then on it answers 410 \`gone\`.`,
      );
    }
    if (route.hideTryItPanel && !head)
      descriptions.push(`**No "Try it out" on /docs:** ${route.hideTryItPanel.reason}`);
    if (route.stability === "beta") descriptions.push("**Beta:** only additive changes are expected.");
    if (route.stability === "experimental")
      descriptions.push("**Experimental:** may change or go away without a deprecation period.");

    const responses: Record<string, ResponseObject> = {};
    const { output } = route;
    const successHeaders: Record<string, Ref> = { ...(limited ? rateLimitHeaders : {}) };
    for (const name of output.headers ?? []) successHeaders[name] = headerRef(name === "Link" ? "Link-Next" : name);
    if (deprecated) Object.assign(successHeaders, deprecationHeaders);
    if (route.versioned && output.status === 200)
      successHeaders.ETag = headerRef(route.versioned.untaggedWith ? "ETag-Unless-Expanded" : "ETag");
    if (output.cacheable) Object.assign(successHeaders, cacheableHeaders);
    responses[String(output.status)] = this.#response(
      output.description,
      successHeaders,
      head ? undefined : output.body,
      output.mediaType,
    );
    if (output.cacheable) {
      responses["304"] = this.#response("Not Modified: the `If-None-Match` tag is current; no body.", {
        ...(limited ? rateLimitHeaders : {}),
        ...cacheableHeaders,
      });
    }
    if (route.versioned && route.method === "GET") {
      const notModified = {
        ...(limited ? rateLimitHeaders : {}),
        ETag: headerRef("ETag"),
        ...(deprecated ? deprecationHeaders : {}),
      };
      responses["304"] = this.#response("Not Modified: the `If-None-Match` tag is current; no body.", notModified);
    }

    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of errorCodesOf(route))
      byStatus.set(statusOfCode[code], [...(byStatus.get(statusOfCode[code]) ?? []), code]);
    for (const [status, codes] of byStatus) {
      const errorHeaders: Record<string, Ref> = {
        ...(limited ? rateLimitHeaders : {}),
      };
      if (status === 429) errorHeaders["Retry-After"] = headerRef("Retry-After");
      if (codes.includes("api_key_banned")) errorHeaders["Retry-After"] = headerRef("Retry-After-If-Banned");
      if (status === 503) errorHeaders["Retry-After"] = headerRef("Retry-After-If-Known");
      // The deprecated operation's own answers (the resource, 404, 410) all say so.
      if (deprecated && (codes.includes("gone") || codes.includes("not_found")))
        Object.assign(errorHeaders, deprecationHeaders);
      responses[String(status)] = head
        ? this.#response(`${reasonPhrases[status] ?? "Error"} (see \`GET ${route.path}\`); no body.`, errorHeaders)
        : this.#errorResponse(status, codes, errorHeaders);
    }

    const badges = [
      ...(deprecated
        ? [{ name: `Deprecated · sunset ${sunset.toISOString().slice(0, 10)}`, color: "#6b7280", position: "after" }]
        : []),
      ...(route.stability === "beta" ? [{ name: "Beta", color: "#b45309", position: "after" }] : []),
      ...(route.stability === "experimental" ? [{ name: "Experimental", color: "#b91c1c", position: "after" }] : []),
    ];
    return {
      tags: [route.tag],
      summary: head ? `${route.summary} (headers only)` : route.summary,
      description: descriptions.filter(Boolean).join("\n\n"),
      operationId: head ? `${route.operationId}Head` : route.operationId,
      ...(parameters.length ? { parameters } : {}),
      ...(input.body && !head ? { requestBody: this.#requestBody(route.operationId, input.body) } : {}),
      responses,
      ...(isKeyed(access) ? {} : { security: [] }),
      ...(deprecated ? { deprecated: true, "x-sunset": sunset.toISOString() } : {}),
      ...(route.stability ? { "x-stability": route.stability } : {}),
      ...(badges.length ? { "x-badges": badges } : {}),
      ...(route.hideTryItPanel ? { "x-hideTryItPanel": true } : {}),
      ...(route.callbacks && !head ? { callbacks: this.#callbacks(route.operationId, route.callbacks) } : {}),
      ...(head ? docsHidden : {}),
    };
  }

  #requestBody(operationId: string, body: z.ZodType): Record<string, unknown> {
    const example = requestExamples[operationId];
    return {
      required: true,
      content: {
        "application/json": { schema: this.components.convert(body), ...(example === undefined ? {} : { example }) },
      },
    };
  }

  /** OpenAPI callbacks: the requests the service sends, each to the URL the request body named. */
  #callbacks(operationId: string, callbacks: Readonly<Record<string, Callback>>): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(callbacks).map(([name, callback]) => [
        name,
        {
          [`{$request.body#/${callback.urlField}}`]: {
            post: this.#sentRequest(callback, `${operationId}${pascal(name)}`),
          },
        },
      ]),
    );
  }

  /**
   * OpenAPI 3.1 `webhooks`: every request the service sends (the callbacks of all routes, public or not), by event
   * type, to the URL a subscription named.
   */
  webhooks(routes: readonly Route[]): Record<string, { post: OperationObject }> {
    const webhooks: Record<string, { post: OperationObject }> = {};
    for (const route of routes) {
      for (const [name, callback] of Object.entries(route.callbacks ?? {})) {
        const operationId = `${pascal(name).replace(/^./, (c) => c.toLowerCase())}Webhook`;
        const post = this.#sentRequest(callback, operationId);
        webhooks[name] = {
          post: {
            tags: [webhooksTag.name],
            ...post,
            description: `${callback.description}\n\nSent to every subscription to \`${name}\`, made with \`${route.method} ${route.path}\` (${rolesAllowed(route.access).replace(/\.$/, "")}).`,
          },
        };
      }
    }
    return webhooks;
  }

  /** A request the service sends: the Standard Webhooks headers and the event as its body. */
  #sentRequest(callback: Callback, operationId: string): OperationObject {
    return {
      summary: callback.summary,
      description: callback.description,
      operationId,
      parameters: Object.entries(callback.headers).map(([header, description]) => ({
        name: header,
        in: "header",
        required: true,
        description,
        schema: { type: "string" },
      })),
      requestBody: {
        required: true,
        content: { "application/json": { schema: this.components.convert(callback.body) } },
      },
      responses: {
        "2XX": { description: "Received: any 2xx answer counts as delivered." },
        default: {
          description: "Not received (any other status, or none in time): retried later under the same `webhook-id`.",
        },
      },
    };
  }

  /** OPTIONS on a path: 204 with Allow, no key needed; its path parameters checked. */
  optionsOperation(path: string, routes: Route[]): OperationObject {
    const limited = routes.some((r) => r.access !== "unlimited");
    const headers = { ...(limited ? rateLimitHeaders : {}), Allow: headerRef("Allow") };
    const responses: Record<string, ResponseObject> = {
      "204": this.#response("The methods this path answers, in `Allow`.", headers),
    };
    // A malformed URL is 400 whatever the method.
    const first = routes[0] as Route;
    const parameters = this.#pathParameters(first);
    // Path parameters are checked as under every method: a valid id beyond every id names nothing.
    const errors: ErrorCode[] = [
      "validation_failed",
      ...(parameters.length ? (["not_found"] as const) : []),
      "uri_too_long",
      ...(limited
        ? (["rate_limited", "internal_error", "service_unavailable"] as const)
        : (["internal_error"] as const)),
    ];
    for (const code of errors) {
      const errorHeaders: Record<string, Ref> = { ...(limited ? rateLimitHeaders : {}) };
      if (code === "rate_limited") errorHeaders["Retry-After"] = headerRef("Retry-After");
      if (code === "service_unavailable") errorHeaders["Retry-After"] = headerRef("Retry-After-If-Known");
      responses[String(statusOfCode[code])] = this.#errorResponse(statusOfCode[code], [code], errorHeaders);
    }
    return {
      tags: [first.tag],
      summary: `Methods of ${path}`,
      description: `Answers 204 with \`Allow\`. No API key needed; ${limited ? "rate limited per client address (free plan)" : "never rate limited"}. With CORS configured, a browser's preflight gets its \`Access-Control-Allow-*\` headers here.`,
      operationId: `options${pascal(path)}`,
      ...(parameters.length ? { parameters } : {}),
      responses,
      security: [],
      ...docsHidden,
    };
  }

  #pathParameters(route: Route): SchemaObject[] {
    const names = pathParamNames(route.path);
    const shape = route.input?.path?.shape ?? {};
    const declared = Object.keys(shape);
    if (names.join() !== declared.join()) {
      throw new Error(
        `${route.operationId}: path ${route.path} has parameters [${names}] but its input declares [${declared}]`,
      );
    }
    return names.map((name) => ({
      ...this.#parameter(name, "path", shape[name] as z.ZodType, true),
      example: pathExamples[route.operationId]?.[name] ?? 1,
    }));
  }

  #fieldParameters(where: "query" | "header", shape: z.ZodRawShape | undefined): SchemaObject[] {
    if (!shape) return [];
    return Object.entries(shape).map(([name, field]) => {
      const f = field as z.ZodType;
      return this.#parameter(name, where, f, !f.safeParse(undefined).success);
    });
  }

  #parameter(name: string, where: "path" | "query" | "header", field: z.ZodType, required: boolean): SchemaObject {
    const list = commaListArray(field);
    const { description, ...schema } = this.components.convert(list ?? field);
    const meta = field.meta() as { description?: string; default?: unknown } | undefined;
    if (meta?.default !== undefined) schema.default = meta.default; // zod drops defaults on a pipe's input side
    return {
      name,
      in: where,
      required,
      description: meta?.description ?? description ?? `${name} (int64)`,
      schema,
      ...(list ? { style: "form", explode: false } : {}),
    };
  }

  #response(
    description: string,
    responseHeaders: Record<string, Ref>,
    body?: z.ZodType,
    mediaType = "application/json",
  ): ResponseObject {
    for (const ref of Object.values(responseHeaders)) this.usedHeaders.add(ref.$ref.split("/").at(-1) as string);
    const response: ResponseObject = { description };
    if (Object.keys(responseHeaders).length) response.headers = responseHeaders;
    if (body) response.content = { [mediaType]: { schema: this.components.convert(body) } };
    return response;
  }

  #errorResponse(status: number, codes: ErrorCode[], responseHeaders: Record<string, Ref>): ResponseObject {
    const lines = codes.map((code) => `- \`${code}\`: ${errorDocs[code].when}`);
    const response = this.#response(
      `${reasonPhrases[status] ?? "Error"}.\n\n${lines.join("\n")}`,
      responseHeaders,
      ErrorView,
    );
    const examples = Object.fromEntries(
      codes.map((code) => {
        const doc = errorDocs[code];
        return [
          code,
          {
            summary: doc.when,
            value: { code, message: doc.message, status, ...(doc.details ? { details: doc.details } : {}) },
          },
        ];
      }),
    );
    (response.content as NonNullable<ResponseObject["content"]>)["application/json"]!.examples = examples;
    return response;
  }

  document(
    info: { title: string; description: string },
    routes: Route[],
    tags: DocTag[],
    webhookRoutes: readonly Route[] = [],
  ): OpenApiDocument {
    const paths: Record<string, Record<string, OperationObject>> = {};
    const operationIds = new Set<string>();
    const byPath = new Map<string, Route[]>();
    for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
    const add = (path: string, method: string, operation: OperationObject) => {
      if (operationIds.has(operation.operationId)) throw new Error(`Duplicate operationId ${operation.operationId}`);
      operationIds.add(operation.operationId);
      (paths[path] ??= {})[method] = operation;
    };
    for (const [path, onPath] of byPath) {
      for (const route of onPath) add(path, route.method.toLowerCase(), this.operation(route));
      for (const route of onPath.filter((r) => r.method === "GET")) add(path, "head", this.operation(route, true));
      add(path, "options", this.optionsOperation(path, onPath));
    }
    const webhooks = this.webhooks(webhookRoutes);
    const hasWebhooks = Object.keys(webhooks).length > 0;
    const usedHeaders = Object.fromEntries(Object.entries(headers).filter(([name]) => this.usedHeaders.has(name)));
    return {
      openapi: this.version,
      info: { title: info.title, version: API_VERSION, description: info.description, license: LICENSE },
      servers: [{ url: "/", description: "This server" }],
      security: [{ apiKey: [] }],
      tags: [
        ...tags.map((name) => ({ name, description: tagDescriptions[name] })),
        ...(hasWebhooks ? [webhooksTag] : []),
      ],
      paths,
      ...(hasWebhooks ? { webhooks } : {}),
      components: {
        schemas: seedOrdered(this.components.schemas),
        headers: usedHeaders,
        securitySchemes: {
          apiKey: {
            type: "apiKey",
            in: "header",
            name: "X-API-Key",
            description: "An API key; its role decides what it may do.",
          },
        },
      },
    };
  }
}

/** The seed's schemas first, in the seed's order. */
const seedSchemaNames = [
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
];
const seedOrdered = (schemas: Record<string, SchemaObject>): Record<string, SchemaObject> => {
  const rank = (name: string) =>
    seedSchemaNames.includes(name) ? seedSchemaNames.indexOf(name) : seedSchemaNames.length;
  return Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => rank(a) - rank(b)));
};

export interface OpenApiDocuments {
  /** `GET /openapi.json`: tags Pets, Store and Account. */
  public: OpenApiDocument;
  /** `GET /openapi-3.1.json`: the same operations and schemas in OpenAPI 3.1.0, plus every event under `webhooks`. */
  public31: OpenApiDocument;
  /** `GET /admin/openapi.json`: API keys, the probes and the reference endpoints. */
  admin: OpenApiDocument;
}

/** Both documents, read from the route table. The public one has the seed's schema names and only its three tags. */
export const buildOpenApiDocuments = (routes: readonly Route[], options: DocumentOptions): OpenApiDocuments => {
  const isPublic = (route: Route) => publicTags.includes(route.tag);
  const adminTags = [...new Set(routes.filter((route) => !isPublic(route)).map((route) => route.tag))];
  return {
    public: new DocumentBuilder(options).document(
      { title: "Petstore", description: publicDescription },
      routes.filter(isPublic),
      [...publicTags],
    ),
    public31: new DocumentBuilder(options, "3.1.0").document(
      { title: "Petstore", description: publicDescription },
      routes.filter(isPublic),
      [...publicTags],
      routes,
    ),
    admin: new DocumentBuilder(options).document(
      { title: "Petstore administration", description: adminDescription },
      routes.filter((route) => !isPublic(route)),
      adminTags,
    ),
  };
};
