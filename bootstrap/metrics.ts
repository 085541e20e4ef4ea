import { createServer, type Server } from "node:http";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ObservedRequest } from "../adapters/http/request-context.ts";
import type { Stores } from "../core/stores.ts";
import { createShopMetrics, type ShopMetrics } from "./shop-metrics.ts";

/** The service's Prometheus metrics: one registry per process (per composed service in tests). */
export interface Metrics extends Omit<ShopMetrics, "afterStoreCall"> {
  registry: Registry;
  observeRequest(request: ObservedRequest): void;
  countRefusal(reason: string): void;
  /** How many `GET /events` streams are open on this instance. */
  setOpenStreams(open: number): void;
  /** The same stores, every port operation timed and its failures counted. */
  instrument(stores: Stores): Stores;
}

export const createMetrics = (storeKind = "memory"): Metrics => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client names these gauges `_total`, which Prometheus keeps for counters (`promtool check metrics` refuses
  // them). Their per-type twins stay: sum(nodejs_active_handles) is the same figure.
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) {
    registry.removeSingleMetric(name);
  }
  const requests = new Histogram({
    name: "http_server_request_duration_seconds",
    help: "Duration of HTTP requests, by method, route template and status code",
    labelNames: ["method", "route", "status_code"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const refusals = new Counter({
    name: "petstore_requests_refused_total",
    help: "Requests refused at admission, by reason (rate_limited, api_key_banned, unauthorized)",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const openStreams = new Gauge({
    name: "petstore_event_streams_open",
    help: "GET /events streams open on this instance",
    registers: [registry],
  });
  const storeDuration = new Histogram({
    name: "petstore_store_operation_duration_seconds",
    help: "Duration of store operations, by store (pets, orders, limiter, ...) and operation",
    labelNames: ["store", "operation"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: "petstore_store_operation_errors_total",
    help: "Store operations that failed (store unreachable, time-outs, refusals), by store and operation",
    labelNames: ["store", "operation"] as const,
    registers: [registry],
  });
  const shop = createShopMetrics(registry, storeKind);

  /** Wraps each method of a port; `this` stays the port itself (adapters keep private fields). */
  const instrumentPort = <T extends object>(store: string, target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value !== "function" || typeof property !== "string") return value;
        return (...args: unknown[]) => {
          const end = storeDuration.startTimer({ store, operation: property });
          try {
            const result: unknown = value.apply(object, args);
            if (!(result instanceof Promise)) {
              end();
              return result;
            }
            return result.then(
              (ok) => {
                end();
                shop.afterStoreCall(store, property, args, ok);
                return ok;
              },
              (error: unknown) => {
                end();
                storeErrors.inc({ store, operation: property });
                throw error;
              },
            );
          } catch (error) {
            end();
            storeErrors.inc({ store, operation: property });
            throw error;
          }
        };
      },
    });

  return {
    countOrders: shop.countOrders,
    observeRecovery: shop.observeRecovery,
    watchPipeline: shop.watchPipeline,
    registry,
    observeRequest: ({ method, route, status, seconds }) =>
      requests.observe({ method, route, status_code: status }, seconds),
    countRefusal: (reason) => refusals.inc({ reason }),
    setOpenStreams: (open) => openStreams.set(open),
    instrument: (stores) => eachPort(stores, instrumentPort),
  };
};

/** The same stores, each port (not `close`) replaced by what `wrap` makes of it. */
export const eachPort = (stores: Stores, wrap: <T extends object>(name: string, port: T) => T): Stores =>
  Object.fromEntries(
    Object.entries(stores).map(([name, port]) => [
      name,
      typeof port === "object" && port !== null ? wrap(name, port) : port,
    ]),
  ) as unknown as Stores;

/** A plain node:http server with GET /metrics only, on its own port: never on the API's. */
export const startMetricsServer = async (metrics: Metrics, port: number, host: string): Promise<Server> => {
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found: GET /metrics\n");
      return;
    }
    metrics.registry.metrics().then(
      (text) =>
        res
          .writeHead(200, { "content-type": metrics.registry.contentType })
          .end(req.method === "HEAD" ? undefined : text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
};
