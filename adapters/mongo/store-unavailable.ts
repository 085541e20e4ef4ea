import {
  MongoClientClosedError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from "mongodb";
import { DomainError } from "../../core/shared/domain-error.ts";

/** Server codes meaning "this node cannot serve right now" (shutdown, step-down, no primary, time limit). */
const outageCodes = new Set([50, 91, 189, 262, 10107, 11600, 11602, 13435, 13436]);
/** Driver errors the package does not export: pool closed at shutdown, no connection free in time. */
const outageNames = new Set(["MongoPoolClosedError", "MongoWaitQueueTimeoutError"]);

/**
 * The store did not answer: no server to select, connection refused or reset, socket timeout, pool cleared
 * (`PoolClearedError` is a `MongoNetworkError`), client closed (a request still running at shutdown), or the
 * node is shutting down or stepping down.
 */
export const isStoreOutage = (error: unknown): boolean =>
  error instanceof MongoNetworkError ||
  error instanceof MongoServerSelectionError ||
  error instanceof MongoOperationTimeoutError ||
  error instanceof MongoTopologyClosedError ||
  error instanceof MongoClientClosedError ||
  error instanceof MongoNotConnectedError ||
  (error instanceof MongoServerError && typeof error.code === "number" && outageCodes.has(error.code)) ||
  (error instanceof Error && outageNames.has(error.name));

export const storeUnavailable = (): DomainError => new DomainError("service_unavailable", "The store is not answering", 5);

/**
 * Runs one store operation. An outage becomes `service_unavailable` (the driver's message, which names hosts and
 * internals, stays out of it); every other error propagates unchanged.
 */
export const guarded = async <T>(operation: () => Promise<T>): Promise<T> => {
  try {
    return await operation();
  } catch (error) {
    throw isStoreOutage(error) ? storeUnavailable() : error;
  }
};
