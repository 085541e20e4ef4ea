import type { Server as NodeServer } from "node:http";
import { serve } from "h3";
import { precompressReferenceAssets } from "../adapters/http/openapi/reference.ts";
import { precompressConsoleAssets } from "../adapters/http/console/console.routes.ts";
import { guardNodeServer } from "../adapters/http/node-server-errors.ts";
import { refusalLimits } from "../adapters/http/refusal-limits.ts";
import { SystemClock } from "../adapters/clock/system-clock.ts";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { stopGracefully } from "./graceful-stop.ts";
import { createLogger, stdoutSink, writeAllSync } from "./logger.ts";
import { startMetricsServer } from "./metrics.ts";
import { composePetstore } from "./petstore.ts";

/** Why listening failed, said for an operator: the port and what to do, not the system call. */
const listenFailure = (error: unknown): string | undefined => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `port ${config!.port} on ${config!.host}`;
  if (code === "EADDRINUSE") return `Cannot start: ${where} is already in use (set PORT to another port)`;
  if (code === "EACCES") return `Cannot start: no permission to listen on ${where} (set PORT to 1024 or above)`;
  if (code === "EADDRNOTAVAIL") return `Cannot start: ${config!.host} is not an address of this machine (set HOST)`;
  return undefined;
};

const startUpFailure = (error: unknown): never => {
  // One clear line, no stack: a bad setting, a taken port or an unreachable store is an operator's problem, not a bug.
  const message =
    error instanceof ConfigError
      ? error.message
      : (listenFailure(error) ?? `Cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.stderr.write(`${message}\n`);
  process.exit(1);
};

const metricsUrl = (server: NodeServer | undefined): { metricsUrl?: string } => {
  const address = server?.address();
  if (!address || typeof address === "string") return {};
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { metricsUrl: `http://${host}:${address.port}/metrics` };
};

let config: Config;
try {
  config = loadConfig(process.env);
} catch (error) {
  startUpFailure(error);
}
const logger = createLogger(config!.logLevel);
const petstore = await composePetstore(config!, logger).catch(startUpFailure);

if (petstore.generatedAdminKey) {
  stdoutSink().flush(); // after the log lines before it
  writeAllSync(
    1,
    `\nNo PETSTORE_ADMIN_KEY was set, so an admin API key was created. It is shown only this once:\n\n    ${petstore.generatedAdminKey}\n\n`,
  );
}

precompressReferenceAssets();
const consoleProblem = precompressConsoleAssets();
if (consoleProblem) logger.warn("the staff console is not available", { reason: consoleProblem });
const { headersTimeoutSeconds, requestTimeoutSeconds, keepAliveTimeoutSeconds } = config!.connections;
const server = serve(petstore.app, {
  port: config!.port,
  hostname: config!.host,
  silent: true,
  gracefulShutdown: false,
  node: {
    headersTimeout: headersTimeoutSeconds * 1000,
    requestTimeout: requestTimeoutSeconds * 1000,
    keepAliveTimeout: keepAliveTimeoutSeconds * 1000,
    // Node checks the two time-outs above every 30 s by default: a slow client would get up to 30 s more.
    connectionsCheckingInterval: 1000,
  },
});
guardNodeServer(
  server.node!.server as NodeServer,
  server.node!.handler as Parameters<typeof guardNodeServer>[1],
  logger,
  refusalLimits(petstore.useCases.admitRequest, new SystemClock(), config!.trustProxy),
);
await server.ready().catch(async (error: unknown) => {
  await petstore.close().catch(() => undefined);
  startUpFailure(error);
});
const metricsServer =
  petstore.metrics && config!.metricsPort !== undefined
    ? await startMetricsServer(petstore.metrics, config!.metricsPort, config!.host).catch(async (error: unknown) => {
        await petstore.close().catch(() => undefined);
        return startUpFailure(
          new Error(
            `metrics on port ${config!.metricsPort}: ${error instanceof Error ? error.message : String(error)} (check PETSTORE_METRICS_PORT)`,
          ),
        );
      })
    : undefined;
petstore.webhookWorker.start();
logger.info("petstore listening", { url: server.url, store: config!.store.kind, ...metricsUrl(metricsServer) });

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info("stopping", { signal, ...config!.shutdown });
  const code = await stopGracefully({
    server: server.node!.server as NodeServer,
    beginDrain: petstore.beginDrain,
    closeRest: async () => {
      metricsServer?.closeAllConnections();
      await new Promise((resolve) => (metricsServer ? metricsServer.close(resolve) : resolve(undefined)));
      await petstore.close();
    },
    drainSeconds: config!.shutdown.drainSeconds,
    deadlineSeconds: config!.shutdown.deadlineSeconds,
    logger,
  });
  logger.info("stopped", { exitCode: code });
  process.exit(code);
};
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
