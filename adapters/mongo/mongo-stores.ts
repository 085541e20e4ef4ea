import { MongoClient, type Db, type MongoClientOptions } from "mongodb";
import type { Stores } from "../../core/stores.ts";
import { reportDriverEvents, type DriverEventSink } from "./driver-events.ts";
import { failWritesOnClosedSockets } from "./closed-socket-writes.ts";
import { watchStuckConnections } from "./stuck-connection-watchdog.ts";
import { MongoAdminGuard } from "./mongo-admin-guard.ts";
import { createApiKeyIndexes, MongoApiKeys } from "./mongo-api-keys.repository.ts";
import { createCategoryIndexes, MongoCategories } from "./mongo-categories.repository.ts";
import { createEventLogIndexes, MongoEventLog } from "./mongo-event-log.ts";
import { createCounters, MongoIdAllocator } from "./mongo-id-allocator.ts";
import { createIdempotencyIndexes, MongoIdempotencyRecords } from "./mongo-idempotency-records.ts";
import { createOrderIndexes, MongoOrders } from "./mongo-orders.repository.ts";
import { migrateOutboxKeys } from "./migrate-outbox-keys.ts";
import { migrateHoldsToMarks } from "./migrate-holds-to-marks.ts";
import { migrateToPetAggregate } from "./migrate-to-pet-aggregate.ts";
import { MongoOutbox } from "./mongo-outbox.ts";
import { createPetIndexes, migratePetNameKeys, MongoPets } from "./mongo-pets.repository.ts";
import { createRateWindowIndexes, MongoRateLimiter } from "./mongo-rate-limiter.ts";
import { MongoStoreHealth } from "./mongo-store-health.ts";
import { isStoreOutage } from "./store-unavailable.ts";
import { createDeliveryAttemptIndexes, MongoDeliveryAttempts } from "./mongo-delivery-attempts.ts";
import { createWebhookMessageIndexes, MongoWebhookMessages } from "./mongo-webhook-messages.ts";
import {
  createWebhookSubscriptionIndexes,
  MongoWebhookSubscriptions,
} from "./mongo-webhook-subscriptions.repository.ts";

export interface MongoStoresOptions {
  url: string;
  dbName: string;
  /** Connections per server; every store operation is one short command. */
  maxPoolSize?: number;
  /** Bound of server selection, connecting, waiting for a pooled connection and each socket read: past it the
   * store counts as not answering (service_unavailable). */
  timeoutMs?: number;
  /** Receives the serving client's pool and monitoring events (docs/operations.md, "Reconnection"). */
  onDriverEvent?: DriverEventSink;
}

/** For callers without a setting (tests, bench); the service passes MONGODB_TIMEOUT_MS (default 2 s). */
const DEFAULT_TIMEOUT_MS = 5_000;
/**
 * Start-up is not a request: creating indexes on a slow or busy server may take longer than a request may wait.
 * Finding the server stays bounded by `timeoutMs` (an unreachable database still fails fast).
 */
const PREPARE_SOCKET_TIMEOUT_MS = 60_000;

/** The client's options: every wait bounded by `timeoutMs`, and the write concern. */
export const mongoClientOptions = (options: MongoStoresOptions): MongoClientOptions => {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    appName: "petstore",
    maxPoolSize: options.maxPoolSize ?? 20,
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs,
    waitQueueTimeoutMS: timeoutMs,
    // Explicit, whatever the deployment's default: a write is acknowledged (and the HTTP answer sent) only once a
    // majority of the replica set has it in its journal, so neither a crash nor a failover loses it. A standalone
    // server is its own majority.
    writeConcern: { w: "majority", journal: true },
  };
};

/**
 * The client requests go through: its pool and monitoring events reported, a write stalled on a closed socket failed
 * (closed-socket-writes.ts), and its heartbeats and check-outs watched, so a wedge of any other cause cannot keep it
 * from reconnecting either (stuck-connection-watchdog.ts). `close` stops both, then the client.
 */
export const servingClient = (options: MongoStoresOptions): { client: MongoClient; close(): Promise<void> } => {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = new MongoClient(options.url, mongoClientOptions(options));
  if (options.onDriverEvent) reportDriverEvents(client, options.onDriverEvent);
  const closedSocketWrites = failWritesOnClosedSockets(client, options.onDriverEvent);
  // A heartbeat connects (connectTimeoutMS) and then waits for its answer (socketTimeoutMS); a check-out sends one
  // command and waits for its answer. 5 s of slack: a loaded machine's event loop must not pass for a wedge.
  const watchdog = watchStuckConnections(client, wedgedAfter(timeoutMs), options.onDriverEvent);
  return {
    client,
    close: async () => {
      watchdog.stop();
      closedSocketWrites.stop();
      await client.close();
    },
  };
};

