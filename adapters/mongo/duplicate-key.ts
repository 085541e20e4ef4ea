import { MongoServerError } from "mongodb";

/**
 * PostgreSQL's texts for a unique index violation: a unique `_id` (primary key) and a unique secondary index, which
 * DocumentDB implements as an exclusion constraint.
 */
const POSTGRESQL_UNIQUE_VIOLATION = /duplicate key value violates unique constraint|conflicting key value violates exclusion constraint/;

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
export const isDeadlockVictim = (error: unknown): boolean => error instanceof MongoServerError && /deadlock detected/i.test(error.message);

/**
 * Runs one single-command write again when the engine aborted it as a deadlock victim (it wrote nothing, so running
 * it again is running it once), up to `attempts` times; any other error, and the last deadlock, propagate.
 */
export const retryingDeadlocks = async <T>(write: () => Promise<T>, attempts = 3): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= attempts || !isDeadlockVictim(error)) throw error;
    }
  }
};
