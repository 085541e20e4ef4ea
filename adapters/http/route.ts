import type { z } from "zod";
import type { Actor, Permission } from "../../core/access/permissions.ts";
import type { IdempotentAttempt } from "../../core/idempotency/run-idempotently.ts";
import type { Clock } from "../../core/shared/clock.port.ts";
import type { Page } from "../../core/shared/page.ts";
import type { StoreHealth } from "../../core/shared/store-health.port.ts";
import type { CompressedAsset } from "./compressed-asset.ts";
import type { EventStreamSettings, OpenStreams } from "./event-stream.ts";
import type { ErrorCode } from "./problem.ts";
import type { UseCases } from "./use-cases.ts";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Who may call: a valid API key whose role holds the permission (`"any-key"`: any valid key), anyone limited per
 * client address (`"public"`), or anyone without admission at all (`"unlimited"`: the probes).
 */
export type Access = Permission | "any-key" | "public" | "unlimited";

/** `Pets`, `Store` and `Account` (`GET /me`) make the public reference; the other tags go to the operators' document. */
export type DocTag =
  "Pets" | "Store" | "Account" | "Events" | "Console" | "API keys" | "Webhooks" | "Reference" | "Health";

export const publicTags: readonly DocTag[] = ["Pets", "Store", "Account"];

/** What a route takes: parsed by the pipeline before the handler runs, and read by the OpenAPI document. */
export interface RouteInput {
  /** The path parameters; their names must match the path. */
  path?: z.ZodObject;
  /** The query string, one property a parameter. Absent: no parameter is accepted. */
  query?: z.ZodObject;
  /** Request headers beyond `X-API-Key` and those the flags add (`Idempotency-Key`, `If-Match`). */
  headers?: z.ZodObject;
  /** A JSON request body. */
  body?: z.ZodType;
}

type Out<S, Else> = S extends z.ZodType ? z.output<S> : Else;

/** What a handler receives: every part of the input, parsed. */
export interface Parsed<I extends RouteInput> {
  path: Out<I["path"], Record<string, never>>;
  query: Out<I["query"], Record<string, never>>;
  headers: Out<I["headers"], Record<string, never>>;
  body: Out<I["body"], undefined>;
  /** The revision an `If-Match` named, on a `conditional` route; undefined when none was sent (or `*`). */
  expectedRevision: number | undefined;
  /** On an `idempotent` route called with an Idempotency-Key: the attempt it runs as (see IdempotentAttempt). */
  attempt?: IdempotentAttempt | undefined;
  /** The client's address (behind trusted proxies, the one they name): what per-address caps count. */
  clientAddress: string;
}

export interface RouteOutput {
  status: 200 | 201 | 204;
  description: string;
  /** The body's wire shape; JSON unless `mediaType` says otherwise. */
  body?: z.ZodType;
  mediaType?: string;
  /** `Location` on creates, `Link` (rel="next") on lists. */
  headers?: readonly ("Location" | "Link")[];
  /** A static document or asset: compressed by `Accept-Encoding`, `ETag`, `If-None-Match` → 304. */
  cacheable?: true;
}

/** A single resource with a strong ETag: `letter` + id + `r` + revision, e.g. `"p7r3"`. */
export interface Versioned {
  /** Tags of this resource kind start with it. */
  letter: string;
  /** Which path parameter names the resource. */
  idParam: string;
  /** A query parameter whose answers are another representation, without a tag (no ETag, no 304). */
  untaggedWith?: string;
}

/** One operation: what the router, the pipeline and the OpenAPI document need to know about it. */
interface RouteDeclaration<I extends RouteInput> {
  method: Method;
  /** OpenAPI syntax: /pets/{petId} */
  path: string;
  operationId: string;
  tag: DocTag;
  summary: string;
  description?: string;
  /** Honours an `Idempotency-Key` header: a retry replays the first response instead of acting again. */
  idempotent?: true;
  /** GET answers a strong ETag (If-None-Match → 304); PUT, PATCH and DELETE honour If-Match (stale → 412). */
  versioned?: Versioned;
  input?: I;
  output: RouteOutput;
  /** Error codes this operation can answer beyond the ones that follow from its access, input and flags. */
  errors?: readonly ErrorCode[];
  /** Deprecated in favour of another operation: `deprecated: true`, `x-sunset` and the RFC 9745/8594 headers. */
  deprecated?: { successor: string };
  /** Shown as a stability mark (`x-stability`) and a badge (`x-badges`). */
  stability?: "beta" | "experimental";
  /**
   * Turns off the interactive try-out of this operation in the reference (`x-hideTryItPanel`); the reason is
   * said in the operation's description.
   */
  hideTryItPanel?: { reason: string };
  /** Requests the service sends because of this operation (webhooks), by name: OpenAPI `callbacks`. */
  callbacks?: Readonly<Record<string, Callback>>;
}

