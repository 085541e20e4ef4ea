import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from "openapi-fetch";
import { errorToThrow } from "./errors.js";
import type { paths as AdminPaths } from "./generated/petstore-admin-api.js";
import type { paths } from "./generated/petstore-api.js";
import { streamEvents, type EventsOptions, type PetstoreStreamItem } from "./events.js";
import { nextLink } from "./paging.js";
import {
  retryingFetch,
  type AttemptOutcome,
  type PetstoreLogger,
  type RetryOptions,
  type RetryWait,
  type SendOptions,
} from "./retry.js";

export interface PetstoreClientOptions {
  /** The service's root URL, such as `http://localhost:8080`. */
  baseUrl: string;
  /** Sent as `X-API-Key` on every request (none when undefined, so `process.env.PETSTORE_API_KEY` may be passed). */
  apiKey?: string | undefined;
  /** Milliseconds an attempt may take, its answer's body included (default 60 000); a call's own `timeout` wins. */
  timeout?: number | undefined;
  /** Attempts after the first (default 3: four in all); a call's own `maxRetries` wins, 0 sends it once. */
  maxRetries?: number | undefined;
  /** Sees each wait before it starts (the same as `retry.onRetry`). */
  onRetry?: ((wait: RetryWait) => void) | undefined;
  /** Sees every attempt's outcome, the last one included. */
  onAttempt?: ((outcome: AttemptOutcome) => void) | undefined;
  /** Gets one `warn` line per wait of over a second (default console; false for none). */
  logger?: PetstoreLogger | false | undefined;
  /** Back-off and retries (see RetryOptions); `false` sends every request once. */
  retry?: RetryOptions | false | undefined;
  /** The fetch to send with (default globalThis.fetch): a test's fake, or one with a proxy. */
  fetch?: ((request: Request) => Promise<Response>) | undefined;
  /** Cancels every call of this client, waits included. A call's own `signal` cancels that call. */
  signal?: AbortSignal | undefined;
  /** Further headers for every request. */
  headers?: Record<string, string> | undefined;
  /** Makes the Idempotency-Key of each POST that brings none (default crypto.randomUUID). */
  idempotencyKey?: (() => string) | undefined;
}

/** What a call may set for itself, beside openapi-fetch's options: `{ timeout: 5_000, maxRetries: 0 }`. */
export interface CallOptions {
  /** Milliseconds each attempt of this call may take, its answer's body included. */
  timeout?: number | undefined;
  /** Attempts after the first for this call: 0 sends it once. */
  maxRetries?: number | undefined;
}

/**
 * The paths this client calls: the public API (`/me` included) and the administration of API keys and webhooks (admin keys).
 * `GET /events` is a stream, read with `events()`.
 */
export type PetstorePaths = paths & {
  [
    P in keyof AdminPaths as P extends `/admin/api-keys${string}` | `/admin/webhooks${string}` ? P : never
  ]: AdminPaths[P];
};

type JsonOf<R> = R extends { content: { "application/json": infer B } } ? B : never;
type OkBody<P extends keyof PetstorePaths> = PetstorePaths[P] extends { get: { responses: { 200: infer R } } }
  ? JsonOf<R>
  : never;

/** The paths whose GET answers a JSON array: the paged lists. */
export type ListPath = {
  [P in keyof PetstorePaths]: [OkBody<P>] extends [never] ? never : OkBody<P> extends readonly unknown[] ? P : never;
}[keyof PetstorePaths];
/** An item of a paged list. */
export type ListItem<P extends ListPath> = OkBody<P> extends readonly (infer I)[] ? I : never;

type UpdateMethod = "PUT" | "PATCH";
type Lower<M extends UpdateMethod> = M extends "PUT" ? "put" : "patch";
/** The paths one can read (GET) and update with this method: the versioned resources, each with an ETag. */
export type UpdatablePath<M extends UpdateMethod> = {
  [P in keyof PetstorePaths]: PetstorePaths[P] extends { get: object } & Record<Lower<M>, object> ? P : never;
}[keyof PetstorePaths];
type OperationOf<P extends keyof PetstorePaths, M extends UpdateMethod> = PetstorePaths[P][Lower<M>] &
  Record<string, unknown>;
