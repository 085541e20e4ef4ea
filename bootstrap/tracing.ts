// Loaded only when OTEL_TRACES_EXPORTER=otlp (bootstrap/petstore.ts): without it the service never loads
// OpenTelemetry, so tracing off costs nothing. What is traced: docs/operations.md#tracing.
import { randomUUID } from "node:crypto";
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapPropagator,
} from "@opentelemetry/api";
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from "@opentelemetry/core";
import { OTLPExporterBase } from "@opentelemetry/otlp-exporter-base";
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from "@opentelemetry/otlp-exporter-base/node-http";
import {
  JsonTraceSerializer,
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
} from "@opentelemetry/otlp-transformer";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-node";
import { getRequestIP, type H3, type H3Event } from "h3";
import { clientAddressOf, type TrustedProxies } from "../adapters/http/client-address.ts";
import type { ObservedRequest } from "../adapters/http/request-context.ts";
import type { Stores } from "../core/stores.ts";
import type { WebhookSender } from "../core/webhooks/webhook-sender.port.ts";
import type { Logger } from "./logger.ts";
import { eachPort } from "./metrics.ts";
import type { TracingSettings } from "./tracing-settings.ts";

export interface Tracing {
  /** A server span around every request, continuing the caller's `traceparent`. */
  traceRequests(app: H3): void;
  /** Names the request's span by its route template and records its status (called as each request is answered). */
  observeRequest(request: ObservedRequest): void;
  /** The same stores, each call made while a request's span is open a client span of its own. */
  instrument(stores: Stores): Stores;
  /** The same sender, each delivery a client span whose `traceparent` the receiver gets. */
  sender(sender: WebhookSender): WebhookSender;
  /** Exports the spans still buffered, for at most `STOP_FLUSH_MS`; never fails. */
  shutdown(): Promise<void>;
}

/** How long a stop waits for the last spans: a collector down or slow must not hold the exit. */
export const STOP_FLUSH_MS = 2_000;

const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};
const noPropagation: TextMapPropagator = {
  inject: () => undefined,
  extract: (parent) => parent,
  fields: () => [],
};

const knownMethods = new Set(["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"]);

