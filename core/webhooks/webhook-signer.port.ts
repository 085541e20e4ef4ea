/** Standard Webhooks; a port because HMAC needs a crypto library. */
export interface WebhookSigner {
  /** `whsec_` + base64 of at least 24 random bytes. */
  newSecret(): string;
  /** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the base64 after `whsec_`. */
  signature(secret: string, messageId: string, timestampSeconds: number, body: string): string;
}
