import type { EventLog } from "../events/event-log.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { DomainEvent } from "../events/domain-event.ts";
import type { EventFeed, PendingEvent } from "./event-feed.port.ts";
import { isWebhookEventType, type WebhookEventType } from "./webhook-event.ts";
import { messageIdOf, type WebhookMessage } from "./webhook-message.ts";
import type { WebhookMessages } from "./webhook-messages.port.ts";
import type { WebhookSubscription } from "./webhook-subscription.ts";
import type { WebhookSubscriptions } from "./webhook-subscriptions.port.ts";

interface Ports {
  events: EventFeed;
  eventLog: EventLog;
  webhooks: WebhookSubscriptions;
  webhookMessages: WebhookMessages;
  clock: Clock;
}

/** A batch costs about the same round trips whatever its size. */
const BATCH = 200;

export const payloadOf = (event: PendingEvent): string =>
  JSON.stringify({ type: event.type, timestamp: event.occurredAt.toISOString(), data: event.data });

// Crash points: docs/consistency.md#webhook-relay-and-delivery
export class RelayEvents {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(): Promise<number> {
    const { events, eventLog, webhooks, webhookMessages, clock } = this.#ports;
    const pending = await events.pending(BATCH);
    if (pending.length === 0) return 0;
    // The feed's type only hides the DomainEvents the outbox stored.
    const logged = eventLog.append(pending as DomainEvent[]);
    // Awaited below; caught now so an early rejection is not reported as unhandled.
    logged.catch(() => undefined);
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
    await Promise.all([logged, messages.length > 0 && webhookMessages.enqueue(messages)]);
    await events.acknowledge(pending.map((e) => e.id));
    return pending.length;
  }
}
