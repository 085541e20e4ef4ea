import type { H3 } from "h3";
import { API_VERSION } from "../adapters/http/openapi/document.ts";
import type { UseCases } from "../adapters/http/use-cases.ts";
import { createMemoryStores } from "../adapters/memory/memory-stores.ts";
import { RecoverInterruptedWrites } from "../core/recovery/recover-interrupted-writes.ts";
import { FlushMarkDrops } from "../core/orders/flush-mark-drops.ts";
import type { Stores } from "../core/stores.ts";
import type { Config } from "./config.ts";
import { buildContainer, type ContainerOverrides } from "./container.ts";
import { seedDemoData } from "./demo-data.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import type { Logger } from "./logger.ts";
import { startRecoveryLoop } from "./recovery-loop.ts";
import { startMarkDropLoop } from "./mark-drop-loop.ts";
import { tokens } from "./tokens.ts";
import type { WebhookWorker } from "./webhook-worker.ts";

export interface Petstore {
  app: H3;
  useCases: UseCases;
  stores: Stores;
  /** Set when no admin key was configured or stored: print it once. */
  generatedAdminKey: string | undefined;
  /** Relays events and delivers webhooks in the background once started (main starts it). */
  webhookWorker: WebhookWorker;
  /** Set when PETSTORE_METRICS_PORT is: what its listener serves. */
  metrics: Metrics | undefined;
  /** From SIGTERM on: /readyz answers 503. */
  beginDrain(): void;
  /** Stops the webhook worker, then closes the stores. */
  close(): Promise<void>;
}

export const openStores = async (config: Config, logger?: Logger): Promise<Stores> => {
  if (config.store.kind === "memory") return createMemoryStores();
  // Loaded only when asked for: the in-memory service never loads the MongoDB driver.
  const { connectMongoStores } = await import("../adapters/mongo/mongo-stores.ts");
  try {
    return await connectMongoStores({
      url: config.store.url,
      dbName: config.store.dbName,
      timeoutMs: config.store.timeoutMs,
      ...(logger && {
        onDriverEvent: (message: string, fields: Record<string, unknown>, level: "debug" | "warn" = "debug") =>
          logger[level](message, fields),
      }),
    });
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)} (check MONGODB_URL)`, { cause: error });
  }
};

/** The whole service, wired and ready to serve: what main runs and what end-to-end tests start. */
export const composePetstore = async (
  config: Config,
  logger: Logger,
  overrides: ContainerOverrides & { stores?: Stores } = {},
): Promise<Petstore> => {
  const metrics =
    overrides.metrics ?? (config.metricsPort === undefined ? undefined : createMetrics(config.store.kind));
  // Loaded only when asked for: without it the service never loads OpenTelemetry.
  const tracing = config.tracing
    ? (await import("./tracing.ts")).startTracing({
        version: API_VERSION,
        storeKind: config.store.kind,
        settings: config.tracing,
        logger,
        trustProxy: config.trustProxy,
      })
    : undefined;
  const opened = overrides.stores ?? (await openStores(config, logger));
  const traced = tracing ? tracing.instrument(opened) : opened;
  const stores = metrics ? metrics.instrument(traced) : traced;
  const container = buildContainer(config, stores, logger, { ...overrides, metrics, tracing });
  const useCases = container.get(tokens.useCases);
  const clock = container.get(tokens.clock);
  metrics?.watchPipeline(opened, clock);
  const { generatedSecret } = await container.get(tokens.ensureAdminKey).execute(config.adminKey);
  // Before serving: whatever a crashed instance left half done is finished or undone (once past the grace period).
  const recovery = new RecoverInterruptedWrites({ ...stores, clock }, config.recovery.graceSeconds * 1000);
  const recoveryLoop = await startRecoveryLoop(
    recovery,
    config.recovery.intervalSeconds * 1000,
    logger,
    metrics?.observeRecovery,
  );
  const markDropLoop = startMarkDropLoop(
    new FlushMarkDrops({ ...stores, clock }, container.get(tokens.stockHints), container.get(tokens.markDrops)),
    logger,
  );
  if (config.seedDemo && (await seedDemoData(useCases, stores))) logger.info("demo data loaded");
  const webhookWorker = container.get(tokens.webhookWorker);
  const app = container.get(tokens.httpApp);
  tracing?.traceRequests(app);
  return {
    app,
    useCases,
    stores,
    generatedAdminKey: generatedSecret,
    webhookWorker,
    metrics,
    beginDrain: () => container.get(tokens.lifecycle).beginDrain(),
    close: async () => {
      await recoveryLoop.stop();
      await markDropLoop.stop();
      await webhookWorker.stop();
      await stores.close();
      await tracing?.shutdown();
    },
  };
};
