/**
 * The shop's and the pipeline's metrics, each made to move through the composed service: orders, stock-outs,
 * webhook deliveries by outcome, the backlog and its oldest message, the relay's lag, recovery, build_info.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../bootstrap/logger.ts";
import { createMetrics, type Metrics } from "../../bootstrap/metrics.ts";
import { startRecoveryLoop } from "../../bootstrap/recovery-loop.ts";
import type { RecoverInterruptedWrites } from "../../core/recovery/recover-interrupted-writes.ts";
import { reserveSeeing } from "../../core/pets/stock-writes.ts";
import { startTestPetstore, type TestPetstore } from "../support/test-petstore.ts";
import { packageVersion } from "../support/versions.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Every sample of the scrape, by its name and labels as written (`name{a="b"}`). */
const scrape = async (metrics: Metrics): Promise<Map<string, number>> => {
  const samples = new Map<string, number>();
  for (const line of (await metrics.registry.metrics()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
};

/** Scrapes until `check` holds (the worker and recovery run on their own timers), or fails saying what it saw. */
const eventually = async (metrics: Metrics, check: (s: Map<string, number>) => boolean, what: string) => {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const samples = await scrape(metrics);
    if (check(samples)) return samples;
    if (Date.now() > deadline) throw new Error(`${what} never held; last scrape:\n${[...samples].join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe("business and pipeline metrics", () => {
  let t: TestPetstore;
  let metrics: Metrics;
  let retried: WebhookReceiver;
  let refusing: WebhookReceiver;
  const at = (s: Map<string, number>, series: string) => s.get(series) ?? Number.NaN;
  const delivered = 'petstore_webhook_deliveries_total{outcome="delivered"}';
  const retryScheduled = 'petstore_webhook_deliveries_total{outcome="retry_scheduled"}';
  const gaveUp = 'petstore_webhook_deliveries_total{outcome="gave_up"}';

  beforeAll(async () => {
    metrics = createMetrics();
    t = await startTestPetstore({
      overrides: { metrics },
      env: {
        PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
        // Retries wait for the manual clock: ten minutes at first, far more than the test moves it by mistake.
        PETSTORE_WEBHOOK_RETRY_BASE_MS: "600000",
        PETSTORE_WEBHOOK_TIMEOUT_MS: "2000",
        PETSTORE_WEBHOOK_POLL_MS: "20",
        PETSTORE_RECOVERY_INTERVAL_SECONDS: "1",
      },
    });
    retried = await startWebhookReceiver([500, 204]);
    refusing = await startWebhookReceiver([500]);
  });
  afterAll(async () => {
    await t?.close();
    await retried?.close();
    await refusing?.close();
  });

  it("counts orders placed, cancelled and completed, stock-outs, and the relay's lag while events wait", async () => {
    const before = await scrape(metrics);
    for (const name of ["placed", "cancelled", "completed"])
      expect(at(before, `petstore_orders_${name}_total`)).toBe(0);
    expect(at(before, "petstore_stock_outs_total")).toBe(0);
    expect(at(before, "petstore_relay_lag_seconds")).toBe(0);

    const admin = { key: t.adminKey };
    const staff = { key: await t.newKey("staff") };
    const customer = { key: await t.newKey("customer") };
    for (const [url, events] of [
      [retried.url, ["order.cancelled"]],
      [refusing.url, ["order.completed"]],
    ] as const)
      expect((await t.client.post("/admin/webhooks", { ...admin, body: { url, events } })).status).toBe(201);
    const category = (await t.client.post("/categories", { ...staff, body: { name: "Birds" } })).body.id as number;
    const pet = async (quantity: number) => {
      const id = (await t.client.post("/pets", { ...staff, body: { name: "Tweety", categoryId: category } })).body
        .id as number;
      expect((await t.client.put(`/store/inventory/${id}`, { ...staff, body: { quantity } })).status).toBe(200);
      return id;
    };
    const [scarce, plenty] = [await pet(2), await pet(5)];
    const order = async (petId: number, quantity: number) => {
      const res = await t.client.post("/store/orders", { ...customer, body: { petId, quantity } });
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    await order(scarce, 2); // its last units: a stock-out
    const cancelled = await order(plenty, 1);
    const completed = await order(plenty, 1);
    expect((await t.client.delete(`/store/orders/${cancelled}`, customer)).status).toBe(204);
    expect((await t.client.patch(`/store/orders/${completed}`, { ...staff, body: { complete: true } })).status).toBe(
      200,
    );
    // Refused: neither counted as placed nor as a stock-out.
    expect((await t.client.post("/store/orders", { ...customer, body: { petId: scarce, quantity: 1 } })).status).toBe(
      409,
    );
    // Completing again is refused, and not counted twice.
    expect((await t.client.patch(`/store/orders/${completed}`, { ...staff, body: { complete: true } })).status).toBe(
      409,
    );

    // The worker is not started yet: the events wait in the outbox while the clock moves.
    t.clock.advance(30_000);
    const after = await scrape(metrics);
    expect(at(after, "petstore_orders_placed_total")).toBe(3);
    expect(at(after, "petstore_orders_cancelled_total")).toBe(1);
    expect(at(after, "petstore_orders_completed_total")).toBe(1);
    expect(at(after, "petstore_stock_outs_total")).toBe(1);
    expect(at(after, "petstore_relay_lag_seconds")).toBeGreaterThanOrEqual(30);
  });

  it("counts deliveries by outcome, and shows the backlog and its oldest message's age until it drains", async () => {
    t.petstore.webhookWorker.start();
    // Both receivers answer 500 first: two retries scheduled, two messages waiting, nothing left to relay.
    let samples = await eventually(metrics, (s) => at(s, retryScheduled) >= 2, "two retries scheduled");
    expect(at(samples, "petstore_relay_lag_seconds")).toBe(0);
    expect(at(samples, "petstore_webhook_backlog_messages")).toBe(2);
    t.clock.advance(60_000);
    samples = await scrape(metrics);
    expect(at(samples, "petstore_webhook_backlog_oldest_age_seconds")).toBeGreaterThanOrEqual(60);

    // Each move of the clock makes the next retry due: one receiver then takes its message, the other never does
    // and is given up on after the last attempt.
    for (let round = 0; round < 12 && at(samples, gaveUp) < 1; round += 1) {
      const settled = at(samples, delivered) + at(samples, retryScheduled) + at(samples, gaveUp);
      t.clock.advance(100 * DAY_MS);
      samples = await eventually(
        metrics,
        (s) => at(s, delivered) + at(s, retryScheduled) + at(s, gaveUp) > settled,
        `a settlement after round ${round}`,
      );
    }
    samples = await eventually(metrics, (s) => at(s, delivered) === 1 && at(s, gaveUp) === 1, "both settled");
    expect(retried.received).toHaveLength(2);
    expect(refusing.received).toHaveLength(10);
    expect(at(samples, "petstore_webhook_backlog_messages")).toBe(0);
    expect(at(samples, "petstore_webhook_backlog_oldest_age_seconds")).toBe(0);
  }, 120_000);

  it("counts recovery passes and the unfinished writes they found", async () => {
    const runs = 'petstore_recovery_runs_total{result="succeeded"}';
    const before = await scrape(metrics);
    // The pass at start-up.
    expect(at(before, runs)).toBeGreaterThanOrEqual(1);
    const found = (s: Map<string, number>) =>
      [...s].filter(([k]) => k.startsWith("petstore_recovery_unfinished_writes_total{")).reduce((n, [, v]) => n + v, 0);
    expect(found(before)).toBe(0);
    // Units reserved for an order that was never written (a placing cut short), older than the grace period.
    const petId = (await t.client.get("/store/inventory", { key: t.adminKey })).body.find(
      (item: { quantity: number }) => item.quantity > 1,
    ).petId as number;
    await reserveSeeing(t.stores.pets, t.clock, petId, 999_999, 1, "cut-short");
    t.clock.advance(DAY_MS);
    const after = await eventually(metrics, (s) => found(s) > 0, "recovery finding the reservation");
    expect(at(after, 'petstore_recovery_unfinished_writes_total{action="undone_reservations"}')).toBe(1);
    expect(at(after, runs)).toBeGreaterThan(at(before, runs));
  }, 60_000);

  it("counts a failed recovery pass", async () => {
    const own = createMetrics();
    const failing = { execute: () => Promise.reject(new Error("store down")) } as unknown as RecoverInterruptedWrites;
    const loop = await startRecoveryLoop(failing, 3_600_000, createLogger("silent"), own.observeRecovery);
    await loop.stop();
    const samples = await scrape(own);
    expect(at(samples, 'petstore_recovery_runs_total{result="failed"}')).toBe(1);
    expect(at(samples, 'petstore_recovery_runs_total{result="succeeded"}')).toBe(0);
  });

  it("says which build runs: version, Node.js and store kind", async () => {
    const samples = await scrape(metrics);
    const info = [...samples].filter(([k]) => k.startsWith("petstore_build_info{"));
    expect(info).toHaveLength(1);
    expect(info[0]![0]).toBe(
      `petstore_build_info{version="${packageVersion}",node_version="${process.version}",store_kind="memory"}`,
    );
    expect(info[0]![1]).toBe(1);
  });
});