type BodyOf<P extends keyof PetstorePaths, M extends UpdateMethod> =
  OperationOf<P, M> extends { requestBody: { content: { "application/json": infer B } } } ? B : never;
type PathParamsOf<P extends keyof PetstorePaths> = PetstorePaths[P] extends { get: { parameters: { path: infer A } } }
  ? A
  : never;

export interface ConditionalUpdate<P extends keyof PetstorePaths, M extends UpdateMethod> extends CallOptions {
  params: { path: PathParamsOf<P> };
  /** The new body, from the resource as it was read: sent with `If-Match` set to the ETag of that read. */
  update: (current: OkBody<P>) => BodyOf<P, M> | Promise<BodyOf<P, M>>;
  headers?: Record<string, string> | undefined;
  signal?: AbortSignal | undefined;
}

type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
type PathsWith<M extends HttpMethod> = {
  [P in keyof PetstorePaths]: PetstorePaths[P] extends { [K in M]: unknown } ? P : never;
}[keyof PetstorePaths];
/** openapi-fetch's init, with the call's own options; optional when nothing in it is required. */
type InitWith<Init> = undefined extends Init
  ? [(Init & CallOptions & { [key: string]: unknown })?]
  : [Init & CallOptions & { [key: string]: unknown }];
/** An openapi-fetch method of this client: typed per path, and taking `timeout` and `maxRetries` per call. */
export type PetstoreMethod<M extends HttpMethod> = <
  Path extends PathsWith<M>,
  Init extends MaybeOptionalInit<PetstorePaths[Path], M>,
>(
  url: Path,
  ...init: InitWith<Init>
) => Promise<
  FetchResponse<Extract<PetstorePaths[Path][M], Record<string | number, unknown>>, Init, "application/json">
>;

export type PetstoreClient = Omit<
  Client<PetstorePaths, "application/json">,
  "GET" | "PUT" | "POST" | "DELETE" | "OPTIONS" | "HEAD" | "PATCH" | "TRACE"
> & {
  GET: PetstoreMethod<"get">;
  PUT: PetstoreMethod<"put">;
  POST: PetstoreMethod<"post">;
  DELETE: PetstoreMethod<"delete">;
  OPTIONS: PetstoreMethod<"options">;
  HEAD: PetstoreMethod<"head">;
  PATCH: PetstoreMethod<"patch">;
  /**
   * Every item of a list, page after page, following `Link: <…>; rel="next"`. A page that fails throws a
   * PetstoreError (or an Error for an answer that is not the service's Error body).
   */
  paginate<P extends ListPath>(
    path: P,
    init?: MaybeOptionalInit<PetstorePaths[P], "get"> & CallOptions,
  ): AsyncGenerator<ListItem<P>, void, undefined>;
  /**
   * Reads a resource, computes its new body from it and writes it with `If-Match: <the ETag read>`, so nobody's
   * change in between is overwritten: that answers 412 `precondition_failed` (`isPetstoreError(error,
   * "precondition_failed")`), and nothing changed. A failed read throws a PetstoreError.
   */
  conditionalUpdate<M extends UpdateMethod, P extends UpdatablePath<M>>(
    method: M,
    path: P,
    options: ConditionalUpdate<P, M>,
  ): Promise<FetchResponse<OperationOf<P, M>, object, "application/json">>;
  /**
   * `GET /events` (staff and admin keys): every event of the log as it happens, and a `reset` item when the service
   * could not resume exactly. Reconnects by itself, with Last-Event-ID; throws PetstoreStreamEndedError when the
   * service ends the stream for good, and a PetstoreError when it refuses it (401, 403).
   */
  events(options?: EventsOptions): AsyncGenerator<PetstoreStreamItem, void, undefined>;
};

/** Adds an Idempotency-Key to a POST that has none: one per logical call, so every attempt carries the same. */
const withIdempotencyKey =
  (next: (request: Request) => Promise<Response>, newKey: () => string) =>
  (request: Request): Promise<Response> => {
    if (request.method !== "POST" || request.headers.has("idempotency-key")) return next(request);
    const headers = new Headers(request.headers);
    headers.set("idempotency-key", newKey());
    return next(new Request(request, { headers }));
  };

const METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"] as const;

type Init = Record<string, unknown> | undefined;

/**
 * openapi-fetch's client for the petstore, typed from its OpenAPI documents, whose requests time out, back off and
 * retry safely (see RetryOptions), plus `paginate`, `conditionalUpdate` and `events`.
 */
