import { describe, expect, it } from "vitest";
import type { Logger } from "../../bootstrap/logger.ts";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { exportFailureLog } from "../../bootstrap/tracing.ts";
import { startOtlpReceiver } from "../support/otlp-receiver.ts";
import { startTestPetstore } from "../support/test-petstore.ts";

const recording = () => {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => lines.push({ message, fields }),
    error: (message, fields) => lines.push({ message, fields }),
  };
  return { logger, lines };
};

describe("trace export failures in the log", () => {
  it("writes the first at once, then at most one line per interval counting the quiet ones, the rest at stop", () => {
    const { logger, lines } = recording();
    let now = 1_000_000;
    const log = exportFailureLog(logger, () => now, 60_000);
    log.failed(new Error("connect ECONNREFUSED 127.0.0.1:4318"), 10);
    expect(lines).toEqual([
      {
        message: "trace export failed",
        fields: { error: "connect ECONNREFUSED 127.0.0.1:4318", failedExports: 1, spansLost: 10 },
      },
    ]);
    for (let i = 0; i < 100; i += 1) {
      now += 500;
      log.failed(new Error("timeout"), 5);
    }
    expect(lines).toHaveLength(1);
    now += 10_000; // 60 s since the first line
    log.failed(new Error("timeout"), 5);
    expect(lines[1]).toEqual({
      message: "trace export failed",
      fields: { error: "timeout", failedExports: 101, spansLost: 505 },
    });
    log.failed("refused", 1);
    log.flush();
    expect(lines[2]?.fields).toEqual({ error: "refused", failedExports: 1, spansLost: 1 });
    log.flush();
    expect(lines).toHaveLength(3);
  });
});

describe("a request that fails with 5xx", () => {
  it("is a server span with error.type, its route and status, exported when the service stops", async () => {
    const collector = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.endpoint;
    const memory = createMemoryStores();
    const failing = new Proxy(memory.categories, {
      get: (target, property, receiver) =>
        typeof Reflect.get(target, property, receiver) === "function"
          ? () => Promise.reject(new Error("disk on fire"))
          : Reflect.get(target, property, receiver),
    });
    const t = await startTestPetstore({
      env: { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      stores: { ...memory, categories: failing },
    });
    try {
      expect((await t.client.get("/categories", { key: t.adminKey })).status).toBe(500);
    } finally {
      await t.close();
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      await collector.close();
    }
    const server = collector.spans.find((s) => s.kind === 2 && s.attributes["url.path"] === "/categories");
    expect(server).toMatchObject({
      name: "GET /categories",
      attributes: { "http.route": "/categories", "http.response.status_code": 500, "error.type": "500" },
    });
    const store = collector.spans.find((s) => s.parentSpanId === server!.spanId && s.name.startsWith("categories."));
    expect(store?.attributes).toMatchObject({ "error.type": "Error" });
  });
});
