/**
 * The service as `npm start` runs it (memory store, info logging, the webhook worker relaying the outbox), for
 * bench/run.ts: PORT and PETSTORE_ADMIN_KEY in the environment, log lines on stdout (the runner points it at
 * /dev/null), control over IPC.
 */
import { serve } from "h3";
import { loadConfig } from "../bootstrap/config.ts";
import { createLogger } from "../bootstrap/logger.ts";
import { composePetstore } from "../bootstrap/petstore.ts";
import { answerControl } from "./server-control.ts";

const config = loadConfig({ ...process.env, HOST: "127.0.0.1", PETSTORE_STORE: "memory", PETSTORE_SEED_DEMO: "false" });
const logger = createLogger(config.logLevel);
const petstore = await composePetstore(config, logger);
petstore.webhookWorker.start();
const server = serve(petstore.app, { port: config.port, hostname: config.host, silent: true, gracefulShutdown: false });
await server.ready();
answerControl(async () => {
  await server.close(true);
  await petstore.close();
});
