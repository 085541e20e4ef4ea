import { randomUUID } from "node:crypto";
import type { H3Event } from "h3";
import { sendAnswer, type Answer } from "./response.ts";

// A type, not an interface: the logger takes it as a record of fields.
export type AccessLogEntry = {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /** The API key's id (never its secret), when one was admitted. */
  keyId?: number;
  /** The client's address (behind trusted proxies: from X-Forwarded-For). */
  client?: string;
};

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

/** What the context notes on an event for later stages: its request id, and the API key once one is admitted. */
interface Noted {
  requestId?: string;
  keyId?: number;
}
const noted = (event: H3Event): Noted => event.context as Noted;

/** The id of the request, as echoed in `X-Request-Id`: for every log line written about it. */
export const requestIdOf = (event: H3Event): string | undefined => noted(event).requestId;

export const noteKeyId = (event: H3Event, keyId: number): void => {
  noted(event).keyId = keyId;
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

/** The matched route's path as a template: `/pets/:petId` → `/pets/{petId}`; the catch-all and no match → `unmatched`. */
export const routeTemplate = (event: H3Event): string => {
  const route = (event.context as { matchedRoute?: { route?: string } }).matchedRoute?.route;
  if (!route || route.includes("*")) return "unmatched";
  return route.replace(/:(\w+)/g, "{$1}");
};

const privateAnswer = (pathname: string): boolean =>
  pathname.startsWith("/admin") || pathname === "/me" || pathname.startsWith("/me/");

/** Runs what answers a request inside its context. */
export type InContext = (event: H3Event, produce: () => Promise<Answer> | Answer) => Promise<Response | symbol>;

/**
 * The context of every request, probes included: request id in, request id out, protective headers, CORS when
 * configured, and one access-log line. Every handler of the app runs inside it (a wrapper rather than an h3
 * middleware: one async step per request instead of a chain). Nothing here reads the API key's secret.
 */
export const requestContext = ({ log, observe, clientAddress, corsOrigins }: RequestContextOptions): InContext => {
  const allowOrigin = (origin: string | null): string | undefined =>
    origin && (corsOrigins.includes("*") || corsOrigins.includes(origin)) ? origin : undefined;
  const anyCors = corsOrigins.length > 0;

  return async (event, produce) => {
    const started = performance.now();
    const incoming = event.req.headers.get("x-request-id");
    const requestId = acceptable(incoming) ? incoming : randomUUID();
    const context = noted(event);
    context.requestId = requestId;
    const response = await produce();
    const headers = response.headers;
    headers["x-request-id"] = requestId;
    headers["x-content-type-options"] = "nosniff";
    // Answers about keys (the admin area, and the caller's own key at /me) are never kept by a cache on the way.
    if (privateAnswer(event.url.pathname)) headers["cache-control"] = "no-store";
    const origin = anyCors ? allowOrigin(event.req.headers.get("origin")) : undefined;
    if (origin) {
      headers["access-control-allow-origin"] = origin;
      headers["access-control-expose-headers"] = exposed;
      headers.vary = headers.vary ? `${headers.vary}, Origin` : "Origin";
      // A preflight is the OPTIONS answer of the path (204 with Allow), plus what the browser asks about.
      if (
        event.req.method === "OPTIONS" &&
        response.status === 204 &&
        event.req.headers.has("access-control-request-method")
      ) {
        headers["access-control-allow-methods"] = headers.allow ?? "";
        headers["access-control-allow-headers"] =
          "Content-Type, X-API-Key, Idempotency-Key, If-Match, If-None-Match, X-Request-Id";
        headers["access-control-max-age"] = "600";
      }
    }
    const elapsedMs = performance.now() - started;
    const entry: AccessLogEntry = {
      requestId,
      method: event.req.method,
      path: event.url.pathname,
      status: response.status,
      durationMs: Math.round(elapsedMs * 100) / 100,
    };
    if (context.keyId !== undefined) entry.keyId = context.keyId;
    if (clientAddress) entry.client = clientAddress(event);
    log(entry);
    observe?.({
      method: event.req.method,
      route: routeTemplate(event),
      status: response.status,
      seconds: elapsedMs / 1000,
    });
    // Awaited: an async function that returns a promise resolves through two more microtasks than one that awaits it.
    return await sendAnswer(response, event);
  };
};
