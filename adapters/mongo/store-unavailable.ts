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
 * What an engine in front of PostgreSQL (FerretDB on DocumentDB, the test engine) answers with InternalError (code 1)
 * while its PostgreSQL restarts or recovers from a crash, or after it cut the engine's session mid-command: the
 * database system starting up, in recovery, not yet accepting connections or shutting down; a session terminated;
 * the socket gone (refused, missing, broken pipe, reset, EOF). Like a network error, the command may or may not have
 * been applied; the client is told to retry.
 */
const ENGINE_OUTAGE =
  /the database system is (starting up|in recovery mode|not yet accepting connections|shutting down)|terminating connection|server closed the connection|failed to connect to|dial error|broken pipe|connection reset|connection refused|unexpected EOF|conn closed/i;

/**
 * The store did not answer: no server to select, connection refused or reset, socket timeout, pool cleared
 * (`PoolClearedError` is a `MongoNetworkError`), client closed (a request still running at shutdown), the
 * node is shutting down or stepping down, or the engine's own storage is restarting or recovering.
 */
export const isStoreOutage = (error: unknown): boolean =>
  error instanceof MongoNetworkError ||
  error instanceof MongoServerSelectionError ||
  error instanceof MongoOperationTimeoutError ||
  error instanceof MongoTopologyClosedError ||
  error instanceof MongoClientClosedError ||
  error instanceof MongoNotConnectedError ||
  (error instanceof MongoServerError && typeof error.code === "number" && outageCodes.has(error.code)) ||
  (error instanceof MongoServerError && error.code === 1 && ENGINE_OUTAGE.test(error.message)) ||
  (error instanceof Error && outageNames.has(error.name));

export const storeUnavailable = (): DomainError =>
  new DomainError("service_unavailable", "The store is not answering", 5);

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
