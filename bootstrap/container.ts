// inversify's metadata polyfill. No decorators are used: core classes stay framework-free and are bound with
// factories (toResolvedValue), so this import only satisfies inversify's own expectations.
import "reflect-metadata";
import { Container } from "inversify";
import { createHttpApp } from "../adapters/http/app.ts";
import type { ObservedRequest } from "../adapters/http/request-context.ts";
import type { UseCases } from "../adapters/http/use-cases.ts";
import { SystemClock } from "../adapters/clock/system-clock.ts";
import { NodeSecrets } from "../adapters/crypto/node-secrets.ts";
import { HmacWebhookSigner } from "../adapters/crypto/hmac-webhook-signer.ts";
import { DnsAddressResolver } from "../adapters/webhooks/dns-address-resolver.ts";
import { HttpWebhookSender } from "../adapters/webhooks/http-webhook-sender.ts";
import type { Secrets } from "../core/access/secrets.port.ts";
import type { AddressResolver } from "../core/webhooks/address-resolver.port.ts";
import type { EventFeed } from "../core/webhooks/event-feed.port.ts";
import type { WebhookSender } from "../core/webhooks/webhook-sender.port.ts";
import type { WebhookSigner } from "../core/webhooks/webhook-signer.port.ts";
import type { Clock } from "../core/shared/clock.port.ts";
import type { Stores } from "../core/stores.ts";
import type { Config } from "./config.ts";
import { createLifecycle, type Lifecycle } from "./lifecycle.ts";
import type { Metrics } from "./metrics.ts";
import type { Tracing } from "./tracing.ts";
import { errorFields, type Logger } from "./logger.ts";
import { tokens } from "./tokens.ts";
import { bindPorts, bindUseCases } from "./use-cases.ts";
import { createWebhookWorker } from "./webhook-worker.ts";

export interface ContainerOverrides {
  clock?: Clock;
  secrets?: Secrets;
  addressResolver?: AddressResolver;
  webhookSender?: WebhookSender;
  /** The outbox webhook delivery reads (default: the stores' own). */
  events?: EventFeed;
  /** Prometheus metrics, when PETSTORE_METRICS_PORT is set. */
  metrics?: Metrics;
  /** OpenTelemetry traces, when OTEL_TRACES_EXPORTER=otlp. */
  tracing?: Pick<Tracing, "sender" | "observeRequest">;
}

/**
 * Built once at start-up. Stores, clock and use cases are singletons (inversify's default scope is transient);
 * requests never reach the container: the HTTP app receives its use cases as plain objects.
 */
export const buildContainer = (
  config: Config,
  stores: Stores,
  logger: Logger,
  overrides: ContainerOverrides = {},
): Container => {
  const container = new Container({ defaultScope: "Singleton" });
  container.bind(tokens.config).toConstantValue(config);
  container.bind(tokens.logger).toConstantValue(logger);
  container.bind(tokens.lifecycle).toConstantValue(createLifecycle());
  container.bind(tokens.stores).toConstantValue(stores);
  container.bind(tokens.clock).toConstantValue(overrides.clock ?? new SystemClock());
  container.bind(tokens.secrets).toConstantValue(overrides.secrets ?? new NodeSecrets());
  container.bind(tokens.webhookSigner).toConstantValue(new HmacWebhookSigner());
  container.bind(tokens.addressResolver).toConstantValue(overrides.addressResolver ?? new DnsAddressResolver());
  const sender =
    overrides.webhookSender ??
    new HttpWebhookSender({
      timeoutMs: config.webhooks.timeoutMs,
      allowPrivateTargets: config.webhooks.allowPrivateTargets,
    });
  container.bind(tokens.webhookSender).toConstantValue(overrides.tracing ? overrides.tracing.sender(sender) : sender);
  const { metrics, tracing } = overrides;
  const observe =
    metrics && tracing
      ? (request: ObservedRequest) => {
          metrics.observeRequest(request);
          tracing.observeRequest(request);
        }
      : (metrics?.observeRequest ?? tracing?.observeRequest);
  bindPorts(container, stores);
  bindUseCases(container);
  container
    .bind(tokens.webhookWorker)
    .toResolvedValue(
      (s: Stores, clock: Clock, c: Config, log: Logger, signer: WebhookSigner, sender: WebhookSender) =>
        createWebhookWorker({
          stores: s,
          events: overrides.events ?? s.outbox,
          sender,
          signer,
          clock,
          logger: log,
          settings: c.webhooks,
        }),
      [tokens.stores, tokens.clock, tokens.config, tokens.logger, tokens.webhookSigner, tokens.webhookSender],
    )
    .inSingletonScope();
  container
    .bind(tokens.httpApp)
    .toResolvedValue(
      (useCases: UseCases, clock: Clock, s: Stores, c: Config, log: Logger, lifecycle: Lifecycle) =>
        createHttpApp(
          { useCases: overrides.metrics ? overrides.metrics.countOrders(useCases) : useCases, clock, health: s.health },
          {
            deprecation: c.getPetDeprecation,
            corsOrigins: c.corsOrigins,
            readinessTimeoutMs: c.store.kind === "mongo" ? c.store.timeoutMs : undefined,
            draining: lifecycle.isDraining,
            events: c.events,
            onRefusal: overrides.metrics?.countRefusal,
            onOpenStreams: overrides.metrics?.setOpenStreams,
            trustProxy: c.trustProxy,
            observe,
            log: (entry) => log.info("request", entry),
            report: (error, requestId) => log.error("unhandled error", { ...errorFields(error), requestId }),
          },
        ),
      [tokens.useCases, tokens.clock, tokens.stores, tokens.config, tokens.logger, tokens.lifecycle],
    )
    .inSingletonScope();
  return container;
};
