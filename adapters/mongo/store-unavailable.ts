import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoErrorLabel,
  MongoExpiredSessionError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from "mongodb";
import { DomainError } from "../../core/shared/domain-error.ts";
import { isDeadlockVictim } from "./duplicate-key.ts";

/**
 * Server codes meaning "this node cannot serve right now": host unreachable or not found, time limit, network timeout,
 * shutdown, step-down, no primary, socket exception (a router's view of its shards included).
 */
const outageCodes = new Set([6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);
/** Driver errors the package does not export: pool closed at shutdown, no connection free in time. */
const outageNames = new Set(["MongoPoolClosedError", "MongoWaitQueueTimeoutError"]);

/**
 * Node's codes for a socket that failed or was closed under the driver. The driver wraps most in a MongoNetworkError,
 * but rethrows some unwrapped: a write on a socket the server has just closed (EPIPE, "This socket has been ended by
 * the other party") or one already destroyed.
 */
const socketErrorCodes = new Set([
  "EPIPE",
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENETRESET",
  "EAI_AGAIN",
  "ERR_SOCKET_CLOSED",
  "ERR_STREAM_DESTROYED",
  "ERR_STREAM_PREMATURE_CLOSE",
  "ERR_STREAM_WRITE_AFTER_END",
]);

/**
 * What an engine in front of PostgreSQL (FerretDB on DocumentDB, the test engine) answers with InternalError (code 1)
 * while its PostgreSQL restarts or recovers from a crash, or after it cut the engine's session mid-command: the
 * database system starting up, in recovery, not yet accepting connections or shutting down; a session terminated;
 * the socket gone (refused, missing, broken pipe, reset, EOF). Like a network error, the command may or may not have
 * been applied; the client is told to retry.
 */
const ENGINE_OUTAGE =
  /the database system is (starting up|in recovery mode|not yet accepting connections|shutting down)|terminating connection|server closed the connection|failed to connect to|dial error|broken pipe|connection reset|connection refused|unexpected EOF|conn closed/i;

/** One error, without its causes: see isStoreOutage. */
const isOutageItself = (error: unknown): boolean =>
  error instanceof MongoNetworkError ||
  error instanceof MongoServerSelectionError ||
  error instanceof MongoOperationTimeoutError ||
  error instanceof MongoTopologyClosedError ||
  error instanceof MongoServerClosedError ||
  error instanceof MongoClientClosedError ||
  error instanceof MongoNotConnectedError ||
  // A request's implicit session ended under it: the client was closed (shutdown, or reconnecting after a wedge).
  error instanceof MongoExpiredSessionError ||
  (error instanceof MongoServerError && typeof error.code === "number" && outageCodes.has(error.code)) ||
  (error instanceof MongoServerError && error.code === 1 && ENGINE_OUTAGE.test(error.message)) ||
  // The driver's verdict that a write failed for want of a server (it has already retried it once if it could).
  (error instanceof MongoError && error.hasErrorLabel(MongoErrorLabel.RetryableWriteError)) ||
  (error instanceof Error && outageNames.has(error.name)) ||
  (error instanceof Error && socketErrorCodes.has(String((error as NodeJS.ErrnoException).code)));

/**
 * The store did not answer: no server to select, connection refused, reset or closed, a write on a closed socket,
 * socket timeout, pool cleared (`PoolClearedError` is a `MongoNetworkError`), client closed (a request still running
 * at shutdown), the node is shutting down or stepping down, or the engine's own storage is restarting or recovering.
 * Judged by class, code and label, on the error and on its causes (the driver wraps what a socket or a server
 * monitor threw); message text only for the test engine's code 1.
 */
export const isStoreOutage = (error: unknown): boolean => {
  let link: unknown = error;
  for (let depth = 0; depth < 5 && link instanceof Error; depth++, link = causeOf(link)) {
    if (isOutageItself(link)) return true;
  }
  return false;
};

/** A bulk write's command that failed as a whole: the driver keeps the error as `errorResponse`, not as a cause. */
const causeOf = (error: Error): unknown =>
  error instanceof MongoBulkWriteError && error.errorResponse instanceof Error ? error.errorResponse : error.cause;

export const storeUnavailable = (): DomainError =>
  new DomainError("service_unavailable", "The store is not answering", 5);

/** For adapters made without the client's settings: its default time-out (5 s) twice, plus 5 s, as mongo-stores.ts counts. */
export const DEFAULT_WEDGED_AFTER_MS = 15_000;

/**
 * The promise's outcome, or a store outage once `ms` have passed. For waits shared by many requests (one id block, one
 * key's share): a command the driver wedged for good (stuck-connection-watchdog.ts) must not hold every later caller.
 */
export const sharedWaitWithin = <T>(promise: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(storeUnavailable()), ms);
    timer.unref();
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
};

/**
 * Runs one store operation. An outage becomes `service_unavailable` (the driver's message, which names hosts and
 * internals, stays out of it); so does a write the test engine aborted as a deadlock's victim that the operation did
 * not retry itself (it wrote nothing: e.g. the driver's retry of an insert meeting its first copy, still running after
 * its connection was reset). Every other error propagates unchanged.
 */
export const guarded = async <T>(operation: () => Promise<T>): Promise<T> => {
  try {
    return await operation();
  } catch (error) {
    throw isStoreOutage(error) || isDeadlockVictim(error) ? storeUnavailable() : error;
  }
};
