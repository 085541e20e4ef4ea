import type { Clock } from "../shared/clock.port.ts";
import type { DeliveryAttempt } from "./delivery-attempt.ts";
import type { DeliveryAttempts } from "./delivery-attempts.port.ts";
import { MAX_ATTEMPTS, retryDelayMs } from "./retry-schedule.ts";
import type { SendOutcome, WebhookSender } from "./webhook-sender.port.ts";
import type { Settlement, WebhookMessage } from "./webhook-message.ts";
import type { WebhookMessages } from "./webhook-messages.port.ts";
import type { WebhookSigner } from "./webhook-signer.port.ts";
import { signingSecrets, type WebhookSubscription } from "./webhook-subscription.ts";
import type { WebhookSubscriptions } from "./webhook-subscriptions.port.ts";

interface Ports {
  webhooks: WebhookSubscriptions;
  webhookMessages: WebhookMessages;
  deliveryAttempts: DeliveryAttempts;
  sender: WebhookSender;
  signer: WebhookSigner;
  clock: Clock;
}

export interface DeliveryOptions {
  /** Unique per running instance. */
  owner: string;
  /** Well above the sender's time-out, so a live sender keeps its claim. */
  leaseMs: number;
  retryBaseMs: number;
  batch: number;
  /** In [0, 1). */
  random: () => number;
}

// Crash points: docs/consistency.md#webhook-relay-and-delivery
export class DeliverDueMessages {
  readonly #ports: Ports;
  readonly #options: DeliveryOptions;
  constructor(ports: Ports, options: DeliveryOptions) {
    this.#ports = ports;
    this.#options = options;
  }

  async execute(): Promise<number> {
    const { webhookMessages, clock } = this.#ports;
    const { owner, leaseMs, batch } = this.#options;
    const now = clock.now();
    const claimed = await webhookMessages.claimDue(now, { owner, until: new Date(now.getTime() + leaseMs) }, batch);
    // One read per subscription, not per message.
    const subscriptions = new Map<number, Promise<WebhookSubscription | undefined>>();
    const subscriptionOf = (id: number) => {
      if (!subscriptions.has(id)) subscriptions.set(id, this.#ports.webhooks.ofId(id));
      return subscriptions.get(id)!;
    };
    const outcomes = await Promise.all(
      claimed.map(async (message) => await this.#deliver(message, await subscriptionOf(message.subscriptionId))),
    );
    // Two writes per run, not per message.
    const attempts = outcomes.flatMap((o) => (o.attempt ? [o.attempt] : []));
    await Promise.all([
      // The log is for people: its failure must not leave messages unsettled.
      attempts.length > 0 && this.#ports.deliveryAttempts.recordAll(attempts).catch(() => undefined),
      claimed.length > 0 &&
        webhookMessages.settleAll(
          owner,
          outcomes.map((o) => ({ id: o.id, settlement: o.settlement })),
        ),
    ]);
    return claimed.length;
  }

  /** No attempt to log when the subscription is gone. */
  async #deliver(
    message: WebhookMessage,
    subscription: WebhookSubscription | undefined,
  ): Promise<{ id: string; settlement: Settlement; attempt?: DeliveryAttempt }> {
    if (!subscription) return { id: message.id, settlement: { state: "failed", attempts: message.attempts } };
    const { sender, signer, clock } = this.#ports;
    const sentAt = clock.now();
    const timestamp = Math.floor(sentAt.getTime() / 1000);
    const signatures = signingSecrets(subscription, sentAt).map((s) =>
      signer.signature(s, message.id, timestamp, message.payload),
    );
    const outcome = await sender.send({
      url: subscription.url,
      headers: {
        "content-type": "application/json",
        "webhook-id": message.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatures.join(" "),
      },
      body: message.payload,
    });
    const attempt: DeliveryAttempt = {
      subscriptionId: subscription.id,
      messageId: message.id,
      type: message.type,
      attempt: message.attempts + 1,
      at: sentAt,
      status: outcome.kind === "answered" ? outcome.status : undefined,
      error: outcome.kind === "failed" ? outcome.error : undefined,
      responseBody: outcome.kind === "answered" ? outcome.body : undefined,
      durationMs: Math.max(0, clock.now().getTime() - sentAt.getTime()),
    };
    return { id: message.id, settlement: this.#settlement(outcome, message.attempts + 1), attempt };
  }

  #settlement(outcome: SendOutcome, attempts: number): Settlement {
    if (outcome.kind === "answered" && outcome.status >= 200 && outcome.status < 300)
      return { state: "delivered", attempts };
    if (attempts >= MAX_ATTEMPTS) return { state: "failed", attempts };
    const delay = retryDelayMs(attempts, this.#options.retryBaseMs, this.#options.random());
    return { state: "pending", attempts, nextAttemptAt: new Date(this.#ports.clock.now().getTime() + delay) };
  }
}
