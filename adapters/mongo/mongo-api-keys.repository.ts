import type { Collection, Db, Filter, UpdateFilter } from "mongodb";
import type { ApiKey, ApiKeySettings, Plan, RateLimits } from "../../core/access/api-key.ts";
import { limitFields } from "../../core/rate-limiting/windows.ts";
import type { ApiKeys } from "../../core/access/api-keys.port.ts";
import type { Role } from "../../core/access/permissions.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { findPage } from "./mongo-paging.ts";
import { allMapped, definedFields, type EveryField } from "./mapping.ts";
import { guarded } from "./store-unavailable.ts";

interface ApiKeyDocument {
  _id: number;
  label: string;
  role: Role;
  plan: Plan;
  limits?: RateLimits;
  secretHash: string;
  /**
   * The secret hash again, only while the key is active: revoking removes it. Its unique sparse index makes the
   * look-up of every request one indexed find, allows one active key per secret, and lets a revoked key's secret
   * be issued again (a bootstrap admin secret that stays configured after its key was revoked).
   */
  activeSecretHash?: string;
  createdAt: Date;
  revokedAt?: Date;
  /**
   * The ban lives on the key, not in a collection of its own with a TTL index: the look-up that finds the key on
   * every request reads it at no extra round trip, and an ended ban needs no deletion (a past `bannedUntil` is no
   * ban; a TTL index could only delete the whole key). `recentBans` holds the starts of the last 24 h's bans.
   */
  bannedUntil?: Date;
  recentBans: Date[];
}

const toDocument = (key: ApiKey): ApiKeyDocument => {
  const { id, label, role, plan, limits, secretHash, createdAt, revokedAt, bannedUntil, recentBans, ...unmapped } = key;
  allMapped(unmapped);
  return definedFields({
    _id: id,
    label,
    role,
    plan,
    limits: limits && { ...limits },
    secretHash,
    activeSecretHash: revokedAt === undefined ? secretHash : undefined,
    createdAt,
    revokedAt,
    bannedUntil,
    recentBans: [...recentBans],
  });
};

const toApiKey = (doc: ApiKeyDocument): EveryField<ApiKey> => ({
  id: doc._id,
  label: doc.label,
  role: doc.role,
  plan: doc.plan,
  limits: doc.limits && { ...doc.limits },
  secretHash: doc.secretHash,
  createdAt: doc.createdAt,
  revokedAt: doc.revokedAt,
  bannedUntil: doc.bannedUntil,
  recentBans: doc.recentBans,
});

export const createApiKeyIndexes = async (db: Db): Promise<void> => {
  await db.collection("api_keys").createIndex({ activeSecretHash: 1 }, { unique: true, sparse: true });
};

const active = { revokedAt: { $exists: false } } as const;

/**
 * Matches a key whose settings are exactly these. Limits are compared field by field: equality of an embedded
 * document depends on its field order, which another writer (or a hand edit) need not keep.
 */
const withSettings = (settings: ApiKeySettings): Filter<ApiKeyDocument> => ({
  label: settings.label,
  role: settings.role,
  plan: settings.plan,
  ...(settings.limits === undefined
    ? { limits: { $exists: false } }
    : Object.fromEntries(limitFields.map((field) => [`limits.${field}`, settings.limits![field]]))),
});

export class MongoApiKeys implements ApiKeys {
  readonly #keys: Collection<ApiKeyDocument>;
  constructor(db: Db) {
    this.#keys = db.collection<ApiKeyDocument>("api_keys");
  }

  add(key: ApiKey): Promise<void> {
    return guarded(async () => {
      await this.#keys.insertOne(toDocument(key));
    });
  }

  ofId(id: number): Promise<ApiKey | undefined> {
    return guarded(async () => {
      const doc = await this.#keys.findOne({ _id: id });
      return doc ? toApiKey(doc) : undefined;
    });
  }

  ofIds(ids: readonly number[]): Promise<ApiKey[]> {
    return guarded(async () => {
      if (ids.length === 0) return [];
      return (await this.#keys.find({ _id: { $in: [...ids] } }).toArray()).map(toApiKey);
    });
  }

  activeOfSecretHash(secretHash: string): Promise<ApiKey | undefined> {
    return guarded(async () => {
      const doc = await this.#keys.findOne({ activeSecretHash: secretHash });
      return doc ? toApiKey(doc) : undefined;
    });
  }

  list(page: PageRequest): Promise<ApiKey[]> {
    return guarded(async () => (await findPage(this.#keys, {}, page)).map(toApiKey));
  }

  anyActiveWithRole(role: Role): Promise<boolean> {
    return guarded(async () => (await this.#keys.findOne({ role, ...active }, { projection: { _id: 1 } })) !== null);
  }

  replaceSettings(key: ApiKeySettings & Pick<ApiKey, "id">, expected: ApiKeySettings): Promise<boolean> {
    return guarded(async () => {
      const settings = { label: key.label, role: key.role, plan: key.plan };
      const update: UpdateFilter<ApiKeyDocument> =
        key.limits === undefined
          ? { $set: settings, $unset: { limits: "" } }
          : { $set: { ...settings, limits: { ...key.limits } } };
      return (
        (await this.#keys.updateOne({ _id: key.id, ...active, ...withSettings(expected) }, update)).matchedCount === 1
      );
    });
  }

  revoke(id: number, at: Date): Promise<boolean> {
    return guarded(async () => {
      const result = await this.#keys.updateOne(
        { _id: id, ...active },
        { $set: { revokedAt: at }, $unset: { activeSecretHash: "" } },
      );
      return result.matchedCount === 1;
    });
  }

  /**
   * One update sets the ban and appends its start; a second one, only when needed, drops starts up to
   * `forgetBefore` (one update cannot both push to and pull from an array), naming the stale dates exactly.
   */
  ban(id: number, ban: { at: Date; until: Date; forgetBefore: Date }): Promise<boolean> {
    return guarded(async () => {
      const notBanned = { $or: [{ bannedUntil: { $exists: false } }, { bannedUntil: { $lte: ban.at } }] };
      const doc = await this.#keys.findOneAndUpdate(
        { _id: id, ...notBanned },
        { $set: { bannedUntil: ban.until }, $push: { recentBans: ban.at } },
        { returnDocument: "after" },
      );
      const stale = doc?.recentBans.filter((at) => at <= ban.forgetBefore) ?? [];
      if (stale.length > 0) await this.#keys.updateOne({ _id: id }, { $pullAll: { recentBans: stale } });
      return doc !== null;
    });
  }

  unban(id: number): Promise<boolean> {
    return guarded(async () => {
      const result = await this.#keys.updateOne({ _id: id, ...active }, { $unset: { bannedUntil: "" } });
      return result.matchedCount === 1;
    });
  }
}
