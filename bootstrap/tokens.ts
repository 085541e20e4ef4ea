import type { ServiceIdentifier } from "inversify";
import type { H3 } from "h3";
import type { Secrets } from "../core/access/secrets.port.ts";
import type { Clock } from "../core/shared/clock.port.ts";
import type { Stores } from "../core/stores.ts";
import type { UseCases } from "../adapters/http/use-cases.ts";
import type { Config } from "./config.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { Logger } from "./logger.ts";
import type { AddressResolver } from "../core/webhooks/address-resolver.port.ts";
import type { WebhookSender } from "../core/webhooks/webhook-sender.port.ts";
import type { WebhookSigner } from "../core/webhooks/webhook-signer.port.ts";
import type { WebhookWorker } from "./webhook-worker.ts";

const token = <T>(name: string): ServiceIdentifier<T> => Symbol(name);

/** Every service the container knows, typed. */
export const tokens = {
  config: token<Config>("Config"),
  logger: token<Logger>("Logger"),
  clock: token<Clock>("Clock"),
  secrets: token<Secrets>("Secrets"),
  stores: token<Stores>("Stores"),
  useCases: token<UseCases>("UseCases"),
  httpApp: token<H3>("HttpApp"),
  webhookSigner: token<WebhookSigner>("WebhookSigner"),
  addressResolver: token<AddressResolver>("AddressResolver"),
  webhookSender: token<WebhookSender>("WebhookSender"),
  webhookWorker: token<WebhookWorker>("WebhookWorker"),
  lifecycle: token<Lifecycle>("Lifecycle"),
} as const;