const withoutQuery = (url: string): string => {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.origin}${parsed.pathname}` : "";
};

const failed = (span: Span, error: unknown) => {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute("error.type", error instanceof Error ? error.constructor.name : "_OTHER");
};

/** Export failures as warnings, one line per interval at most, counting what the quiet ones lost. */
export const exportFailureLog = (logger: Logger, now: () => number, intervalMs = 60_000) => {
  let writtenAt: number | undefined;
  let exports = 0;
  let spans = 0;
  let lastError = "";
  const write = () => {
    logger.warn("trace export failed", { error: lastError, failedExports: exports, spansLost: spans });
    exports = 0;
    spans = 0;
  };
  return {
    failed(error: unknown, lost: number) {
      exports += 1;
      spans += lost;
      lastError = error instanceof Error ? error.message : String(error);
      if (writtenAt !== undefined && now() - writtenAt < intervalMs) return;
      writtenAt = now();
      write();
    },
    /** At stop: the failures the interval kept quiet. */
    flush() {
      if (exports > 0) write();
    },
  };
};

const otlpExporter = (protocol: TracingSettings["protocol"]): SpanExporter => {
  const [contentType, serializer] =
    protocol === "http/json"
      ? ["application/json", JsonTraceSerializer]
      : ["application/x-protobuf", ProtobufTraceSerializer];
  // Endpoint, headers, time-out and compression come from the OTEL_EXPORTER_OTLP_* variables (checked at start).
  const options = convertLegacyHttpOptions({}, "TRACES", "v1/traces", { "Content-Type": contentType });
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(options, serializer, "otlp_http_span_exporter", TraceExporterMetricsHelper, undefined),
  );
};

const reporting = (inner: SpanExporter, log: ReturnType<typeof exportFailureLog>): SpanExporter => ({
  export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
    inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) log.failed(result.error ?? "export failed", spans.length);
      done(result);
    });
  },
  shutdown: () => inner.shutdown(),
  forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
});

/** A ratio drawn by the service, not read from a trace id a caller may have chosen to pass. */
const drawnRatio = (ratio: number): Sampler => ({
  shouldSample: () => ({
    decision: Math.random() < ratio ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD,
  }),
  toString: () => `DrawnRatio{${ratio}}`,
});

/**
 * Spans within the process follow their parent. A caller's decision counts only with a `parentbased_` sampler and
 * `trustCallerSampled`; otherwise the service's own sampler decides each incoming request.
 */
const samplerOf = ({ sampler, trustCallerSampled }: TracingSettings): Sampler => {
  const own = { always_on: new AlwaysOnSampler(), always_off: new AlwaysOffSampler() };
  const root = sampler.kind === "traceidratio" ? new TraceIdRatioBasedSampler(sampler.ratio) : own[sampler.kind];
  const remote = sampler.kind === "traceidratio" ? drawnRatio(sampler.ratio) : own[sampler.kind];
  const trusted = sampler.parentBased && trustCallerSampled;
  return new ParentBasedSampler({
    root,
    remoteParentSampled: trusted ? own.always_on : remote,
    remoteParentNotSampled: trusted ? own.always_off : remote,
  });
};

/** The stable HTTP server attributes known when a request starts (docs/operations.md#tracing). */
const requestAttributes = (event: H3Event, trustProxy: TrustedProxies) => {
  const { req, url } = event;
  const node = req.runtime?.node?.req;
  const scheme = url.protocol.slice(0, -1);
  const method = knownMethods.has(req.method) ? req.method : "_OTHER";
  const attributes: Attributes = {
    "http.request.method": method,
    "url.scheme": scheme,
    "url.path": url.pathname,
    "server.address": url.hostname,
    "server.port": url.port ? Number(url.port) : scheme === "https" ? 443 : 80,
    "client.address": clientAddressOf(event, trustProxy),
  };
  if (method === "_OTHER") attributes["http.request.method_original"] = req.method;
  if (url.search.length > 1) attributes["url.query"] = url.search.slice(1);
  const userAgent = req.headers.get("user-agent");
  if (userAgent) attributes["user_agent.original"] = userAgent;
  const peer = getRequestIP(event);
  if (peer) attributes["network.peer.address"] = peer;
  if (node?.socket.remotePort) attributes["network.peer.port"] = node.socket.remotePort;
  if (node?.httpVersion) attributes["network.protocol.version"] = node.httpVersion;
  return { method, attributes };
};

interface Deps {
  version: string;
  storeKind: string;
  settings: TracingSettings;
  logger: Logger;
  trustProxy: TrustedProxies;
}

/** Exporter, sampler and propagation as `settings` say; batching follows the OTEL_BSP_* variables. */
export const startTracing = ({ version, storeKind, settings, logger, trustProxy }: Deps): Tracing => {
  const failures = exportFailureLog(logger, Date.now);
  const provider = new NodeTracerProvider({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over these. One instance id per process: replicas apart.
    resource: resourceFromAttributes({
      "service.name": "petstore",
      "service.version": version,
      "service.instance.id": randomUUID(),
    }).merge(detectResources({ detectors: [envDetector] })),
    sampler: samplerOf(settings),
    spanProcessors: [new BatchSpanProcessor(reporting(otlpExporter(settings.protocol), failures))],
  });
  // The AsyncLocalStorage context manager: store calls find their request's span.
  provider.register({ propagator: settings.propagate ? new W3CTraceContextPropagator() : noPropagation });
  const tracer = provider.getTracer("petstore", version);
  const dbSystem = storeKind === "mongo" ? { "db.system.name": "mongodb" } : {};

  /** A store call gets a span only under a request's span still open: never after the answer, never in background work. */
  const open = (active: Context) => trace.getSpan(active)?.isRecording() === true;
  const tracePort = <T extends object>(store: string, target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value !== "function" || typeof property !== "string") return value;
        return (...args: unknown[]) => {
          if (!open(context.active())) return value.apply(object, args) as unknown;
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
        const parent = propagation.extract(ROOT_CONTEXT, event.req.headers, headerGetter);
        const { method, attributes } = requestAttributes(event, trustProxy);
        const span = tracer.startSpan(
          method === "_OTHER" ? "HTTP" : method,
          { kind: SpanKind.SERVER, attributes },
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
      if (!span?.isRecording()) return;
      span.setAttribute("http.response.status_code", status);
      // No route matched: the conventions leave http.route out and name the span by its method alone.
      if (route !== "unmatched") {
        span.setAttribute("http.route", route);
        span.updateName(`${knownMethods.has(method) ? method : "HTTP"} ${route}`);
      }
      if (status >= 500) {
        span.setAttribute("error.type", String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
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
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        provider.shutdown().then(
          () => "done",
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        ),
        new Promise<string>((resolve) => (timer = setTimeout(() => resolve("late"), STOP_FLUSH_MS))),
      ]);
      clearTimeout(timer);
      failures.flush();
      if (outcome === "late")
        logger.warn("trace export at stop cut short: the spans still buffered are dropped", {
          waitedMs: STOP_FLUSH_MS,
        });
      else if (outcome !== "done") logger.warn("trace export at stop failed", { error: outcome });
    },
  };
};
