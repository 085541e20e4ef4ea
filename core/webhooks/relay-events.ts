import type { Clock } from "../shared/clock.port.ts";
import type { EventFeed, PendingEvent } from "./event-feed.port.ts";
import { isWebhookEventType, type WebhookEventType } from "./webhook-event.ts";
import { messageIdOf, type WebhookMessage } from "./webhook-message.ts";
import type { WebhookMessages } from "./webhook-messages.port.ts";
import type { WebhookSubscription } from "./webhook-subscription.ts";
import type { WebhookSubscriptions } from "./webhook-subscriptions.port.ts";

interface Ports {
  events: EventFeed;
  webhooks: WebhookSubscriptions;
  webhookMessages: WebhookMessages;
  clock: Clock;
}

const BATCH = 100;

/** The body every attempt of a message sends: `{ type, timestamp, data }`. */
export const payloadOf = (event: PendingEvent): string =>
  JSON.stringify({ type: event.type, timestamp: event.occurredAt.toISOString(), data: event.data });

/**
 * Fans pending events out into one message per matching subscription, then acknowledges them. Messages are stored
 * before the acknowledgement and keyed by event × subscription, so a crash in between (or two instances relaying the
 * same batch) stores each message once. A subscription only receives events that happened after it was created.
 */
export class RelayEvents {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  /** How many events it relayed. */
  async execute(): Promise<number> {
    const { events, webhooks, webhookMessages, clock } = this.#ports;
    const pending = await events.pending(BATCH);
    if (pending.length === 0) return 0;
    const listeners = new Map<WebhookEventType, Promise<WebhookSubscription[]>>();
    const now = clock.now();
    const messages: WebhookMessage[] = [];
    for (const event of pending) {
      if (!isWebhookEventType(event.type)) continue;
      const type = event.type;
      if (!listeners.has(type)) listeners.set(type, webhooks.listeningTo(type));
      for (const subscription of await listeners.get(type)!) {
        if (subscription.createdAt > event.occurredAt) continue;
        messages.push({
          id: messageIdOf(event.id, subscription.id),
          subscriptionId: subscription.id,
          eventId: event.id,
          type,
          payload: payloadOf(event),
          state: "pending",
          attempts: 0,
          nextAttemptAt: now,
          createdAt: now,
        });
      }
    }
    if (messages.length > 0) await webhookMessages.enqueue(messages);
    await events.acknowledge(pending.map((e) => e.id));
    return pending.length;
  }
}
