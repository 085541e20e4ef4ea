import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from "openapi-fetch";
import { errorToThrow } from "./errors.js";
import type { paths } from "./generated/petstore-api.js";
import { nextLink } from "./paging.js";
import { retryingFetch, type RetryOptions } from "./retry.js";

export interface PetstoreClientOptions {
  /** The service's root URL, such as `http://localhost:8080`. */
  baseUrl: string;
  /** Sent as `X-API-Key` on every request. */
  apiKey?: string;
  /** Back-off and retries (see RetryOptions); `false` sends every request once. */
  retry?: RetryOptions | false;
  /** The fetch to send with (default globalThis.fetch): a test's fake, or one with a proxy. */
  fetch?: (request: Request) => Promise<Response>;
  /** Cancels every call of this client, waits included. A call's own `signal` cancels that call. */
  signal?: AbortSignal;
  /** Further headers for every request. */
  headers?: Record<string, string>;
  /** Makes the Idempotency-Key of each POST that brings none (default crypto.randomUUID). */
  idempotencyKey?: () => string;
}

type JsonOf<R> = R extends { content: { "application/json": infer B } } ? B : never;
type OkBody<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? JsonOf<R> : never;

/** The paths whose GET answers a JSON array: the paged lists. */
export type ListPath = {
  [P in keyof paths]: [OkBody<P>] extends [never] ? never : OkBody<P> extends readonly unknown[] ? P : never;
}[keyof paths];
/** An item of a paged list. */
export type ListItem<P extends ListPath> = OkBody<P> extends readonly (infer I)[] ? I : never;

type UpdateMethod = "PUT" | "PATCH";
type Lower<M extends UpdateMethod> = M extends "PUT" ? "put" : "patch";
/** The paths one can read (GET) and update with this method: the versioned resources, each with an ETag. */
export type UpdatablePath<M extends UpdateMethod> = {
  [P in keyof paths]: paths[P] extends { get: object } & Record<Lower<M>, object> ? P : never;
}[keyof paths];
type OperationOf<P extends keyof paths, M extends UpdateMethod> = paths[P][Lower<M>] & Record<string, unknown>;
type BodyOf<P extends keyof paths, M extends UpdateMethod> =
  OperationOf<P, M> extends { requestBody: { content: { "application/json": infer B } } } ? B : never;
type PathParamsOf<P extends keyof paths> = paths[P] extends { get: { parameters: { path: infer A } } } ? A : never;

export interface ConditionalUpdate<P extends keyof paths, M extends UpdateMethod> {
  params: { path: PathParamsOf<P> };
  /** The new body, from the resource as it was read: sent with `If-Match` set to the ETag of that read. */
  update: (current: OkBody<P>) => BodyOf<P, M> | Promise<BodyOf<P, M>>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export type PetstoreClient = Client<paths, "application/json"> & {
  /**
   * Every item of a list, page after page, following `Link: <…>; rel="next"`. A page that fails throws a
   * PetstoreError (or an Error for an answer that is not the service's Error body).
   */
  paginate<P extends ListPath>(
    path: P,
    init?: MaybeOptionalInit<paths[P], "get">,
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

/**
 * openapi-fetch's client for the petstore, typed from its OpenAPI document, whose requests back off and retry safely
 * (see RetryOptions), plus `paginate` and `conditionalUpdate`.
 */
export const createPetstoreClient = (options: PetstoreClientOptions): PetstoreClient => {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retrying =
    options.retry === false
      ? retryingFetch(send, { maxAttempts: 1 }, options.signal)
      : retryingFetch(send, options.retry, options.signal);
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const client = createClient<paths, "application/json">({
    baseUrl,
    headers: { ...options.headers, ...(options.apiKey === undefined ? {} : { "X-API-Key": options.apiKey }) },
    fetch: withIdempotencyKey(retrying, options.idempotencyKey ?? (() => crypto.randomUUID())),
    // The document's form for lists (`?status=available,pending`); the service takes the repeated form too.
    querySerializer: { array: { style: "form", explode: false } },
  });

  // openapi-fetch's methods are typed per path; these helpers call them for any path of a kind, hence the loose view.
  const call = client.request as unknown as (
    method: string,
    path: string,
    init?: Record<string, unknown>,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

  async function* paginate(path: string, init?: Record<string, unknown>): AsyncGenerator<unknown, void, undefined> {
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
    update: ConditionalUpdate<keyof paths, UpdateMethod>,
  ) => {
    const init = { params: update.params, headers: update.headers, signal: update.signal };
    const read = await call("GET", path, init);
    if (read.error !== undefined) throw errorToThrow(read.error, read.response);
    const etag = read.response.headers.get("etag");
    if (!etag) throw new Error(`GET ${read.response.url} answered no ETag: it cannot be updated conditionally`);
    const body = await update.update(read.data as never);
    return call(method, path, { ...init, body, headers: { ...update.headers, "If-Match": etag } });
  };

  return Object.assign(client, { paginate, conditionalUpdate }) as unknown as PetstoreClient;
};
