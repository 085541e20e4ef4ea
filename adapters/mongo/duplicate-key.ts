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
