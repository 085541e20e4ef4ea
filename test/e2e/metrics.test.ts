/** Prometheus metrics on PETSTORE_METRICS_PORT, scraped from a real service process after a few requests. */
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeLoopbackPort } from "../support/free-port.ts";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";
import { ADMIN_KEY } from "../support/test-petstore.ts";
import { free } from "../support/limits.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

describe("metrics", () => {
  let service: ServiceProcess;
  let receiver: WebhookReceiver;
  let metricsUrl: string;
  let scrape: string;

  beforeAll(async () => {
    const port = await freeLoopbackPort();
    receiver = await startWebhookReceiver([204]);
    service = await startServiceProcess({
      PETSTORE_METRICS_PORT: String(port),
      PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
      PETSTORE_WEBHOOK_POLL_MS: "50",
    });
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    const keyed = { headers: { "x-api-key": ADMIN_KEY } };
    for (const path of ["/pets/1", "/pets/2", "/pets/999999", "/pets?limit=5", "/categories/1"])
      expect((await fetch(`${service.url}${path}`, keyed)).status).toBeLessThan(500);
    expect((await fetch(`${service.url}/pets`)).status).toBe(401);
    expect((await fetch(`${service.url}/no/such/path/42`)).status).toBe(404);
    expect((await fetch(`${service.url}/metrics`)).status).toBe(404);
    // The free plan's minute per address, on the public reference's area: the request after it is refused.
    const statuses = [];
    for (let i = 0; i < free.perMinute + 2; i += 1)
      statuses.push((await fetch(`${service.url}/docs/assets/nothing-${i}.js`)).status);
    expect(statuses).toContain(429);
    // One order, one cancellation, and their webhooks delivered (demo pet 1 has stock).
    const json = { "x-api-key": ADMIN_KEY, "content-type": "application/json" };
    const post = (path: string, body: unknown) =>
      fetch(`${service.url}${path}`, { method: "POST", headers: json, body: JSON.stringify(body) });
    const subscribed = await post("/admin/webhooks", {
      url: receiver.url,
      events: ["order.placed", "order.cancelled"],
    });
    expect(subscribed.status).toBe(201);
    const placed = await post("/store/orders", { petId: 1, quantity: 1 });
    expect(placed.status).toBe(201);
    const { id } = (await placed.json()) as { id: number };
    expect((await fetch(`${service.url}/store/orders/${id}`, { method: "DELETE", headers: json })).status).toBe(204);
    await receiver.waitFor(2);
    // The worker settles a message after its answer arrives: scrape until both are counted.
    const deadline = Date.now() + 15_000;
    do scrape = await (await fetch(metricsUrl)).text();
    while (!/^petstore_webhook_deliveries_total\{outcome="delivered"\} 2$/m.test(scrape) && Date.now() < deadline);
  }, 60_000);
  afterAll(async () => {
    service?.child.kill("SIGKILL");
    await receiver?.close();
  });

  const series = (name: string) =>
    scrape.split("\n").filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
  const value = (line: string | undefined) => Number(line?.split(" ").at(-1));

  it("times every request by method, route template and status code", () => {
    const count = (labels: string) =>
      value(series("http_server_request_duration_seconds_count").find((l) => l.includes(labels)));
    expect(count('method="GET",route="/pets/{petId}",status_code="200"')).toBe(2);
    expect(count('method="GET",route="/pets/{petId}",status_code="404"')).toBe(1);
    expect(count('method="GET",route="/pets",status_code="200"')).toBe(1);
    expect(count('method="GET",route="/pets",status_code="401"')).toBe(1);
    expect(count('method="GET",route="unmatched",status_code="404"')).toBeGreaterThanOrEqual(1);
  });

  it("labels routes with templates only, never a raw path", () => {
    const routes = new Set(
      series("http_server_request_duration_seconds_count").map((l) => /route="([^"]*)"/.exec(l)?.[1]),
    );
    expect(routes.size).toBeGreaterThan(3);
    for (const route of routes) expect(route).toMatch(/^(unmatched|\/[a-z/._-]*(\{[A-Za-z]+\}[a-z/]*)*)$/);
    expect(scrape).not.toMatch(/\/pets\/1"|\/no\/such|nothing-\d/);
  });

  it("counts refusals by reason", () => {
    const refused = (reason: string) =>
      value(series("petstore_requests_refused_total").find((l) => l.includes(`reason="${reason}"`)));
    expect(refused("unauthorized")).toBe(1);
    expect(refused("rate_limited")).toBeGreaterThanOrEqual(1);
  });

  it("shows the event streams open on the instance (petstore_event_streams_open)", async () => {
    const open = async () =>
      value(
        (await (await fetch(metricsUrl)).text())
          .split("\n")
          .find((line) => line.startsWith("petstore_event_streams_open ")),
      );
    expect(await open()).toBe(0);
    const abort = new AbortController();
    const stream = await fetch(`${service.url}/events`, { headers: { "x-api-key": ADMIN_KEY }, signal: abort.signal });
    expect(stream.status).toBe(200);
    expect(await open()).toBe(1);
    abort.abort();
    // The server learns of the closed connection on its own time: asked again until it has.
    let left = await open();
    while (left !== 0) left = await new Promise((resolve) => setTimeout(resolve, 20)).then(open);
    expect(left).toBe(0);
  });

  it("after one order, one cancellation and their webhooks, shows the shop's and the pipeline's series moved", () => {
    expect(value(series("petstore_orders_placed_total")[0])).toBe(1);
    expect(value(series("petstore_orders_cancelled_total")[0])).toBe(1);
    expect(value(series("petstore_orders_completed_total")[0])).toBe(0);
    const deliveries = (outcome: string) =>
      value(series("petstore_webhook_deliveries_total").find((l) => l.includes(`outcome="${outcome}"`)));
    expect(deliveries("delivered")).toBe(2);
    expect(deliveries("retry_scheduled")).toBe(0);
    expect(deliveries("gave_up")).toBe(0);
    expect(value(series("petstore_webhook_backlog_messages")[0])).toBe(0);
    expect(value(series("petstore_webhook_backlog_oldest_age_seconds")[0])).toBe(0);
    expect(value(series("petstore_relay_lag_seconds")[0])).toBe(0);
    expect(value(series("petstore_stock_outs_total")[0])).toBe(0);
    expect(
      value(series("petstore_recovery_runs_total").find((l) => l.includes('result="succeeded"'))),
    ).toBeGreaterThanOrEqual(1);
    expect(series("petstore_recovery_unfinished_writes_total").length).toBeGreaterThan(5);
    expect(series("petstore_build_info")[0]).toMatch(
      /^petstore_build_info\{version="[^"]+",node_version="v24\.[^"]+",store_kind="memory"\} 1$/,
    );
  });

  it("times store operations by store and operation, and has process metrics", () => {
    expect(
      series("petstore_store_operation_duration_seconds_count").some((l) =>
        l.includes('store="pets",operation="list"'),
      ),
    ).toBe(true);
    expect(series("petstore_store_operation_duration_seconds_count").some((l) => l.includes('store="apiKeys"'))).toBe(
      true,
    );
    expect(scrape).toContain("# TYPE petstore_store_operation_errors_total counter");
    expect(series("process_cpu_user_seconds_total")).toHaveLength(1);
    expect(series("nodejs_heap_size_used_bytes")).toHaveLength(1);
  });

  it("passes `promtool check metrics` (Prometheus's own lint: names, types, suffixes, help)", () => {
    // No skipping when it is missing: CI installs it (.ci/install-promtool.sh), and a lint that silently did not
    // run would pass any scrape.
    const lint = spawnSync("promtool", ["check", "metrics"], { input: scrape, encoding: "utf8" });
    if (lint.error)
      throw new Error(
        `promtool is needed: install Debian's prometheus package (bash .ci/install-promtool.sh): ${lint.error.message}`,
      );
    expect(`${lint.stdout}${lint.stderr}`).toBe("");
    expect(lint.status).toBe(0);
    // The per-type gauges stand in for prom-client's `_total` gauges, which are dropped.
    expect(scrape).toMatch(/^nodejs_active_handles\{type="/m);
    expect(scrape).not.toMatch(/^nodejs_active_\w+_total/m);
  });

  it("serves only GET /metrics on its port", async () => {
    expect((await fetch(metricsUrl.replace("/metrics", "/pets"))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: "POST" })).status).toBe(404);
  });

  it("is off without PETSTORE_METRICS_PORT, and never on the API port", async () => {
    expect((await fetch(`${service.url}/metrics`)).status).toBe(404);
    expect(service.output.some((line) => line.includes('"metricsUrl"'))).toBe(true);
    const plain = await startServiceProcess();
    try {
      expect(plain.output.some((line) => line.includes('"metricsUrl"'))).toBe(false);
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
    } finally {
      plain.child.kill("SIGKILL");
    }
  });
});
