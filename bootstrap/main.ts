import { serve } from "h3";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { createLogger, errorFields } from "./logger.ts";
import { composePetstore } from "./petstore.ts";

const startUpFailure = (error: unknown): never => {
  // One clear line, no stack: a bad setting or an unreachable store is an operator's problem, not a bug.
  const message = error instanceof ConfigError ? error.message : `Cannot start: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
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
  process.stdout.write(
    `\nNo PETSTORE_ADMIN_KEY was set, so an admin API key was created. It is shown only this once:\n\n    ${petstore.generatedAdminKey}\n\n`,
  );
}

const server = serve(petstore.app, { port: config!.port, hostname: config!.host, silent: true, gracefulShutdown: false });
await server.ready();
petstore.webhookWorker.start();
logger.info("petstore listening", { url: server.url, store: config!.store.kind });

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info("stopping", { signal });
  try {
    await server.close(); // stop accepting; requests in flight finish first
    await petstore.close();
    process.exit(0);
  } catch (error) {
    logger.error("unclean stop", errorFields(error));
    process.exit(1);
  }
};
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
