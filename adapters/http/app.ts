import { H3, type H3Event, type HTTPError } from "h3";
import type { Clock } from "../../core/shared/clock.port.ts";
import type { StoreHealth } from "../../core/shared/store-health.port.ts";
import { clientAddressOf, noTrustedProxies, type TrustedProxies } from "./client-address.ts";
import { errorResponse, type ErrorReporter } from "./error-response.ts";
import { compressAsset, type CompressedAsset } from "./compressed-asset.ts";
import { defaultEventStreamSettings, OpenStreams, type EventStreamSettings } from "./event-stream.ts";
import { buildOpenApiDocuments } from "./openapi/document.ts";
import { DOCUMENT_CACHE_CONTROL, JSON_TYPE } from "./openapi/reference.ts";
import { createPipeline, type Operation } from "./pipeline.ts";
import { HttpProblem } from "./problem.ts";
import { requestContext, requestIdOf, type AccessLogEntry, type ObservedRequest } from "./request-context.ts";
import { emptyResponse } from "./response.ts";
import type { Access, Deprecation, Route, RouteServices } from "./route.ts";
import { routeTable } from "./route-table.ts";
import type { UseCases } from "./use-cases.ts";

/** What the app drives: the use cases, and the ports its probes and dates read. */
export interface HttpPorts {
  useCases: UseCases;
  clock: Clock;
  health: StoreHealth;
}

export interface HttpSettings {
  deprecation: Deprecation;
  /** Origins allowed to call from a browser; empty: CORS is off (no CORS headers at all). "*" allows any. */
  corsOrigins: readonly string[];
  /** How long /readyz waits for the store. */
  readinessTimeoutMs?: number | undefined;
  /** `GET /events`: how it polls the log and beats; defaults in event-stream.ts. */
  events?: Partial<EventStreamSettings> | undefined;
  /** True once the process is shutting down: /readyz answers 503 from then on. */
  draining?: () => boolean;
  /** One access-log line per request. */
  log: (entry: AccessLogEntry) => void;
  /** Called once per request (metrics). */
  observe?: ((request: ObservedRequest) => void) | undefined;
  /** The number of event streams open on this instance, whenever it changes (metrics). */
  onOpenStreams?: ((open: number) => void) | undefined;
  /** Every refusal at admission, by code (metrics). */
  onRefusal?: ((code: string) => void) | undefined;
  /** Proxies whose X-Forwarded-For is believed (PETSTORE_TRUST_PROXY); none by default. */
  trustProxy?: TrustedProxies | undefined;
  /** Failures that are bugs: logged, and answered 500 without detail. */
  report: ErrorReporter;
}

/** Paths whose every response, errors included, is admitted and carries the rate-limit headers. */
const limitedPrefixes = [
  "/pets",
  "/categories",
  "/store",
  "/admin",
  "/me",
  "/events",
  "/openapi.json",
  "/openapi-3.1.json",
  "/docs",
  "/console",
];
const under = (prefixes: string[], pathname: string) =>
  prefixes.some((p) => pathname === p || pathname.startsWith(`${p}/`));
const isLimited = (pathname: string) => under(limitedPrefixes, pathname);
/** The reference's area needs no key: an unknown path there is a plain 404, limited per client address. */
const accessOfUnknown = (pathname: string): Access =>
  under(["/openapi.json", "/openapi-3.1.json", "/docs", "/console"], pathname) ? "public" : "any-key";

/** `/pets/{petId}` → `/pets/:petId` */
const h3Path = (path: string): string => path.replace(/\{(\w+)\}/g, ":$1");

/** The one trailing-slash policy: `/pets/` is not `/pets` (the router would treat them alike), it is unknown. */
const hasTrailingSlash = (pathname: string) => pathname.length > 1 && pathname.endsWith("/");

/** Who gets a 405 on a path: a keyed path needs a key first; a public one is limited per address; probes are neither. */
const accessOfPath = (routes: Route[]): Access => {
  if (routes.some((r) => r.access !== "public" && r.access !== "unlimited")) return "any-key";
  return routes.some((r) => r.access === "public") ? "public" : "unlimited";
};

