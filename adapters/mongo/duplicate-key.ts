import { MongoBulkWriteError, MongoServerError, type WriteError } from "mongodb";
import { DomainError } from "../../core/shared/domain-error.ts";

/**
 * PostgreSQL's texts for a unique index violation: a unique `_id` (primary key) and a unique secondary index, which
 * DocumentDB implements as an exclusion constraint.
 */
const POSTGRESQL_UNIQUE_VIOLATION =
  /duplicate key value violates unique constraint|conflicting key value violates exclusion constraint/;

/**
 * A unique index refused the write. MongoDB reports 11000 for every write. Engine quirk of FerretDB v2 on
 * PostgreSQL + DocumentDB (the test engine): `findAndModify` (findOneAndUpdate, also when its upsert inserts)
 * reports code 1 (InternalError) with PostgreSQL's text instead, the write not applied; inserts and updates say 11000.
 * The only place the adapters decide what a duplicate key is.
 */
export const isDuplicateKeyError = (error: unknown): boolean =>
  error instanceof MongoServerError &&
  (error.code === 11000 || (error.code === 1 && POSTGRESQL_UNIQUE_VIOLATION.test(error.message)));

/**
 * PostgreSQL's deadlock detection (SQLSTATE 40P01) as FerretDB v2 reports it: concurrent inserts of one key into a
 * unique secondary index (an exclusion constraint in DocumentDB) can abort one of them as the deadlock's victim.
 * The aborted command wrote nothing. MongoDB itself retries such conflicts inside a single-document write.
 */
export const isDeadlockVictim = (error: unknown): boolean =>
  error instanceof MongoServerError && /deadlock detected/i.test(error.message);

/**
 * An unordered bulk write whose every failed operation was a deadlock's victim (each wrote nothing, so the bulk may
 * run again), or a single command that was. A bulk failing with no write error (a write concern error) is not one.
 */
export const isBulkDeadlockVictim = (error: unknown): boolean => {
  if (!(error instanceof MongoBulkWriteError)) return isDeadlockVictim(error);
  const errors = [error.writeErrors].flat();
  return errors.length > 0 && errors.every((e) => /deadlock detected/i.test(e.errmsg ?? ""));
};

/** How `retryingDeadlocks` spaces its runs; tests shrink the delays. */
export interface DeadlockRetry {
  /** Runs in all, the first included. */
  readonly attempts: number;
  /** The n-th run again waits a random time below `baseDelayMs * 2 ** n`. */
  readonly baseDelayMs: number;
}

/**
 * Eight runs, the waits below 40, 80, ... 2,560 ms: immediate re-runs re-form the deadlock cycle, growing random
 * pauses let the winner commit (docs/operations.md#the-test-engine-ferretdb-v2-on-postgresql--documentdb).
 */
export const DEADLOCK_RETRY: DeadlockRetry = { attempts: 8, baseDelayMs: 20 };

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs one single-command write again when the engine aborted it as a deadlock victim (it wrote nothing, so running
 * it again is running it once), after a growing random pause, up to `retry.attempts` runs. Any other error
 * propagates; a write still a victim after the last run becomes `service_unavailable` (503, retry in a second): a
 * conflict the store could not settle now, never an internal error.
 */
export const retryingDeadlocks = async <T>(
  write: () => Promise<T>,
  retry: DeadlockRetry = DEADLOCK_RETRY,
  isVictim: (error: unknown) => boolean = isDeadlockVictim,
): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!isVictim(error)) throw error;
      if (attempt >= retry.attempts) {
        throw new DomainError("service_unavailable", "The store could not settle a conflicting write; retry", 1);
      }
    }
    await pause(Math.random() * retry.baseDelayMs * 2 ** attempt);
  }
};

/**
 * The write errors of an unordered `insertMany` of `count` documents when the engine answered for each one (inserted,
 * or refused with a write error); undefined when it did not. The driver throws a MongoBulkWriteError for an error of
 * the command itself too (the connection lost, no server, the engine's session cut), with no write error: then which
 * documents were inserted is unknown, and none may be taken as written.
 */
export const insertAnswers = (error: unknown, count: number): WriteError[] | undefined => {
  if (!(error instanceof MongoBulkWriteError)) return undefined;
  const writeErrors = [error.writeErrors].flat();
  return error.result.insertedCount + writeErrors.length === count ? writeErrors : undefined;
};

/** An `insertMany` of `count` documents refused only where a document with its key is there already. */
export const duplicatesOnly = (error: unknown, count: number): boolean =>
  error instanceof MongoBulkWriteError
    ? insertAnswers(error, count)?.every((e) => e.code === 11000) === true
    : isDuplicateKeyError(error);
