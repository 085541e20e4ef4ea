import { MongoServerError, type Db } from "mongodb";

/** NamespaceNotFound, IndexNotFound: nothing to drop (a new database, or another instance dropped it first). */
const NOTHING_TO_DROP = new Set([26, 27]);

/**
 * When the server may delete a document that stays useful for `lifetimeMs` from now: `now` is the wall clock, which
 * is what the server's TTL monitor compares with, not the service's clock (in production the two agree; a service
 * clock that is off, or a test's manual clock, then cannot get a document deleted while it is still needed).
 */
export const deleteAtAfter = (lifetimeMs: number): Date => new Date(Date.now() + Math.max(0, lifetimeMs));

/**
 * A TTL index on `deleteAt` (expireAfterSeconds 0): the server deletes each document once its `deleteAt` has passed.
 * MongoDB's TTL monitor runs once a minute, so a document may outlive its date by a minute or so; the adapters decide
 * by their own dates, never by whether the deletion has happened.
 *
 * Databases written by earlier versions, which swept expired documents themselves, hold documents without `deleteAt`
 * and a plain index on `expiresAt`: the documents get `deleteAt` = `expiresAt` + `legacyGraceMs`, and the index goes.
 * Idempotent, and safe when several instances start at once.
 */
export const createTtlIndex = async (db: Db, collection: string, legacyGraceMs: number): Promise<void> => {
  const documents = db.collection(collection);
  await documents.createIndex({ deleteAt: 1 }, { expireAfterSeconds: 0 });
  if (!(await documents.indexes()).some((index) => index.name === "expiresAt_1")) return;
  await documents.updateMany({ deleteAt: { $exists: false } }, [
    { $set: { deleteAt: { $add: ["$expiresAt", legacyGraceMs] } } },
  ]);
  await documents.dropIndex("expiresAt_1").catch((error: unknown) => {
    if (!(error instanceof MongoServerError && typeof error.code === "number" && NOTHING_TO_DROP.has(error.code)))
      throw error;
  });
};
