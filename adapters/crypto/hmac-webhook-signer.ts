import { createHmac, randomBytes } from "node:crypto";
import type { WebhookSigner } from "../../core/webhooks/webhook-signer.port.ts";

const PREFIX = "whsec_";

/** Standard Webhooks: HMAC-SHA256 keyed with the base64-decoded secret, over `id.timestamp.body`. */
export class HmacWebhookSigner implements WebhookSigner {
  newSecret(): string {
    return `${PREFIX}${randomBytes(32).toString("base64")}`;
  }

  signature(secret: string, messageId: string, timestampSeconds: number, body: string): string {
    const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
    const mac = createHmac("sha256", key).update(`${messageId}.${timestampSeconds}.${body}`, "utf8").digest("base64");
    return `v1,${mac}`;
  }
}
