// Loaded only when OTEL_TRACES_EXPORTER=otlp (bootstrap/petstore.ts): without it the service never loads
// OpenTelemetry, so tracing off costs nothing. What is traced: docs/operations.md#tracing.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type TextMapGetter,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import type { H3 } from "h3";
import type { ObservedRequest } from "../adapters/http/request-context.ts";
import type { Stores } from "../core/stores.ts";
import type { WebhookSender } from "../core/webhooks/webhook-sender.port.ts";
import { eachPort } from "./metrics.ts";

export interface Tracing {
  /** A server span around every request, continuing the caller's `traceparent`. */
  traceRequests(app: H3): void;
  /** Names the request's span by its route template and records its status (called as each request is answered). */
  observeRequest(request: ObservedRequest): void;
  /** The same stores, each call made inside a traced request a client span of its own. */
  instrument(stores: Stores): Stores;
  /** The same sender, each delivery a client span whose `traceparent` the receiver gets. */
  sender(sender: WebhookSender): WebhookSender;
  /** Exports the spans still buffered. */
  shutdown(): Promise<void>;
}

const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

const withoutQuery = (url: string): string => {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.origin}${parsed.pathname}` : "";
};

const failed = (span: Span, error: unknown) => {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
};

/** Exporter, sampler and batching follow the standard OTEL_* variables (endpoint, headers, OTEL_TRACES_SAMPLER, ...). */
export const startTracing = ({ version, storeKind }: { version: string; storeKind: string }): Tracing => {
  const provider = new NodeTracerProvider({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over these.
    resource: resourceFromAttributes({ "service.name": "petstore", "service.version": version }).merge(
      detectResources({ detectors: [envDetector] }),
    ),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The AsyncLocalStorage context manager (store calls find their request's span) and W3C trace context only.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  const tracer = provider.getTracer("petstore", version);
  const dbSystem = storeKind === "mongo" ? { "db.system.name": "mongodb" } : {};

  const tracePort = <T extends object>(store: string, target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value !== "function" || typeof property !== "string") return value;
        return (...args: unknown[]) => {
          // Background work outside a request (the webhook worker's polls, recovery) is not traced call by call.
          if (!trace.getSpan(context.active())) return value.apply(object, args) as unknown;
          const span = tracer.startSpan(`${store}.${property}`, {
            kind: SpanKind.CLIENT,
            attributes: { "petstore.store": store, "db.operation.name": property, ...dbSystem },
          });
          try {
            const result: unknown = context.with(trace.setSpan(context.active(), span), () =>
              value.apply(object, args),
            );
            if (!(result instanceof Promise)) {
              span.end();
              return result;
            }
            return result.then(
              (ok: unknown) => {
                span.end();
                return ok;
              },
              (error: unknown) => {
                failed(span, error);
                span.end();
                throw error;
              },
            );
          } catch (error) {
            failed(span, error);
            span.end();
            throw error;
          }
        };
      },
    });

  return {
    traceRequests(app) {
      app.use(async (event, next) => {
        const method = event.req.method;
        const parent = propagation.extract(ROOT_CONTEXT, event.req.headers, headerGetter);
        const span = tracer.startSpan(
          method,
          { kind: SpanKind.SERVER, attributes: { "http.request.method": method, "url.path": event.url.pathname } },
          parent,
        );
        try {
          return await context.with(trace.setSpan(parent, span), next);
        } catch (error) {
          failed(span, error);
          throw error;
        } finally {
          span.end();
        }
      });
    },
    observeRequest({ method, route, status }) {
      const span = trace.getSpan(context.active());
      if (!span) return;
      span.updateName(`${method} ${route}`);
      span.setAttributes({ "http.route": route, "http.response.status_code": status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    },
    instrument: (stores) => eachPort(stores, tracePort),
    sender: (inner) => ({
      send: (request) =>
        tracer.startActiveSpan(
          "webhook POST",
          // The target without its query, which may carry the receiver's own token.
          {
            kind: SpanKind.CLIENT,
            attributes: { "http.request.method": "POST", "url.full": withoutQuery(request.url) },
          },
          async (span) => {
            const headers = { ...request.headers };
            propagation.inject(context.active(), headers);
            try {
              const outcome = await inner.send({ ...request, headers });
              if (outcome.kind === "answered") span.setAttribute("http.response.status_code", outcome.status);
              if (outcome.kind === "failed" || outcome.status >= 300) span.setStatus({ code: SpanStatusCode.ERROR });
              return outcome;
            } finally {
              span.end();
            }
          },
        ),
    }),
    shutdown: () => provider.shutdown(),
  };
};
