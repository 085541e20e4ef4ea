/**
 * OpenTelemetry tracing of real service processes, exported by OTLP/HTTP to a loopback receiver: a request makes one
 * bounded trace with the stable HTTP server attributes and the resource's instance id; background work (the
 * webhook delivery the request caused) is a trace of its own; a caller's sampled flag counts only when trusted;
 * export failures are logged and a collector down or hanging never holds a stop; nothing is exported when off.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer as createTcpServer, type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOtlpReceiver, type ExportedSpan, type OtlpReceiver } from "../support/otlp-receiver.ts";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";
import { ADMIN_KEY } from "../support/test-petstore.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

const version = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;
const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const json = { "x-api-key": ADMIN_KEY, "content-type": "application/json" };

/** Stops a service with SIGTERM; its exit code (its stop flushes whatever its tracer still holds). */
const stop = async (service: ServiceProcess) => {
  service.child.kill("SIGTERM");
  return (await service.exit).code;
};

/** Waits until a line of the service's output contains `text`. */
const waitForLine = async (service: ServiceProcess, text: string) => {
  const deadline = Date.now() + 30_000;
  while (!service.output.some((line) => line.includes(text))) {
    if (Date.now() > deadline) throw new Error(`no "${text}" in:\n${service.output.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe("OpenTelemetry tracing (OTLP/HTTP protobuf, the default)", () => {
  let collector: OtlpReceiver;
  let service: ServiceProcess;
  let receiver: WebhookReceiver;
  const inTrace = (traceId: string) => collector.spans.filter((s) => s.traceId === traceId);

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
      PETSTORE_RECOVERY_INTERVAL_SECONDS: "1",
    });
  }, 60_000);
  afterAll(async () => {
    service?.child.kill("SIGKILL");
    await receiver?.close();
    await collector?.close();
  });

  it("continues the caller's trace with a server span carrying the stable HTTP attributes, store calls under it", async () => {
    const traceId = hex(16);
    const callerSpanId = hex(8);
    const response = await fetch(`${service.url}/pets?limit=2`, {
      headers: { "x-api-key": ADMIN_KEY, traceparent: `00-${traceId}-${callerSpanId}-01`, "user-agent": "otel-test/1" },
    });
    expect(response.status).toBe(200);
    const server = await collector.find((s) => s.traceId === traceId && s.kind === 2, `server span of ${traceId}`);
    const { port } = new URL(service.url);
    expect(server).toMatchObject({
      name: "GET /pets",
      parentSpanId: callerSpanId,
      encoding: "application/x-protobuf",
      attributes: {
        "http.request.method": "GET",
        "http.route": "/pets",
        "http.response.status_code": 200,
        "url.scheme": "http",
        "url.path": "/pets",
        "url.query": "limit=2",
        "server.address": "127.0.0.1",
        "server.port": Number(port),
        "client.address": "127.0.0.1",
        "network.peer.address": "127.0.0.1",
        "user_agent.original": "otel-test/1",
        "network.protocol.version": "1.1",
      },
    });
    expect(server.attributes).not.toHaveProperty("error.type");
    expect(server.resource).toMatchObject({ "service.name": "petstore-under-test", "service.version": version });
    expect(String(server.resource["service.instance.id"])).toMatch(/^[0-9a-f-]{36}$/);
    const store = await collector.find(
      (s) => s.traceId === traceId && s.parentSpanId === server.spanId && s.name.startsWith("pets."),
      "store span under the server span",
    );
    expect(store.kind).toBe(3);
    expect(store.attributes).toMatchObject({ "petstore.store": "pets", "db.operation.name": store.name.slice(5) });
  }, 60_000);

  it("starts a trace of its own without traceparent, and leaves http.route out when no route matched", async () => {
    const before = new Set(collector.spans.map((s) => s.traceId));
    expect((await fetch(`${service.url}/no/such/path`, { headers: { "x-api-key": ADMIN_KEY } })).status).toBe(404);
    const server = await collector.find(
      (s) => s.kind === 2 && s.attributes["url.path"] === "/no/such/path",
      "server span of the 404",
    );
    expect(before.has(server.traceId)).toBe(false);
    expect(server.parentSpanId).toBe("");
    expect(server.name).toBe("GET");
    expect(server.attributes["http.response.status_code"]).toBe(404);
    expect(server.attributes).not.toHaveProperty("http.route");
  }, 60_000);

  it("keeps a request's trace to the request: the webhook it causes and the polls after it are not in it", async () => {
    const subscribed = await fetch(`${service.url}/admin/webhooks`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ url: receiver.url, events: ["order.placed"] }),
    });
    expect(subscribed.status).toBe(201);
    const traceId = hex(16);
    const placed = await fetch(`${service.url}/store/orders`, {
      method: "POST",
      headers: { ...json, traceparent: `00-${traceId}-${hex(8)}-01` },
      body: JSON.stringify({ petId: 1, quantity: 1 }),
    });
    expect(placed.status).toBe(201);

    // The delivery: a root span of a trace of its own, whose traceparent the receiver got.
    const [webhook] = await receiver.waitFor(1);
    const [, deliveryTrace, deliverySpan] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(
      String(webhook!.headers.traceparent),
    )!;
    const delivery = await collector.find((s) => s.spanId === deliverySpan, "the delivery's span");
    expect(delivery).toMatchObject({ traceId: deliveryTrace, parentSpanId: "", name: "webhook POST", kind: 3 });
    expect(delivery.attributes).toMatchObject({ "http.response.status_code": 204, "url.full": receiver.url });
    expect(deliveryTrace).not.toBe(traceId);

    // The worker's runs (every 50 ms) went on after the delivery; a later request's span shows the exporter has
    // sent what came before it.
    const later = hex(16);
    await fetch(`${service.url}/pets/1`, {
      headers: { "x-api-key": ADMIN_KEY, traceparent: `00-${later}-${hex(8)}-01` },
    });
    await collector.find((s) => s.traceId === later && s.kind === 2, "the later request's span");

    const spans = inTrace(traceId);
    const server = spans.find((s) => s.kind === 2)!;
    expect(server.name).toBe("POST /store/orders");
    expect(spans.length).toBeLessThan(40);
    // The SDK anchors each span's times to Date.now(), whole milliseconds, so one request's spans may disagree by up to
    // a millisecond at its edges; background passes come 50 ms apart and later.
    const anchorNs = 1_000_000n;
    const outside = (s: ExportedSpan) => s.startNs < server.startNs - anchorNs || s.endNs > server.endNs + anchorNs;
    expect(spans.filter(outside).map((s) => s.name)).toEqual([]);
    expect(spans.filter((s) => s.name === "webhook POST")).toEqual([]);
  }, 60_000);
});

describe("sampling at a public edge", () => {
  const run = async (env: Record<string, string>) => {
    const collector = await startOtlpReceiver();
    const service = await startServiceProcess({
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      ...env,
    });
    const traces = Array.from({ length: 10 }, () => hex(16));
    for (const traceId of traces) {
      const traceparent = `00-${traceId}-${hex(8)}-01`;
      expect((await fetch(`${service.url}/pets/1`, { headers: { "x-api-key": ADMIN_KEY, traceparent } })).status).toBe(
        200,
      );
    }
    expect(await stop(service)).toBe(0);
    await collector.close();
    return collector.spans.filter((s) => traces.includes(s.traceId) && s.kind === 2);
  };

  it("by default the service's own ratio decides: a caller's sampled flag does not get its requests exported", async () => {
    expect(await run({})).toEqual([]);
  }, 60_000);

  it("with PETSTORE_TRACES_TRUST_CALLER_SAMPLED=true a sampled caller's requests are exported (JSON here)", async () => {
    const exported = await run({ PETSTORE_TRACES_TRUST_CALLER_SAMPLED: "true" });
    expect(exported).toHaveLength(10);
    expect(exported[0]!.encoding).toBe("application/json");
  }, 60_000);
});

describe("a collector that cannot be reached", () => {
  it("is logged as a warning, and SIGTERM still exits 0", async () => {
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const service = await startServiceProcess({
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_BSP_SCHEDULE_DELAY: "100",
    });
    for (let i = 0; i < 5; i += 1)
      expect((await fetch(`${service.url}/pets/1`, { headers: { "x-api-key": ADMIN_KEY } })).status).toBe(200);
    await waitForLine(service, '"trace export failed"');
    expect(await stop(service)).toBe(0);
    const failures = service.output.filter((line) => line.includes('"trace export failed"'));
    expect(JSON.parse(failures[0]!)).toMatchObject({ level: "warn", failedExports: 1 });
    expect(service.output.filter((line) => /"level":"error"/.test(line))).toEqual([]);
  }, 60_000);

  it("one that takes the connection and never answers does not hold the stop: exit 0", async () => {
    const held: Socket[] = [];
    const hanging = createTcpServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    try {
      const service = await startServiceProcess({
        OTEL_TRACES_EXPORTER: "otlp",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`,
        OTEL_BSP_SCHEDULE_DELAY: "100",
        // An export would wait an hour for its answer: only a bounded stop gets out.
        OTEL_EXPORTER_OTLP_TIMEOUT: "3600000",
        OTEL_BSP_EXPORT_TIMEOUT: "3600000",
      });
      expect((await fetch(`${service.url}/pets/1`, { headers: { "x-api-key": ADMIN_KEY } })).status).toBe(200);
      while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await stop(service)).toBe(0);
      expect(service.output.some((line) => line.includes('"trace export at stop cut short'))).toBe(true);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => hanging.close(resolve));
    }
  }, 60_000);
});

describe("tracing off", () => {
  it("exports nothing without OTEL_TRACES_EXPORTER=otlp, even with an endpoint set", async () => {
    const quiet = await startOtlpReceiver();
    try {
      const plain = await startServiceProcess({ OTEL_EXPORTER_OTLP_ENDPOINT: quiet.endpoint });
      const traceparent = `00-${hex(16)}-${hex(8)}-01`;
      expect((await fetch(`${plain.url}/pets/1`, { headers: { "x-api-key": ADMIN_KEY, traceparent } })).status).toBe(
        200,
      );
      expect(await stop(plain)).toBe(0);
      expect(quiet.spans).toEqual([]);
    } finally {
      await quiet.close();
    }
  }, 60_000);
});
