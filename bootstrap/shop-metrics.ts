import { Counter, Gauge, type Registry } from "prom-client";
import { API_VERSION } from "../adapters/http/openapi/document.ts";
import type { UseCases } from "../adapters/http/use-cases.ts";
import type { RecoveryReport } from "../core/recovery/recover-interrupted-writes.ts";
import type { Clock } from "../core/shared/clock.port.ts";
import type { Stores } from "../core/stores.ts";
import type { PetWrite } from "../core/pets/pets.port.ts";
import type { Settlement } from "../core/webhooks/webhook-message.ts";

/** What the shop and its background work did, beside the HTTP and store metrics (docs/operations.md#metrics). */
export interface ShopMetrics {
  /** The same use cases, orders placed, cancelled and completed counted as each call succeeds. */
  countOrders(useCases: UseCases): UseCases;
  /** Called after a port call succeeded, with its arguments and result (from the store instrumentation). */
  afterStoreCall(port: string, operation: string, args: unknown[], result: unknown): void;
  /** A recovery pass: its report, or undefined when it failed. */
  observeRecovery(report: RecoveryReport | undefined): void;
  /** The webhook backlog and the relay's lag, read from these stores at each scrape. */
  watchPipeline(stores: Pick<Stores, "outbox" | "webhookMessages">, clock: Clock): void;
}

/** A scrape counts at most this many pending messages: its cost does not grow with a runaway backlog. */
export const BACKLOG_COUNT_LIMIT = 100_000;

const SETTLED_AS: Record<Settlement["state"], string> = {
  delivered: "delivered",
  pending: "retry_scheduled",
  failed: "gave_up",
};

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The use case, its `execute` followed by `then` once it resolved. */
const after = <T extends { execute(...args: never[]): Promise<unknown> }>(
  useCase: T,
  then: (args: Parameters<T["execute"]>) => void,
): T =>
  new Proxy(useCase, {
    get(target, property, receiver) {
      if (property !== "execute") return Reflect.get(target, property, receiver) as unknown;
      return async (...args: Parameters<T["execute"]>) => {
        const result = await target.execute(...args);
        then(args);
        return result;
      };
    },
  });

export const createShopMetrics = (registry: Registry, storeKind: string): ShopMetrics => {
  const counter = (name: string, help: string) => new Counter({ name, help, registers: [registry] });
  const placed = counter("petstore_orders_placed_total", "Orders placed");
  const cancelled = counter("petstore_orders_cancelled_total", "Orders cancelled");
  const completed = counter("petstore_orders_completed_total", "Orders completed (shipped)");
  const stockOuts = counter("petstore_stock_outs_total", "Orders that took a pet's last units in stock (sold out)");
  const deliveries = new Counter({
    name: "petstore_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome: delivered, retry_scheduled (failed, tried again later), gave_up",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  for (const outcome of Object.values(SETTLED_AS)) deliveries.inc({ outcome }, 0);
  const recoveryRuns = new Counter({
    name: "petstore_recovery_runs_total",
    help: "Recovery passes by result (succeeded, failed)",
    labelNames: ["result"] as const,
    registers: [registry],
  });
  for (const result of ["succeeded", "failed"]) recoveryRuns.inc({ result }, 0);
  const recovered = new Counter({
    name: "petstore_recovery_unfinished_writes_total",
    help: "Unfinished multi-step writes recovery found and finished or undid, by what it did",
    labelNames: ["action"] as const,
    registers: [registry],
  });
  new Gauge({
    name: "petstore_build_info",
    help: "The running build: service version, Node.js version and store kind (always 1)",
    labelNames: ["version", "node_version", "store_kind"] as const,
    registers: [registry],
  }).set({ version: API_VERSION, node_version: process.version, store_kind: storeKind }, 1);

  let pipeline: { stores: Pick<Stores, "outbox" | "webhookMessages">; clock: Clock } | undefined;
  const secondsSince = (clock: Clock, then: Date | undefined) =>
    then === undefined ? 0 : Math.max(0, (clock.now().getTime() - then.getTime()) / 1000);
  // Read at each scrape, from the stores themselves (not counted as store operations). A failed read leaves the
  // last value: the store's own errors show in petstore_store_operation_errors_total and /readyz.
  /** One store read for both backlog gauges: a scrape collects them side by side. */
  let backlogRead: Promise<{ count: number; oldestCreatedAt: Date | undefined } | undefined> | undefined;
  const readBacklog = () =>
    (backlogRead ??= (pipeline?.stores.webhookMessages.backlog(BACKLOG_COUNT_LIMIT) ?? Promise.resolve(undefined))
      .catch(() => undefined)
      .finally(() => (backlogRead = undefined)));
  new Gauge({
    name: "petstore_webhook_backlog_messages",
    help: `Webhook messages waiting for delivery or a retry (counted up to ${BACKLOG_COUNT_LIMIT})`,
    registers: [registry],
    async collect() {
      const read = await readBacklog();
      if (read) this.set(read.count);
    },
  }).set(0);
  new Gauge({
    name: "petstore_webhook_backlog_oldest_age_seconds",
    help: "Age of the oldest webhook message waiting for delivery (0 when none waits)",
    registers: [registry],
    async collect() {
      const read = await readBacklog();
      if (read && pipeline) this.set(secondsSince(pipeline.clock, read.oldestCreatedAt));
    },
  }).set(0);
  new Gauge({
    name: "petstore_relay_lag_seconds",
    help: "Age of the oldest event not yet relayed from the outbox to the event log and webhooks (0 when none)",
    registers: [registry],
    async collect() {
      if (!pipeline) return;
      const { stores, clock } = pipeline;
      const oldest = await stores.outbox.pending(1).catch(() => undefined);
      if (oldest) this.set(secondsSince(clock, oldest[0]?.occurredAt));
    },
  }).set(0);

  return {
    countOrders: (useCases) => ({
      ...useCases,
      placeOrder: after(useCases.placeOrder, () => placed.inc()),
      cancelOrder: after(useCases.cancelOrder, () => cancelled.inc()),
      updateOrder: after(useCases.updateOrder, ([, changes]) => {
        // A completion answers once: completing a complete order is refused.
        if (changes.complete === true) completed.inc();
      }),
    }),
    afterStoreCall(port, operation, args, result) {
      if (port === "pets" && operation === "reserve") {
        const write = result as PetWrite;
        if (write.applied && write.pet.stock === 0) stockOuts.inc();
      } else if (port === "webhookMessages" && operation === "settle") {
        if (result === true) deliveries.inc({ outcome: SETTLED_AS[(args[2] as Settlement).state] });
      } else if (port === "webhookMessages" && operation === "settleAll") {
        // Counted as asked: a settlement refused for a lost lease is the rare exception (the next holder's counts).
        for (const { settlement } of args[1] as { settlement: Settlement }[])
          deliveries.inc({ outcome: SETTLED_AS[settlement.state] });
      }
    },
    observeRecovery(report) {
      recoveryRuns.inc({ result: report ? "succeeded" : "failed" });
      if (report) for (const [action, n] of Object.entries(report)) recovered.inc({ action: snakeCase(action) }, n);
    },
    watchPipeline(stores, clock) {
      pipeline = { stores, clock };
    },
  };
};
