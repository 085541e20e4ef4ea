import type { Clock } from "../shared/clock.port.ts";
import { notFound } from "../shared/domain-error.ts";
import type { WebhookSigner } from "./webhook-signer.port.ts";
import type { WebhookSubscription } from "./webhook-subscription.ts";
import type { WebhookSubscriptions } from "./webhook-subscriptions.port.ts";

interface Ports {
  webhooks: WebhookSubscriptions;
  signer: WebhookSigner;
  clock: Clock;
}

export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface RotatedSecret {
  subscription: WebhookSubscription;
  /** Shown once. */
  secret: string;
}

/** The old secret keeps signing for ROTATION_OVERLAP_MS, so receivers can switch. */
export class RotateWebhookSecret {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number): Promise<RotatedSecret> {
    const { webhooks, signer, clock } = this.#ports;
    for (;;) {
      const current = await webhooks.ofId(id);
      if (!current) throw notFound("Webhook subscription", id);
      const now = clock.now();
      const secret = signer.newSecret();
      const previous = current.secrets[0]!;
      const secrets = [
        { value: secret, expiresAt: undefined },
        { value: previous.value, expiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS) },
      ];
      if (await webhooks.replaceSecrets(id, previous.value, secrets)) {
        return { subscription: { ...current, secrets }, secret };
      }
    }
  }
}