/** A command still running this long is wedged: its connect and its answer each had `timeoutMs`, plus 5 s of slack. */
const wedgedAfter = (timeoutMs: number): number => 2 * timeoutMs + 5_000;

/** Where the client was pointed, without credentials or options: "host:port[,host:port…]". */
const hostsOf = (url: string): string => {
  const authority = url.replace(/^mongodb(\+srv)?:\/\//, "").split(/[/?]/, 1)[0] ?? "";
  return authority.slice(authority.lastIndexOf("@") + 1) || "(no host)";
};

/** Start-up could not reach or use the database; the message is one line, fit for an operator. */
export class MongoStartUpError extends Error {
  override name = "MongoStartUpError";
}

const startUpError = (options: MongoStoresOptions, error: unknown): MongoStartUpError => {
  const where = `MongoDB at ${hostsOf(options.url)} (database ${options.dbName})`;
  const detail = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim();
  const problem = isStoreOutage(error) ? ` did not answer within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms` : "";
  return new MongoStartUpError(`${where}${problem}: ${detail}`, { cause: error });
};

/**
 * Every index the adapters' queries rely on, and the id counters. Idempotent (an index that exists with the same
 * options, or a counter that exists, is left as it is), so every instance runs it at start-up.
 */
export const prepareMongoDatabase = async (db: Db): Promise<void> => {
  await Promise.all([
    createCounters(db),
    createPetIndexes(db),
    createCategoryIndexes(db),
    createOrderIndexes(db),
    createApiKeyIndexes(db),
    createRateWindowIndexes(db),
    createIdempotencyIndexes(db),
    createWebhookSubscriptionIndexes(db),
    createWebhookMessageIndexes(db),
    createDeliveryAttemptIndexes(db),
    createEventLogIndexes(db),
  ]);
};

/**
 * Every start-up migration, in order. Each runs at every start of every instance, beside live instances and with
 * half-done work in the database, so each must leave alone what recovery still needs (docs/consistency.md#recovery).
 */
export const migrateMongoDatabase = async (db: Db): Promise<void> => {
  await migrateToPetAggregate(db, new Date());
  await migrateHoldsToMarks(db, new Date());
  await migrateOutboxKeys(db);
  await migratePetNameKeys(db);
};

/** The adapters over one prepared database (prepareMongoDatabase); `close` releases what the caller owns (the client). */
export const mongoStoresFor = (
  db: Db,
  close: () => Promise<void>,
  { wedgedAfterMs }: { wedgedAfterMs?: number } = {},
): Stores => {
  const limiter = new MongoRateLimiter(db, { wedgedAfterMs });
  return {
    pets: new MongoPets(db),
    categories: new MongoCategories(db),
    orders: new MongoOrders(db),
    outbox: new MongoOutbox(db),
    eventLog: new MongoEventLog(db),
    ids: new MongoIdAllocator(db, { wedgedAfterMs }),
    apiKeys: new MongoApiKeys(db),
    adminGuard: new MongoAdminGuard(db),
    limiter,
    idempotency: new MongoIdempotencyRecords(db),
    health: new MongoStoreHealth(db),
    webhooks: new MongoWebhookSubscriptions(db),
    webhookMessages: new MongoWebhookMessages(db),
    deliveryAttempts: new MongoDeliveryAttempts(db),
    async close() {
      // Before the client goes: what this instance holds of rate windows is handed back to the others.
      await limiter.returnShares().catch(() => undefined);
      await close();
    },
  };
};

/**
 * Connects, prepares the database (indexes, counters) and hands out the stores; `close()` closes the client. No multi-document
 * transactions anywhere: every guarantee rests on single-document atomic updates and unique indexes.
 * Rejects with a MongoStartUpError (its cause the driver's error) when the server does not answer in time or refuses
 * (a start-up failure, not a request).
 */
export const connectMongoStores = async (options: MongoStoresOptions): Promise<Stores> => {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const preparing = new MongoClient(options.url, {
    ...mongoClientOptions(options),
    maxPoolSize: 4,
    connectTimeoutMS: Math.max(timeoutMs, PREPARE_SOCKET_TIMEOUT_MS),
    socketTimeoutMS: Math.max(timeoutMs, PREPARE_SOCKET_TIMEOUT_MS),
  });
  const serving = servingClient(options);
  try {
    await preparing.connect();
    await prepareMongoDatabase(preparing.db(options.dbName));
    await migrateMongoDatabase(preparing.db(options.dbName));
    await preparing.close();
    // The serving client connects on its first operation, within the request bounds.
    return mongoStoresFor(serving.client.db(options.dbName), serving.close, { wedgedAfterMs: wedgedAfter(timeoutMs) });
  } catch (error) {
    await preparing.close().catch(() => undefined);
    await serving.close().catch(() => undefined);
    throw startUpError(options, error);
  }
};