export const createPetstoreClient = (options: PetstoreClientOptions): PetstoreClient => {
  const transport = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const settings: SendOptions = {
    ...(options.retry === false ? { maxAttempts: 1 } : options.retry),
    ...(options.maxRetries === undefined ? {} : { maxAttempts: options.maxRetries + 1 }),
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
    ...(options.onAttempt === undefined ? {} : { onAttempt: options.onAttempt }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  };
  const newKey = options.idempotencyKey ?? (() => crypto.randomUUID());
  const sender = (call: CallOptions, send = transport) =>
    withIdempotencyKey(
      retryingFetch(
        send,
        {
          ...settings,
          ...(call.timeout === undefined ? {} : { timeout: call.timeout }),
          ...(call.maxRetries === undefined ? {} : { maxAttempts: call.maxRetries + 1 }),
        },
        options.signal,
      ),
      newKey,
    );
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const headers = { ...options.headers, ...(options.apiKey === undefined ? {} : { "X-API-Key": options.apiKey }) };
  const client = createClient<PetstorePaths, "application/json">({
    baseUrl,
    headers,
    fetch: sender({}),
    // The document's form for lists (`?status=available,pending`); the service takes the repeated form too.
    querySerializer: { array: { style: "form", explode: false } },
  });

  /** A call's own options become a fetch of its own; the rest goes to openapi-fetch as it came. */
  const withCallOptions = (init: Init): Init => {
    if (!init || (init["timeout"] === undefined && init["maxRetries"] === undefined)) return init;
    const { timeout, maxRetries, ...rest } = init as Record<string, unknown> & CallOptions;
    const own = rest["fetch"] as ((request: Request) => Promise<Response>) | undefined;
    return { ...rest, fetch: sender({ timeout, maxRetries }, own) };
  };
  // openapi-fetch's methods are typed per path; these wrappers and helpers serve any path, hence the loose view.
  const loose = client as unknown as Record<
    (typeof METHODS)[number],
    (path: string, init?: Init) => Promise<unknown>
  > & {
    request: (
      method: string,
      path: string,
      init?: Init,
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  };
  const wrapped: Record<string, unknown> = {};
  for (const method of METHODS) {
    const original = loose[method].bind(client);
    wrapped[method] = (path: string, init?: Init) => original(path, withCallOptions(init));
  }
  const request = loose.request.bind(client);
  const call = (method: string, path: string, init?: Init) => request(method, path, withCallOptions(init));

  async function* paginate(path: string, init?: Init): AsyncGenerator<unknown, void, undefined> {
    // The first page from the caller's parameters; the next ones from the query of each next link, as given.
    let query: string | undefined;
    for (;;) {
      const page = await call("GET", path, query === undefined ? init : { ...init, querySerializer: () => query });
      if (page.error !== undefined || !Array.isArray(page.data)) throw errorToThrow(page.error, page.response);
      yield* page.data;
      const next = nextLink(page.response, baseUrl);
      if (!next) return;
      query = next.search.replace(/^\?/, "");
    }
  }

  const conditionalUpdate = async (
    method: UpdateMethod,
    path: string,
    update: ConditionalUpdate<keyof PetstorePaths, UpdateMethod>,
  ) => {
    const init = {
      params: update.params,
      headers: update.headers,
      signal: update.signal,
      timeout: update.timeout,
      maxRetries: update.maxRetries,
    };
    const read = await call("GET", path, init);
    if (read.error !== undefined) throw errorToThrow(read.error, read.response);
    const etag = read.response.headers.get("etag");
    if (!etag) throw new Error(`GET ${read.response.url} answered no ETag: it cannot be updated conditionally`);
    const body = await update.update(read.data as never);
    return call(method, path, { ...init, body, headers: { ...update.headers, "If-Match": etag } });
  };

  const events = (eventsOptions?: EventsOptions) =>
    streamEvents(
      {
        url: `${baseUrl}/events`,
        headers: new Headers(headers),
        send: transport,
        options: settings,
        signal: options.signal,
      },
      eventsOptions,
    );

  return Object.assign(client, wrapped, {
    request: call,
    paginate,
    conditionalUpdate,
    events,
  }) as unknown as PetstoreClient;
};
