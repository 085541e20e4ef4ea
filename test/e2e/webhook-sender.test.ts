import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HttpWebhookSender } from "../../adapters/webhooks/http-webhook-sender.ts";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

const servers: Server[] = [];
const receiver = async (handler: Handler): Promise<string> => {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => handler(request, body, response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const webhook = (url: string) => ({
  url,
  headers: { "content-type": "application/json", "webhook-id": "msg_1" },
  body: '{"type":"order.placed"}',
});
const loopbackAllowed = new HttpWebhookSender({ timeoutMs: 500, allowPrivateTargets: true, keepBytes: 16 });

describe("HttpWebhookSender", () => {
  it("POSTs the body and headers, and reports the status and the start of the answer", async () => {
    const seen: { method?: string; headers?: IncomingMessage["headers"]; body?: string } = {};
    const url = await receiver((request, body, response) => {
      Object.assign(seen, { method: request.method, headers: request.headers, body });
      response.writeHead(500).end("x".repeat(100_000));
    });
    expect(await loopbackAllowed.send(webhook(`${url}/hook`))).toEqual({
      kind: "answered",
      status: 500,
      body: "x".repeat(16),
    });
    expect(seen).toMatchObject({ method: "POST", body: '{"type":"order.placed"}' });
    expect(seen.headers).toMatchObject({
      "webhook-id": "msg_1",
      "content-type": "application/json",
      "content-length": "23",
    });
  });

  it("does not follow redirects: a 3xx is the answer", async () => {
    let redirectedTo = 0;
    const elsewhere = await receiver((_q, _b, response) => {
      redirectedTo++;
      response.writeHead(204).end();
    });
    const url = await receiver((_q, _b, response) => response.writeHead(307, { location: `${elsewhere}/` }).end());
    expect(await loopbackAllowed.send(webhook(url))).toMatchObject({ kind: "answered", status: 307 });
    expect(redirectedTo).toBe(0);
  });

  it("gives up after the time-out when the receiver does not answer", async () => {
    const url = await receiver(() => {});
    expect(await loopbackAllowed.send(webhook(url))).toEqual({ kind: "failed", error: "timeout after 500 ms" });
  });

  it("reports a refused connection", async () => {
    const url = await receiver((_q, _b, response) => response.end());
    const closed = servers.pop()!;
    await new Promise((resolve) => closed.close(resolve));
    expect(await loopbackAllowed.send(webhook(url))).toEqual({
      kind: "failed",
      error: "connection error: ECONNREFUSED",
    });
  });

  it("unless private targets are allowed, refuses loopback literals and names that resolve to loopback, sending nothing", async () => {
    let received = 0;
    const url = await receiver((_q, _b, response) => {
      received++;
      response.writeHead(204).end();
    });
    const strict = new HttpWebhookSender({ timeoutMs: 500, allowPrivateTargets: false });
    const port = new URL(url).port;
    expect(await strict.send(webhook(url))).toEqual({ kind: "failed", error: "refused target: 127.0.0.1" });
    expect(await strict.send(webhook(`http://[::ffff:127.0.0.1]:${port}/`))).toMatchObject({ kind: "failed" });
    expect(await strict.send(webhook(`http://localhost:${port}/`))).toEqual({
      kind: "failed",
      error: expect.stringMatching(/^refused target: localhost resolves to (127\.0\.0\.1|::1)$/) as unknown as string,
    });
    expect(received).toBe(0);
  });
});
