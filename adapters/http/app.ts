import { H3, type H3Event, type HTTPError } from "h3";
import type { Clock } from "../../core/shared/clock.port.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import type { StoreHealth } from "../../core/shared/store-health.port.ts";
import { clientAddressOf, noTrustedProxies, type TrustedProxies } from "./client-address.ts";
import { errorResponse, type ErrorReporter } from "./error-response.ts";
import { json } from "./json.ts";
import { createPipeline, type Access, type Handler, type Pipeline } from "./pipeline.ts";
import { idempotently } from "./idempotency.ts";
import { HttpProblem } from "./problem.ts";
import type { RouteDocs } from "./openapi/route-docs.ts";
import { requestContext, type RequestContextOptions } from "./request-context.ts";
import { requireActor, type Route } from "./route.ts";
import { adminRoutes } from "./routes/admin.routes.ts";
import { categoryRoutes } from "./routes/category.routes.ts";
import { petRoutes, type Deprecation } from "./routes/pet.routes.ts";
import { storeRoutes } from "./routes/store.routes.ts";
import type { UseCases } from "./use-cases.ts";

export interface HttpAppDeps {
  useCases: UseCases;
  clock: Clock;
  health: StoreHealth;
  deprecation: Deprecation;
  report: ErrorReporter;
  /** How long /readyz waits for the store. */
  readinessTimeoutMs?: number;
  /** True once the process is shutting down: /readyz answers 503 from then on. */
  draining?: () => boolean;
  /** Proxies whose X-Forwarded-For is believed (PETSTORE_TRUST_PROXY); none by default. */
  trustProxy?: TrustedProxies;
  /** Every refusal at admission, by code (metrics). */
  onRefusal?: (code: string) => void;
  /** Request ids, access log, protective headers and CORS around every request. */
  requestContext?: RequestContextOptions;
}

/** Public, unkeyed endpoints that are still rate limited per client address. */
export interface PublicEndpoint {
  path: string;
  handle: Handler;
  /** For the operators' OpenAPI document (GET only). */
  operationId?: string;
  docs?: RouteDocs;
}

/** Paths whose every response, errors included, is admitted and carries the rate-limit headers. */
const limitedPrefixes = ["/pets", "/categories", "/store", "/admin", "/openapi.json", "/docs"];
const under = (prefixes: string[], pathname: string) => prefixes.some((p) => pathname === p || pathname.startsWith(`${p}/`));
const isLimited = (pathname: string) => under(limitedPrefixes, pathname);
/** The reference's area needs no key: an unknown path there is a plain 404, limited per client address. */
const accessOfUnknown = (pathname: string): Access => (under(["/openapi.json", "/docs"], pathname) ? "public" : {});

export const apiRoutes = (deps: Pick<HttpAppDeps, "useCases" | "clock" | "deprecation">): Route[] => [
  ...petRoutes(deps.useCases, deps.clock, deps.deprecation),
  ...categoryRoutes(deps.useCases),
  ...storeRoutes(deps.useCases),
  ...adminRoutes(deps.useCases, deps.clock),
];

const notFound = (event: H3Event) =>
  new HttpProblem("not_found", `No resource at ${event.req.method} ${event.url.pathname}`);

/** `extraRoutes`: keyed routes composed from outside the API itself (GET /admin/openapi.json). */
export const createHttpApp = (deps: HttpAppDeps, publicEndpoints: PublicEndpoint[] = [], extraRoutes: Route[] = []): H3 => {
  const { clock, report } = deps;
  const app = new H3({
    // Failures h3 raises before any route runs (a malformed URL, say) still answer the Error shape.
    onError: (error: HTTPError, event: H3Event) => {
      const code = error.status === 400 ? "validation_failed" : error.status === 404 ? "not_found" : undefined;
      const problem = code ? new HttpProblem(code, error.message || "Bad request") : error;
      // Under a limited path such a request is still admitted and counted, and carries the rate-limit headers.
      return isLimited(event.url.pathname)
        ? pipeline(event, accessOfUnknown(event.url.pathname), () => {
            throw problem;
          })
        : errorResponse(problem, report);
    },
  });
  const trusted = deps.trustProxy ?? noTrustedProxies;
  const clientAddress = (event: H3Event) => clientAddressOf(event, trusted);
  if (deps.requestContext) app.use(requestContext({ ...deps.requestContext, clientAddress }));
  const pipeline: Pipeline = createPipeline({ admit: deps.useCases.admitRequest, clock, report, clientAddress, onRefusal: deps.onRefusal });
  const routes = [...apiRoutes(deps), ...extraRoutes];

  app.get("/healthz", () => json({ status: "ok" }));
  app.get("/readyz", () =>
    deps.draining?.()
      ? errorResponse(new DomainError("service_unavailable", "The service is shutting down"), report)
      : readiness(deps.health, deps.readinessTimeoutMs ?? 2_000, report),
  );
  for (const path of ["/healthz", "/readyz"]) {
    // Known paths too: another method is 405 with Allow, and, like GET, never limited.
    app.all(path, (event) =>
      errorResponse(
        new HttpProblem("method_not_allowed", `${event.req.method} is not allowed here; use GET`, { headers: { allow: "GET" } }),
        report,
      ),
    );
  }

  const { runIdempotently } = deps.useCases;
  for (const route of routes) {
    const handler: Handler = route.idempotent
      ? (event, actor) => idempotently(runIdempotently, report, event, requireActor(actor), () => route.handle(event, requireActor(actor)))
      : (event, actor) => route.handle(event, requireActor(actor));
    app.on(route.method, route.path, (event) => pipeline(event, route.access, handler));
  }
  for (const endpoint of publicEndpoints) {
    app.get(endpoint.path, (event) => pipeline(event, "public", endpoint.handle));
  }

  const allowed = new Map<string, { methods: string[]; access: Access }>();
  for (const route of routes) {
    const entry = allowed.get(route.path) ?? { methods: [], access: {} };
    entry.methods.push(route.method);
    allowed.set(route.path, entry);
  }
  for (const endpoint of publicEndpoints) allowed.set(endpoint.path, { methods: ["GET"], access: "public" });
  for (const [path, { methods, access }] of allowed) {
    const allow = methods.join(", ");
    app.all(path, (event) =>
      pipeline(event, access, () => {
        throw new HttpProblem("method_not_allowed", `${event.req.method} is not allowed here; use ${allow}`, {
          headers: { allow },
        });
      }),
    );
  }

  app.all("/**", (event) =>
    isLimited(event.url.pathname)
      ? pipeline(event, accessOfUnknown(event.url.pathname), () => {
          throw notFound(event);
        })
      : errorResponse(notFound(event), report),
  );
  return app;
};

const readiness = async (health: StoreHealth, timeoutMs: number, report: ErrorReporter): Promise<Response> => {
  try {
    await Promise.race([
      health.ping(),
      new Promise((_, reject) => setTimeout(reject, timeoutMs, new Error("store ping timed out")).unref()),
    ]);
    return json({ status: "ready" });
  } catch {
    return errorResponse(new DomainError("service_unavailable", "The store is not answering", 5), report);
  }
};
