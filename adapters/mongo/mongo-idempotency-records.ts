import { ObjectId, type Collection, type Db } from "mongodb";
import type {
  AttemptNote,
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
  /** The owner of the lock: set by each claim, required by `complete` and `release`. */
  token: string;
  fingerprint: string;
  leaseUntil: Date;
  expiresAt: Date;
  /** When the server deletes the record (TTL index): `expiresAt`, measured on the wall clock. */
  deleteAt: Date;
  response?: RecordedResponse;
  /** The attempt's note (see IdempotencyRecords.note): kept when a lost attempt's record is taken over. */
  note?: AttemptNote;
}

const ATTEMPTS = 3;

/** The server deletes a record once it has expired; until it does, a claim treats an expired record as absent. */
export const createIdempotencyIndexes = async (db: Db): Promise<void> => {
  await createTtlIndex(db, "idempotency_records", 0);
};

/**
 * One document per (scope, key). A claim is an insert: the unique `_id` lets exactly one of two racing claims win
 * (no read-then-write). A record whose lease ran out unfinished, or that expired, is taken over with one conditional
 * update (exactly one of racing claims matches it), so a crashed first request blocks its retries for the lease
 * only. `complete` and `release` are conditional on the claim's token, so a request that lost its lock cannot touch
 * its successor's record.
 */
export class MongoIdempotencyRecords implements IdempotencyRecords {
  readonly #records: Collection<IdempotencyDocument>;
  constructor(db: Db) {
    this.#records = db.collection<IdempotencyDocument>("idempotency_records");
  }

  claim(claim: IdempotencyClaim): Promise<Claim> {
    return guarded(async () => {
      const _id = idOf(claim.scope, claim.key);
      const token = new ObjectId().toHexString();
      const fresh = {
        token,
        fingerprint: claim.fingerprint,
        leaseUntil: claim.leaseUntil,
        expiresAt: claim.expiresAt,
        deleteAt: deleteAtAfter(claim.expiresAt.getTime() - claim.now.getTime()),
      };
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        try {
          await this.#records.insertOne({ _id, ...fresh });
          return { outcome: "claimed", token };
        } catch (error) {
          if (!isDuplicateKeyError(error)) throw error;
        }
        // An expired record is claimed as if absent, its note forgotten; a lost attempt's keeps its note, handed back.
        const expired = await this.#records.updateOne(
          { _id, expiresAt: { $lte: claim.now } },
          { $set: fresh, $unset: { response: "", note: "" } },
        );
        if (expired.matchedCount === 1) return { outcome: "claimed", token };
        // A lost or released attempt's note goes on to a retry of the same request; another request learns nothing of it.
        const unlocked = { _id, response: { $exists: false }, leaseUntil: { $lte: claim.now } };
        const lost = await this.#records.findOneAndUpdate(
          { ...unlocked, fingerprint: claim.fingerprint },
          { $set: fresh },
        );
        if (lost) return { outcome: "claimed", token, previous: lost.note };
        if (await this.#records.findOneAndUpdate(unlocked, { $set: fresh, $unset: { note: "" } }))
          return { outcome: "claimed", token };
        const existing = await this.#records.findOne({ _id });
        if (existing) {
          return existing.response
            ? { outcome: "completed", fingerprint: existing.fingerprint, response: existing.response }
            : { outcome: "in-progress", fingerprint: existing.fingerprint, leaseUntil: existing.leaseUntil };
        }
        // Released between our insert and our read: claim again.
      }
      throw new Error(`Idempotency record ${_id} changed under ${ATTEMPTS} attempts to claim it`);
    });
  }

  note(scope: string, key: string, token: string, note: AttemptNote): Promise<boolean> {
    return guarded(async () => {
      const { matchedCount } = await this.#records.updateOne(
        { _id: idOf(scope, key), token, response: { $exists: false } },
        { $set: { note } },
      );
      return matchedCount === 1;
    });
  }

  complete(scope: string, key: string, token: string, response: RecordedResponse): Promise<boolean> {
    return guarded(async () => {
      const { matchedCount } = await this.#records.updateOne(
        { _id: idOf(scope, key), token, response: { $exists: false } },
        { $set: { response } },
      );
      return matchedCount === 1;
    });
  }

  /** With a note the record stays, unlocked (the next claim takes it over, note and all); without one it goes. */
  release(scope: string, key: string, token: string): Promise<void> {
    return guarded(async () => {
      const owned = { _id: idOf(scope, key), token, response: { $exists: false } };
      const { matchedCount } = await this.#records.updateOne(
        { ...owned, note: { $exists: true } },
        { $set: { leaseUntil: new Date(0) } },
      );
      if (matchedCount === 0) await this.#records.deleteOne(owned);
    });
  }
}

/** Scopes never contain "|", so the first one separates scope from the client's key. */
const idOf = (scope: string, key: string): string => `${scope}|${key}`;
