import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the body had arrived. */
  receivedAt: number;
}

/** What the receiver answers a request: a status, or "hang" (never answer). */
export type ReceiverReply = number | "hang";

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The answers, in turn; the last one repeats. */
  replies: ReceiverReply[];
  /** Resolves once `count` webhooks have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 (node:http), for end-to-end tests. */
export const startWebhookReceiver = async (replies: ReceiverReply[] = [204]): Promise<WebhookReceiver> => {
  const received: ReceivedWebhook[] = [];
  const waiters: (() => void)[] = [];
  const hanging: ServerResponse[] = [];
  const state = { replies };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), receivedAt: Date.now() });
      const reply = state.replies.length > 1 ? state.replies.shift()! : state.replies[0]!;
      if (reply === "hang") hanging.push(response);
      else response.writeHead(reply).end(reply >= 300 ? "not now" : "");
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    get replies() {
      return state.replies;
    },
    set replies(next: ReceiverReply[]) {
      state.replies = next;
    },
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`${received.length} of ${count} webhooks arrived within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received.slice(0, count);
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};
