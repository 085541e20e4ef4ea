import { HmacWebhookSigner } from "../../adapters/crypto/hmac-webhook-signer.ts";
import type { OutgoingWebhook, SendOutcome, WebhookSender } from "../../core/webhooks/webhook-sender.port.ts";
import { CreateWebhookSubscription } from "../../core/webhooks/create-webhook-subscription.ts";
import { DeliverDueMessages, type DeliveryOptions } from "../../core/webhooks/deliver-due-messages.ts";
import { RelayEvents } from "../../core/webhooks/relay-events.ts";
import type { WebhookEventType } from "../../core/webhooks/webhook-event.ts";
import { MemoryEventFeed } from "../support/memory-event-feed.ts";
import { aWorld, type World } from "./world.ts";

/** A receiver the test scripts: each send takes the next outcome (the last one repeats). */
export class ScriptedSender implements WebhookSender {
  readonly sent: OutgoingWebhook[] = [];
  #script: (SendOutcome | (() => Promise<SendOutcome>))[];
  constructor(...script: (SendOutcome | (() => Promise<SendOutcome>))[]) {
    this.#script = script.length > 0 ? script : [ok];
  }

  async send(request: OutgoingWebhook): Promise<SendOutcome> {
    this.sent.push(request);
    const next = this.#script.length > 1 ? this.#script.shift()! : this.#script[0]!;
    return typeof next === "function" ? next() : next;
  }
}

export const ok: SendOutcome = { kind: "answered", status: 204, body: "" };
export const serverError: SendOutcome = { kind: "answered", status: 500, body: "boom" };
export const timedOut: SendOutcome = { kind: "failed", error: "timeout after 10000 ms" };

export type WebhookWorld = World & {
  feed: MemoryEventFeed;
  signer: HmacWebhookSigner;
  sender: ScriptedSender;
  relay: RelayEvents;
  worker(owner?: string, options?: Partial<DeliveryOptions>): DeliverDueMessages;
  subscribe(events: WebhookEventType[], url?: string): Promise<{ id: number; secret: string }>;
  /** Records an event now. */
  event(type: WebhookEventType, data?: unknown): string;
};

export const aWebhookWorld = (sender = new ScriptedSender()): WebhookWorld => {
  const world = aWorld();
  const feed = new MemoryEventFeed();
  const signer = new HmacWebhookSigner();
  const ports = { ...world, events: feed, signer, sender };
  return {
    ...world,
    feed,
    signer,
    sender,
    relay: new RelayEvents(ports),
    worker: (owner = "instance-1", options = {}) =>
      new DeliverDueMessages(ports, {
        owner,
        leaseMs: 60_000,
        retryBaseMs: 5_000,
        batch: 10,
        random: () => 0.5,
        ...options,
      }),
    async subscribe(events, url = "https://hooks.example/petstore") {
      const resolver = { resolve: async () => ["93.184.215.14"] };
      const issued = await new CreateWebhookSubscription(
        { ...ports, resolver },
        { allowPrivateTargets: false },
      ).execute({ url, events });
      return { id: issued.subscription.id, secret: issued.secret };
    },
    event(type, data = { id: 1 }) {
      return feed.record(type, data, world.clock.now()).id;
    },
  };
};
