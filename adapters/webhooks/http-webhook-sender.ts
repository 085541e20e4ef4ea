import { lookup, type LookupAddress, type LookupOptions } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { ipLiteralOf } from "../../core/webhooks/webhook-target.ts";
import { isRefusedAddress } from "../../core/webhooks/target-addresses.ts";
import type { OutgoingWebhook, SendOutcome, WebhookSender } from "../../core/webhooks/webhook-sender.port.ts";

export interface HttpWebhookSenderOptions {
  /** The whole exchange: connecting, sending, the answer's head and the kept part of its body. */
  timeoutMs: number;
  allowPrivateTargets: boolean;
  /** How much of an answer's body is kept (for the deliveries log). */
  keepBytes?: number;
}

class RefusedTarget extends Error {}

/**
 * Checks every address the host resolves to, at connection time: the DNS answer that counts is the one connected to,
 * so a name that resolved to a public address when the subscription was made cannot later lead inside.
 */
const checkedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...(options as LookupOptions), all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 0);
    const refused = addresses.find((a) => isRefusedAddress(a.address));
    if (refused || addresses.length === 0) {
      return callback(
        new RefusedTarget(`refused target: ${hostname} resolves to ${refused?.address ?? "nothing"}`),
        "",
        0,
      );
    }
    if ((options as LookupOptions).all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/**
 * POSTs with node:http(s), which never follows redirects (a 3xx is an answer like any other non-2xx). One connection
 * per attempt (no keep-alive), so every attempt resolves and checks the host afresh.
 */
export class HttpWebhookSender implements WebhookSender {
  readonly #options: Required<HttpWebhookSenderOptions>;
  constructor(options: HttpWebhookSenderOptions) {
    this.#options = { keepBytes: 1024, ...options };
  }

  send(request: OutgoingWebhook): Promise<SendOutcome> {
    const { timeoutMs, allowPrivateTargets, keepBytes } = this.#options;
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return Promise.resolve({ kind: "failed", error: "invalid URL" });
    }
    const literal = ipLiteralOf(url.hostname);
    if (!allowPrivateTargets && literal !== undefined && isRefusedAddress(literal)) {
      return Promise.resolve({ kind: "failed", error: `refused target: ${literal}` });
    }
    const client = url.protocol === "https:" ? https : http;
    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: SendOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outgoing.destroy();
        resolve(outcome);
      };
      const outgoing = client.request(url, {
        method: "POST",
        agent: false,
        headers: {
          ...request.headers,
          "content-length": String(Buffer.byteLength(request.body)),
          "user-agent": "petstore-webhooks/1.0",
        },
        ...(allowPrivateTargets ? {} : { lookup: checkedLookup }),
      });
      const timer = setTimeout(() => finish({ kind: "failed", error: `timeout after ${timeoutMs} ms` }), timeoutMs);
      outgoing.on("error", (error) => {
        const code = (error as NodeJS.ErrnoException).code;
        finish({
          kind: "failed",
          error: error instanceof RefusedTarget ? error.message : `connection error: ${code ?? error.message}`,
        });
      });
      outgoing.on("response", (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const answered = () => {
          const body = Buffer.concat(chunks).subarray(0, keepBytes).toString("utf8");
          finish({ kind: "answered", status: response.statusCode ?? 0, body });
        };
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          kept += chunk.length;
          if (kept >= keepBytes) answered();
        });
        response.on("end", answered);
        response.on("error", answered);
        response.on("aborted", answered);
      });
      outgoing.end(request.body);
    });
  }
}
