export interface OutgoingWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The receiver answered (any status), or there was no answer: time-out, refused target, connection error. */
export type SendOutcome = { kind: "answered"; status: number; body: string } | { kind: "failed"; error: string };

/**
 * POSTs one webhook without following redirects, with bounded waits, re-checking the resolved address; never rejects.
 */
export interface WebhookSender {
  send(request: OutgoingWebhook): Promise<SendOutcome>;
}
