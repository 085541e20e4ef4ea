/** Secrets and signatures of the Standard Webhooks specification (HMAC needs a crypto library, so it is a port). */
export interface WebhookSigner {
  /** `whsec_` + base64 of at least 24 random bytes. */
  newSecret(): string;
  /** `v1,<base64 HMAC-SHA256 over "id.timestamp.body">`, keyed with the base64-decoded part after `whsec_`. */
  signature(secret: string, messageId: string, timestampSeconds: number, body: string): string;
}