/** One request the service sends to a URL given in the operation's request body. */
export interface Callback {
  summary: string;
  description: string;
  /** A JSON Pointer into the request body naming the URL, as in `{$request.body#/url}`. */
  urlField: string;
  body: z.ZodType;
  /** Request headers it carries, with what each means. */
  headers: Readonly<Record<string, string>>;
}

/**
 * A handler gets its parsed input, the caller and what the app was built with; it returns plain data (the
 * output's body, presented) or a Reply. It never sees the request itself.
 */
type Handler<I extends RouteInput, A> = (input: Parsed<I>, actor: A, app: RouteServices) => Promise<unknown> | unknown;

export interface KeyedRoute<I extends RouteInput = RouteInput> extends RouteDeclaration<I> {
  access: Permission | "any-key";
  handle: Handler<I, Actor>;
}

export interface OpenRoute<I extends RouteInput = RouteInput> extends RouteDeclaration<I> {
  access: "public" | "unlimited";
  handle: Handler<I, undefined>;
}

export type Route<I extends RouteInput = RouteInput> = KeyedRoute<I> | OpenRoute<I>;

export interface Deprecation {
  deprecatedAt: Date;
  sunsetAt: Date;
}

/** What handlers may use, given once when the app is built: the route table itself needs none of it. */
export interface RouteServices {
  useCases: UseCases;
  clock: Clock;
  health: StoreHealth;
  /** How long /readyz waits for the store. */
  readinessTimeoutMs: number;
  /** True once the process is shutting down. */
  draining: () => boolean;
  deprecation: Deprecation;
  /** How `GET /events` polls the log, beats and advises reconnecting. */
  events: EventStreamSettings;
  /** The event streams open on this instance, capped per key and per client address. */
  streams: OpenStreams;
  /** The OpenAPI documents, serialised once; the public ones (3.0.3 and 3.1.0) compressed on first use. */
  documents: { public: () => CompressedAsset; public31: () => CompressedAsset; admin: string };
}

/** Declares a route; the type parameter ties the handler's input to the declared schemas. */
// The table holds routes of many input types; each is checked here, where it is declared.
/* eslint-disable @typescript-eslint/no-explicit-any */
export const route = <I extends RouteInput = Record<never, never>>(declaration: Route<I>): Route<any> =>
  declaration as Route<any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * What a handler returns when plain data is not enough: extra headers, an ETag, a page, raw text. The pipeline
 * serialises it once, with Content-Length.
 */
export class Reply {
  readonly body: unknown;
  readonly headers: Record<string, string>;
  readonly etag: string | undefined;
  /** A list page's next `after`: the pipeline answers the `Link: <…>; rel="next"` header. */
  readonly nextAfter: number | undefined;
  /** With a name order: the `afterName` of the next page, beside `nextAfter`. */
  readonly nextAfterName: string | undefined;
  /** Sent as is, with this content type, instead of JSON. */
  readonly raw: { text: string; contentType: string } | undefined;
  /** A static document or asset, in the encoding the client accepts. */
  readonly asset: CompressedAsset | undefined;
  /** A body written as it comes (server-sent events), with this content type: no Content-Length. */
  readonly stream: { body: ReadableStream<Uint8Array<ArrayBuffer>>; contentType: string } | undefined;
  constructor(parts: {
    body?: unknown;
    headers?: Record<string, string>;
    etag?: string;
    nextAfter?: number;
    nextAfterName?: string;
    raw?: Reply["raw"];
    asset?: CompressedAsset;
    stream?: Reply["stream"];
  }) {
    this.body = parts.body;
    this.headers = parts.headers ?? {};
    this.etag = parts.etag;
    this.nextAfter = parts.nextAfter;
    this.nextAfterName = parts.nextAfterName;
    this.raw = parts.raw;
    this.asset = parts.asset;
    this.stream = parts.stream;
  }
}

/** A single resource with its strong entity tag (see conditional.ts). */
export const tagged = (body: unknown, etag: string): Reply => new Reply({ body, etag });

export const created = (body: unknown, location: string): Reply => new Reply({ body, headers: { location } });

export const withHeaders = (body: unknown, headers: Record<string, string>): Reply => new Reply({ body, headers });

/** A bare JSON array of the page's items, presented; `Link: <…>; rel="next"` when more exist. */
export const paged = <T>(page: Page<T>, present: (item: T) => unknown): Reply =>
  new Reply({
    body: page.items.map(present),
    ...(page.nextAfter === undefined ? {} : { nextAfter: page.nextAfter }),
    ...(page.nextAfterName === undefined ? {} : { nextAfterName: page.nextAfterName }),
  });

export const rawText = (text: string, contentType: string, headers: Record<string, string> = {}): Reply =>
  new Reply({ raw: { text, contentType }, headers });

export const assetReply = (asset: CompressedAsset, headers: Record<string, string> = {}): Reply =>
  new Reply({ asset, headers });
