import { randomUUID } from "node:crypto";
import { DeliverDueMessages } from "../core/webhooks/deliver-due-messages.ts";
import type { EventFeed } from "../core/webhooks/event-feed.port.ts";
import { RelayEvents } from "../core/webhooks/relay-events.ts";
import type { WebhookSender } from "../core/webhooks/webhook-sender.port.ts";
import type { WebhookSigner } from "../core/webhooks/webhook-signer.port.ts";
import type { Clock } from "../core/shared/clock.port.ts";
import type { Stores } from "../core/stores.ts";
import type { WebhookSettings } from "./config.ts";
import { errorFields, type Logger } from "./logger.ts";
import { outsideRequests } from "./outside-requests.ts";

export interface WebhookWorker {
  start(): void;
  /** Stops polling and waits for the run in progress (deliveries in flight finish or time out). */
  stop(): Promise<void>;
}

interface Deps {
  stores: Stores;
  /** The outbox; without one, only messages already stored are delivered. */
  events: EventFeed | undefined;
  sender: WebhookSender;
  signer: WebhookSigner;
  clock: Clock;
  logger: Logger;
  settings: WebhookSettings;
}

/**
 * Every instance runs it: relay pending events into messages, then deliver what is due. Runs back to back while
 * there is work, otherwise every `pollMs`, and at once when an outbox that can tell (the memory store's) records
 * events. Claims are leased, so instances never send a message at the same time.
 */
export const createWebhookWorker = ({
  stores,
  events,
  sender,
  signer,
  clock,
  logger,
  settings,
}: Deps): WebhookWorker => {
  const ports = { ...stores, sender, signer, clock };
  const relay = events && new RelayEvents({ ...ports, events });
  const deliver = new DeliverDueMessages(ports, {
    owner: `${randomUUID()}`,
    // Well above one delivery's time-out (plus the store writes around it): a live instance keeps its claim. It is
    // also how long a message waits after its sender died mid-delivery (35 s at the default time-out).
    leaseMs: settings.timeoutMs * 3 + 5_000,
    retryBaseMs: settings.retryBaseMs,
    // As many as a relay run makes of one subscription's events: delivery keeps up with what the relay adds.
    batch: 100,
    random: Math.random,
  });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  /**
   * "poll": the next run waits out the poll interval, which a wake-up cuts short; "now": it is due at once; "rest": it
   * waits out the poll after a failed run, whatever is recorded meanwhile; "running": a run is under way.
   */
  let state: "poll" | "now" | "rest" | "running" = "now";
  /** Events were recorded while a run was under way: it may have read the outbox before them. */
  let woken = false;
  let unwatch: (() => void) | undefined;

  const tick = async (): Promise<"busy" | "idle" | "failed"> => {
    // Side by side: a run delivers what earlier runs relayed, so under load a message waits for one of the two,
    // not for both one after the other. Each settles before the tick ends (stop() waits for both).
    const [relayed, delivered] = await Promise.allSettled([
      relay ? relay.execute() : Promise.resolve(0),
      deliver.execute(),
    ]);
    if (relayed.status === "fulfilled" && delivered.status === "fulfilled")
      return relayed.value + delivered.value > 0 ? "busy" : "idle";
    for (const outcome of [relayed, delivered]) {
      if (outcome.status === "rejected") logger.warn("webhook delivery run failed", errorFields(outcome.reason));
    }
    return "failed";
  };
  const schedule = (next: "poll" | "now" | "rest") => {
    if (stopped) return;
    state = next;
    timer = setTimeout(
      () =>
        outsideRequests(() => {
          state = "running";
          woken = false;
          running = tick().then((outcome) =>
            schedule(outcome === "failed" ? "rest" : outcome === "busy" || woken ? "now" : "poll"),
          );
        }),
      next === "now" ? 0 : settings.pollMs,
    );
  };
  /** Called by the outbox on each write that records events: a run waiting out the poll starts at once. */
  const wake = () => {
    if (state !== "poll") {
      woken = true;
      return;
    }
    clearTimeout(timer);
    schedule("now");
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      unwatch = events?.watch?.(wake);
      schedule("now");
    },
    async stop() {
      stopped = true;
      unwatch?.();
      clearTimeout(timer);
      await running;
    },
  };
};
