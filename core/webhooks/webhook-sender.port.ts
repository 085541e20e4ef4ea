export interface OutgoingWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The receiver answered (any status), or there was no answer: time-out, refused target, connection error. */
export type SendOutcome = { kind: "answered"; status: number; body: string } | { kind: "failed"; error: string };

/**
 * POSTs one webhook. Never follows redirects, bounds every wait, keeps only a prefix of the answer, and (unless
 * private targets are allowed) refuses to connect to an address `isRefusedAddress` refuses, whatever DNS says at
 * the time of sending. Never rejects: every failure is a `failed` outcome.
 */
export interface WebhookSender {
  send(request: OutgoingWebhook): Promise<SendOutcome>;
}
