import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { HTTPResponse, type H3Event, type Middleware } from "h3";
import { HttpProblem } from "./problem.ts";
import type { Answer } from "./response.ts";

export interface AccessLogEntry {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /** The API key's id (never its secret), when one was admitted. */
  keyId?: number;
  /** The client's address (behind trusted proxies: from X-Forwarded-For). */
  client?: string;
}

/** What a metrics observer sees of each request, once, as it is answered. */
export interface ObservedRequest {
  method: string;
  /** The route's template (`/pets/{petId}`), never the raw path; `unmatched` when no route matched. */
  route: string;
  status: number;
  seconds: number;
}

export interface RequestContextOptions {
  log: (entry: AccessLogEntry) => void;
  /** The client's address of a request, for the access log. */
  clientAddress?: (event: H3Event) => string;
  /** Called once per request (metrics). */
  observe?: ((request: ObservedRequest) => void) | undefined;
  /** Origins allowed to call from a browser; empty: CORS is off (no CORS headers at all). "*" allows any. */
  corsOrigins: readonly string[];
}

const currentRequest = new AsyncLocalStorage<string>();
const keyIds = new WeakMap<H3Event, number>();

/** The id of the request being handled, as echoed in `X-Request-Id`: for every log line written meanwhile. */
export const currentRequestId = (): string | undefined => currentRequest.getStore();

export const noteKeyId = (event: H3Event, keyId: number): void => {
  keyIds.set(event, keyId);
};

/** A client's own id is kept when it is short and plain; anything else is replaced. */
const acceptable = (id: string | null): id is string => id !== null && /^[\w.:@-]{1,128}$/.test(id);

const exposed = [
  "X-Request-Id",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "RateLimit-Policy",
  "RateLimit",
  "Retry-After",
  "Location",
  "Link",
  "Deprecation",
  "Sunset",
  "Idempotent-Replayed",
  "ETag",
  "Allow",
].join(", ");

/**
 * Wraps every request, probes included: request id in, request id out, protective headers, CORS when configured,
 * and one access-log line. Nothing here reads the API key's secret.
 */
/** The matched route's path as a template: `/pets/:petId` → `/pets/{petId}`; the catch-all and no match → `unmatched`. */
export const routeTemplate = (event: H3Event): string => {
  const route = (event.context as { matchedRoute?: { route?: string } }).matchedRoute?.route;
  if (!route || route.includes("*")) return "unmatched";
  return route.replace(/:(\w+)/g, "{$1}");
};

export const requestContext = ({ log, observe, clientAddress, corsOrigins }: RequestContextOptions): Middleware => {
  const allowOrigin = (origin: string | null): string | undefined =>
    origin && (corsOrigins.includes("*") || corsOrigins.includes(origin)) ? origin : undefined;

  return (event, next) => {
    const incoming = event.req.headers.get("x-request-id");
    const requestId = acceptable(incoming) ? incoming : randomUUID();
    return currentRequest.run(requestId, () => handle(event, next, requestId));
  };

  async function handle(event: H3Event, next: () => unknown, requestId: string): Promise<Answer> {
    const started = performance.now();
    const origin = allowOrigin(event.req.headers.get("origin"));
    const result = await next();
    const response = result instanceof HTTPResponse ? result : fromWebResponse(result);
    const headers = response.headers;
    headers.set("x-request-id", requestId);
    headers.set("x-content-type-options", "nosniff");
    if (event.url.pathname.startsWith("/admin")) headers.set("cache-control", "no-store");
    if (origin) {
      headers.set("access-control-allow-origin", origin);
      headers.set("access-control-expose-headers", exposed);
      headers.append("vary", "Origin");
      // A preflight is the OPTIONS answer of the path (204 with Allow), plus what the browser asks about.
      if (event.req.method === "OPTIONS" && response.status === 204 && event.req.headers.has("access-control-request-method")) {
        headers.set("access-control-allow-methods", headers.get("allow") ?? "");
        headers.set("access-control-allow-headers", "Content-Type, X-API-Key, Idempotency-Key, If-Match, If-None-Match, X-Request-Id");
        headers.set("access-control-max-age", "600");
      }
    }
    const keyId = keyIds.get(event);
    const elapsedMs = performance.now() - started;
    const status = response.status ?? 200;
    log({
      requestId,
      method: event.req.method,
      path: event.url.pathname,
      status,
      durationMs: Math.round(elapsedMs * 100) / 100,
      ...(keyId === undefined ? {} : { keyId }),
      ...(clientAddress ? { client: clientAddress(event) } : {}),
    });
    observe?.({ method: event.req.method, route: routeTemplate(event), status, seconds: elapsedMs / 1000 });
    return response;
  }
};

/** Every route answers h3's plain responses; anything else is a bug, answered as one. */
const fromWebResponse = (result: unknown): Answer => {
  if (result instanceof Response) return new HTTPResponse(result.body, { status: result.status, headers: result.headers });
  throw new HttpProblem("internal_error", "A handler answered without a response");
};
