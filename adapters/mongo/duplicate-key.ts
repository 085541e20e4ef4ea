import { MongoServerError } from "mongodb";

/**
 * A unique index refused the write. MongoDB reports 11000 for inserts and updates alike; FerretDB 1.x on SQLite
 * reports 11000 for inserts (and upserts that insert) but an `InternalError` (code 1) carrying SQLite's
 * "UNIQUE constraint failed" for updates and replacements, with the write not applied.
 */
export const isDuplicateKeyError = (error: unknown): boolean =>
  error instanceof MongoServerError &&
  (error.code === 11000 || (error.code === 1 && /UNIQUE constraint failed/.test(error.message)));
