import type { Collection, Db } from "mongodb";
import type {
  Claim,
  IdempotencyClaim,
  IdempotencyRecords,
  RecordedResponse,
} from "../../core/idempotency/idempotency-records.port.ts";
import { isDuplicateKeyError } from "./duplicate-key.ts";
import { guarded } from "./store-unavailable.ts";
import { createTtlIndex, deleteAtAfter } from "./ttl-index.ts";

interface IdempotencyDocument {
  _id: string;
  fingerprint: string;
  leaseUntil: Date;
  expiresAt: Date;
  /** When the server deletes the record (TTL index): `expiresAt`, measured on the wall clock. */
  deleteAt: Date;
  response?: RecordedResponse;
}

const ATTEMPTS = 3;

/** The server deletes a record once it has expired; until it does, a claim treats an expired record as absent. */
export const createIdempotencyIndexes = async (db: Db): Promise<void> => {
  await createTtlIndex(db, "idempotency_records", 0);
};

/**
 * One document per (scope, key). A claim is an insert: the unique `_id` lets exactly one of two racing claims win
 * (no read-then-write). A record whose lease ran out unfinished, or that expired, is taken over with one conditional
 * update, so a crashed first request blocks its retries for the lease only.
 */
export class MongoIdempotencyRecords implements IdempotencyRecords {
  readonly #records: Collection<IdempotencyDocument>;
  constructor(db: Db) {
    this.#records = db.collection<IdempotencyDocument>("idempotency_records");
  }

  claim(claim: IdempotencyClaim): Promise<Claim> {
    return guarded(async () => {
      const _id = idOf(claim.scope, claim.key);
      const fresh = {
        fingerprint: claim.fingerprint,
        leaseUntil: claim.leaseUntil,
        expiresAt: claim.expiresAt,
        deleteAt: deleteAtAfter(claim.expiresAt.getTime() - claim.now.getTime()),
      };
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        try {
          await this.#records.insertOne({ _id, ...fresh });
          return { outcome: "claimed" };
        } catch (error) {
          if (!isDuplicateKeyError(error)) throw error;
        }
        const takenOver = await this.#records.findOneAndUpdate(
          { _id, $or: [{ expiresAt: { $lte: claim.now } }, { response: { $exists: false }, leaseUntil: { $lte: claim.now } }] },
          { $set: fresh, $unset: { response: "" } },
        );
        if (takenOver) return { outcome: "claimed" };
        const existing = await this.#records.findOne({ _id });
        if (existing) {
          return existing.response
            ? { outcome: "completed", fingerprint: existing.fingerprint, response: existing.response }
            : { outcome: "in-progress", fingerprint: existing.fingerprint };
        }
        // Released between our insert and our read: claim again.
      }
      throw new Error(`Idempotency record ${_id} changed under ${ATTEMPTS} attempts to claim it`);
    });
  }

  complete(scope: string, key: string, response: RecordedResponse): Promise<void> {
    return guarded(async () => {
      await this.#records.updateOne({ _id: idOf(scope, key) }, { $set: { response } });
    });
  }

  release(scope: string, key: string): Promise<void> {
    return guarded(async () => {
      await this.#records.deleteOne({ _id: idOf(scope, key) });
    });
  }
}

/** Scopes never contain "|", so the first one separates scope from the client's key. */
const idOf = (scope: string, key: string): string => `${scope}|${key}`;
