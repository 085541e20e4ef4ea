/**
 * OpenTelemetry tracing of a real service process, exported by OTLP/HTTP to a loopback receiver: a request that
 * carries a W3C `traceparent` produces spans in the caller's trace (the request's, and its store calls' under it),
 * a webhook delivery sends its own `traceparent`, and without OTEL_TRACES_EXPORTER nothing is exported at all.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";
import { ADMIN_KEY } from "../support/test-petstore.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: unknown;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined;
const attributesOf = (list: OtlpAttributes): Record<string, unknown> =>
  Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue === undefined ? value.boolValue : Number(value.intValue)),
    ]),
  );

/** A stand-in OpenTelemetry collector: POST /v1/traces, OTLP/JSON, every span kept. */
const startOtlpReceiver = async () => {
  const spans: ExportedSpan[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: {
          resource: { attributes: OtlpAttributes };
          scopeSpans: { spans: (Omit<ExportedSpan, "attributes" | "service"> & { attributes: OtlpAttributes })[] }[];
        }[];
      };
      for (const { resource, scopeSpans } of body.resourceSpans)
        for (const { spans: exported } of scopeSpans)
          for (const span of exported)
            spans.push({
              ...span,
              attributes: attributesOf(span.attributes),
              service: attributesOf(resource.attributes)["service.name"],
            });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    /** Waits (the exporter sends in batches) until a span matches, or fails listing what came. */
    async find(match: (span: ExportedSpan) => boolean, what: string): Promise<ExportedSpan> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const found = spans.find(match);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no ${what} among ${spans.length} spans: ${spans.map((s) => s.name).join(", ")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
};

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

describe("OpenTelemetry tracing", () => {
  let collector: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let service: ServiceProcess;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    collector = await startOtlpReceiver();
    receiver = await startWebhookReceiver([204]);
    service = await startServiceProcess({
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_SERVICE_NAME: "petstore-under-test",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
      PETSTORE_WEBHOOK_POLL_MS: "50",
    });
  }, 60_000);
  afterAll(async () => {
    service?.child.kill("SIGKILL");
    await receiver?.close();
    await collector?.close();
  });

  it("continues the caller's trace: a server span named by the route template, store calls under it", async () => {
    const traceId = hex(16);
    const callerSpanId = hex(8);
    const response = await fetch(`${service.url}/pets/1`, {
      headers: { "x-api-key": ADMIN_KEY, traceparent: `00-${traceId}-${callerSpanId}-01` },
    });
    expect(response.status).toBe(200);

    const server = await collector.find(
      (s) => s.traceId === traceId && s.kind === 2,
      `server span in trace ${traceId}`,
    );
    expect(server).toMatchObject({
      name: "GET /pets/{petId}",
      parentSpanId: callerSpanId,
      service: "petstore-under-test",
      attributes: {
        "http.request.method": "GET",
        "http.route": "/pets/{petId}",
        "http.response.status_code": 200,
        "url.path": "/pets/1",
      },
    });
    const store = await collector.find(
      (s) => s.traceId === traceId && s.parentSpanId === server.spanId && s.name.startsWith("pets."),
      "store span under the server span",
    );
    expect(store.kind).toBe(3); // client
    expect(store.attributes).toMatchObject({ "petstore.store": "pets", "db.operation.name": store.name.slice(5) });
  }, 60_000);

  it("starts a trace of its own for a request without traceparent, and marks a 404 by its template", async () => {
    const before = new Set(collector.spans.map((s) => s.traceId));
    expect((await fetch(`${service.url}/no/such/path`, { headers: { "x-api-key": ADMIN_KEY } })).status).toBe(404);
    const server = await collector.find(
      (s) => s.kind === 2 && s.attributes["url.path"] === "/no/such/path",
      "server span of the 404",
    );
    expect(before.has(server.traceId)).toBe(false);
    expect(server.parentSpanId ?? "").toBe("");
    expect(server).toMatchObject({ name: "GET unmatched", attributes: { "http.response.status_code": 404 } });
  }, 60_000);

  it("sends a traceparent with each webhook delivery, the delivery's own span", async () => {
    const json = { "x-api-key": ADMIN_KEY, "content-type": "application/json" };
    const subscribed = await fetch(`${service.url}/admin/webhooks`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ url: receiver.url, events: ["order.placed"] }),
    });
    expect(subscribed.status).toBe(201);
    const placed = await fetch(`${service.url}/store/orders`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ petId: 1, quantity: 1 }),
    });
    expect(placed.status).toBe(201);
    const [webhook] = await receiver.waitFor(1);
    const [, traceId, spanId, flags] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(
      String(webhook!.headers.traceparent),
    )!;
    expect(flags).toBe("01");
    const delivery = await collector.find((s) => s.spanId === spanId, "the delivery's span");
    expect(delivery).toMatchObject({
      traceId,
      name: "webhook POST",
      kind: 3,
      attributes: { "http.response.status_code": 204, "url.full": receiver.url },
    });
  }, 60_000);

  it("exports nothing without OTEL_TRACES_EXPORTER=otlp, even with an endpoint set", async () => {
    const quiet = await startOtlpReceiver();
    try {
      const plain = await startServiceProcess({ OTEL_EXPORTER_OTLP_ENDPOINT: quiet.endpoint });
      const traceparent = `00-${hex(16)}-${hex(8)}-01`;
      expect((await fetch(`${plain.url}/pets/1`, { headers: { "x-api-key": ADMIN_KEY, traceparent } })).status).toBe(
        200,
      );
      // A graceful stop flushes whatever a tracer would still hold: after it, nothing can come later.
      plain.child.kill("SIGTERM");
      expect((await plain.exit).code).toBe(0);
      expect(quiet.spans).toEqual([]);
    } finally {
      await quiet.close();
    }
  }, 60_000);
});