/** The service's HTTP adapter: the route table, served through the pipeline, with its OpenAPI documents. */
export const createHttpApp = (ports: HttpPorts, settings: HttpSettings): H3 => {
  const { report } = settings;
  const trusted = settings.trustProxy ?? noTrustedProxies;
  // Asked for by admission and by the access log: worked out once per request.
  const clientAddress = (event: H3Event) =>
    ((event.context as { client?: string }).client ??= clientAddressOf(event, trusted));
  const pipeline = createPipeline({
    admit: ports.useCases.admitRequest,
    runIdempotently: ports.useCases.runIdempotently,
    clock: ports.clock,
    report,
    clientAddress,
    onRefusal: settings.onRefusal,
  });
  const documents = buildOpenApiDocuments(routeTable, { deprecation: settings.deprecation });
  let publicDocument: CompressedAsset | undefined;
  const events = { ...defaultEventStreamSettings, ...settings.events };
  let publicDocument31: CompressedAsset | undefined;
  const services: RouteServices = {
    ...ports,
    deprecation: settings.deprecation,
    readinessTimeoutMs: settings.readinessTimeoutMs ?? 2_000,
    draining: settings.draining ?? (() => false),
    events,
    streams: new OpenStreams(events, settings.onOpenStreams),
    documents: {
      public: () =>
        (publicDocument ??= compressAsset(JSON.stringify(documents.public), JSON_TYPE, DOCUMENT_CACHE_CONTROL)),
      public31: () =>
        (publicDocument31 ??= compressAsset(JSON.stringify(documents.public31), JSON_TYPE, DOCUMENT_CACHE_CONTROL)),
      admin: JSON.stringify(documents.admin),
    },
  };

  const inContext = requestContext({
    log: settings.log,
    observe: settings.observe,
    clientAddress,
    corsOrigins: settings.corsOrigins,
  });
  const notFound = (event: H3Event) => {
    const problem = new HttpProblem("not_found", `No resource at ${event.req.method} ${event.url.pathname}`);
    return isLimited(event.url.pathname)
      ? pipeline.admitted(event, accessOfUnknown(event.url.pathname), () => {
          throw problem;
        })
      : errorResponse(problem, report);
  };

  const app = new H3({
    // Failures h3 raises before any route runs (a malformed URL, say) still answer the Error shape.
    onError: (error: HTTPError, event: H3Event) =>
      inContext(event, () => {
        const code = error.status === 400 ? "validation_failed" : error.status === 404 ? "not_found" : undefined;
        const problem = code ? new HttpProblem(code, error.message || "Bad request") : error;
        // Under a limited path such a request is still admitted and counted, and carries the rate-limit headers.
        // OPTIONS needs no key on any path (see below), so it needs none to be told its URL is malformed either.
        const access = event.req.method === "OPTIONS" ? "public" : accessOfUnknown(event.url.pathname);
        return isLimited(event.url.pathname)
          ? pipeline.admitted(event, access, () => {
              throw problem;
            })
          : errorResponse(problem, report, requestIdOf(event));
      }),
  });

  const byPath = new Map<string, Route[]>();
  for (const route of routeTable) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  for (const [path, routes] of byPath) {
    const operations = new Map<string, Operation>(
      routes.map((route) => [route.method, pipeline.operation(route, services)]),
    );
    const methods = routes.flatMap((route): string[] => (route.method === "GET" ? ["GET", "HEAD"] : [route.method]));
    const allow = [...methods, "OPTIONS"].join(", ");
    const access = accessOfPath(routes);
    const checkPath = pipeline.pathCheck(routes.find((route) => route.input?.path));
    const answer = (event: H3Event) => {
      if (hasTrailingSlash(event.url.pathname)) return notFound(event);
      const method = event.req.method;
      // HEAD runs GET: h3 sends its status and headers (Content-Length included) without the body.
      const operation = operations.get(method === "HEAD" ? "GET" : method);
      if (operation) return operation(event);
      if (method === "OPTIONS") {
        return pipeline.admitted(event, access === "unlimited" ? access : "public", () => {
          checkPath(event);
          return emptyResponse(204, { allow });
        });
      }
      return pipeline.admitted(event, access, () => {
        throw new HttpProblem("method_not_allowed", `${method} is not allowed here; use ${allow}`, {
          headers: { allow },
        });
      });
    };
    app.all(h3Path(path), (event) => inContext(event, () => answer(event)));
  }
  app.all("/**", (event) => inContext(event, () => notFound(event)));
  return app;
};
