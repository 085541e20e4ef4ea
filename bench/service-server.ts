/**
 * The service as `npm start` runs it (memory store unless PETSTORE_STORE=mongo, info logging, the webhook worker
 * relaying the outbox), for bench/run.ts: PORT and PETSTORE_ADMIN_KEY in the environment, log lines on stdout (the runner points it at
 * /dev/null), control over IPC.
 */
import type { Server as NodeServer } from "node:http";
import { serve } from "h3";
import { guardNodeServer } from "../adapters/http/node-server-errors.ts";
import { loadConfig } from "../bootstrap/config.ts";
import { createLogger } from "../bootstrap/logger.ts";
import { composePetstore } from "../bootstrap/petstore.ts";
import { answerControl } from "./server-control.ts";

const config = loadConfig({
  ...process.env,
  HOST: "127.0.0.1",
  PETSTORE_STORE: process.env.PETSTORE_STORE === "mongo" ? "mongo" : "memory",
  PETSTORE_SEED_DEMO: "false",
});
const logger = createLogger(config.logLevel);
const petstore = await composePetstore(config, logger);
petstore.webhookWorker.start();
const server = serve(petstore.app, { port: config.port, hostname: config.host, silent: true, gracefulShutdown: false });
// As bootstrap/main.ts: node's parser refusals answered with the Error shape, and each request's target and Host checked.
guardNodeServer(
  server.node!.server as NodeServer,
  server.node!.handler as Parameters<typeof guardNodeServer>[1],
  logger,
);
await server.ready();
answerControl(async () => {
  await server.close(true);
  await petstore.close();
});
