export interface OutgoingWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type SendOutcome = { kind: "answered"; status: number; body: string } | { kind: "failed"; error: string };

/** Follows no redirect, bounds its waits and checks the resolved address again; never rejects. */
export interface WebhookSender {
  send(request: OutgoingWebhook): Promise<SendOutcome>;
}
