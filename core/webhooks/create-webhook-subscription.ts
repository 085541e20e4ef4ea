import type { Clock } from "../shared/clock.port.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { AddressResolver } from "./address-resolver.port.ts";
import type { WebhookSigner } from "./webhook-signer.port.ts";
import type { NewWebhookSubscription, WebhookSubscription } from "./webhook-subscription.ts";
import type { WebhookSubscriptions } from "./webhook-subscriptions.port.ts";
import { assertTargetAllowed } from "./webhook-target.ts";

interface Ports {
  webhooks: WebhookSubscriptions;
  ids: IdAllocator;
  signer: WebhookSigner;
  resolver: AddressResolver;
  clock: Clock;
}

export interface IssuedWebhookSubscription {
  subscription: WebhookSubscription;
  /** Shown once. */
  secret: string;
}

export class CreateWebhookSubscription {
  readonly #ports: Ports;
  readonly #allowPrivate: boolean;
  constructor(ports: Ports, options: { allowPrivateTargets: boolean }) {
    this.#ports = ports;
    this.#allowPrivate = options.allowPrivateTargets;
  }

  async execute(input: NewWebhookSubscription): Promise<IssuedWebhookSubscription> {
    const { webhooks, ids, signer, resolver, clock } = this.#ports;
    await assertTargetAllowed(input.url, resolver, this.#allowPrivate);
    const secret = signer.newSecret();
    const subscription: WebhookSubscription = {
      id: await ids.next("webhooks"),
      url: input.url,
      events: [...new Set(input.events)],
      description: input.description,
      secrets: [{ value: secret, expiresAt: undefined }],
      createdAt: clock.now(),
    };
    await webhooks.add(subscription);
    return { subscription, secret };
  }
}
