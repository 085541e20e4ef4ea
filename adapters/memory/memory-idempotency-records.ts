import type {
  AttemptNote,
  Claim,
  IdempotencyClaim,
  IdempotencyRecords,
  RecordedResponse,
} from "../../core/idempotency/idempotency-records.port.ts";

interface Entry {
  /** The lock's owner: only it may complete or release the record. */
  token: string;
  fingerprint: string;
  leaseUntil: number;
  expiresAt: number;
  /** Frozen: handed out as is on every replay, never copied. */
  response: Readonly<RecordedResponse> | undefined;
  note: AttemptNote | undefined;
}

/** Records kept per scope (API key) unless told otherwise: the most recently claimed ones. */
export const DEFAULT_RECORDS_PER_SCOPE = 1_000;

const frozen = (response: RecordedResponse): Readonly<RecordedResponse> =>
  Object.freeze({ status: response.status, body: response.body, headers: Object.freeze({ ...response.headers }) });

/**
 * Idempotency records in process memory, at most `perScope` per scope: claiming a new key in a full scope forgets
 * the scope's oldest claimed key that is not in progress (a retry with a forgotten key acts afresh). Keys still in
 * progress are never forgotten, so a scope may briefly hold more while that many of its requests are in flight.
 * Expired records go from the front of the least recently claimed scopes, so forgetting them costs what it forgets.
 */
export class MemoryIdempotencyRecords implements IdempotencyRecords {
  /**
   * Scopes, the least recently claimed in first (a Map keeps insertion order); per scope, records in claim order.
   * Every record is kept as long (the retention), so in both orders the first to expire come first (were it not so,
   * an expired record would wait behind a kept one, still treated as expired by every claim).
   */
  readonly #scopes = new Map<string, Map<string, Entry>>();
  readonly #perScope: number;
  /** The scope claimed last, already at the end: claimed again, it is not moved. */
  #lastScope: string | undefined;
  #lastSweep = Number.NEGATIVE_INFINITY;
  #lastToken = 0;

  constructor(options: { perScope?: number } = {}) {
    this.#perScope = options.perScope ?? DEFAULT_RECORDS_PER_SCOPE;
  }

  claim(claim: IdempotencyClaim): Promise<Claim> {
    const now = claim.now.getTime();
    const existing = this.#scopes.get(claim.scope)?.get(claim.key);
    if (existing && !isStale(existing, now)) {
      return Promise.resolve(
        existing.response
          ? { outcome: "completed", fingerprint: existing.fingerprint, response: existing.response }
          : { outcome: "in-progress", fingerprint: existing.fingerprint, leaseUntil: new Date(existing.leaseUntil) },
      );
    }
    this.#sweep(now);
    let entries = this.#scopes.get(claim.scope);
    if (entries === undefined || claim.scope !== this.#lastScope) {
      entries ??= new Map();
      this.#scopes.delete(claim.scope);
      this.#scopes.set(claim.scope, entries);
      this.#lastScope = claim.scope;
    }
    // A lost or released attempt's note goes on with its record for a retry of the same request; an expired record's
    // is forgotten with it, and another request (the key reused with another body) learns nothing of it.
    const previous =
      existing && existing.expiresAt > now && existing.fingerprint === claim.fingerprint ? existing.note : undefined;
    entries.delete(claim.key); // a stale record: claimed anew, it becomes the newest
    if (entries.size >= this.#perScope) forgetOldest(entries, now);
    const token = String(++this.#lastToken);
    entries.set(claim.key, {
      token,
      fingerprint: claim.fingerprint,
      leaseUntil: claim.leaseUntil.getTime(),
      expiresAt: claim.expiresAt.getTime(),
      response: undefined,
      note: previous,
    });
    return Promise.resolve({ outcome: "claimed", token, previous: previous && { ...previous } });
  }

  note(scope: string, key: string, token: string, note: AttemptNote): Promise<boolean> {
    const entry = this.#owned(scope, key, token);
    if (entry) entry.note = { ...note };
    return Promise.resolve(entry !== undefined);
  }

  complete(scope: string, key: string, token: string, response: RecordedResponse): Promise<boolean> {
    const entry = this.#owned(scope, key, token);
    if (entry) entry.response = frozen(response);
    return Promise.resolve(entry !== undefined);
  }

  release(scope: string, key: string, token: string): Promise<void> {
    const entry = this.#owned(scope, key, token);
    if (entry?.note)
      entry.leaseUntil = 0; // unlocked: the next claim takes it over, note and all
    else if (entry) {
      const entries = this.#scopes.get(scope)!;
      entries.delete(key);
      if (entries.size === 0) this.#scopes.delete(scope);
    }
    return Promise.resolve();
  }

  /** The record, while `token` owns it unfinished. */
  #owned(scope: string, key: string, token: string): Entry | undefined {
    const entry = this.#scopes.get(scope)?.get(key);
    return entry && entry.token === token && !entry.response ? entry : undefined;
  }

  /**
   * Forgets expired records, at most once a minute, stopping at the first one kept: a scope with a record kept was
   * claimed after every scope before it (its own later expired ones wait, within its cap, until it is at the front).
   */
  #sweep(now: number): void {
    if (now - this.#lastSweep < 60_000) return;
    this.#lastSweep = now;
    for (const [scope, entries] of this.#scopes) {
      if (!forgetExpired(entries, now)) return;
      this.#scopes.delete(scope);
    }
  }
}

/** Expired, or never completed and its lease ran out. */
const isStale = (entry: Entry, now: number): boolean =>
  entry.expiresAt <= now || (!entry.response && entry.leaseUntil <= now);

/** Forgets a scope's expired records, the first claimed first; true when none is left. */
const forgetExpired = (entries: Map<string, Entry>, now: number): boolean => {
  for (const [key, entry] of entries) {
    if (entry.expiresAt > now) return false;
    entries.delete(key);
  }
  return true;
};

/** The oldest record that is not in progress; none when every record is. */
const forgetOldest = (entries: Map<string, Entry>, now: number): void => {
  for (const [key, entry] of entries) {
    if (entry.response || isStale(entry, now)) {
      entries.delete(key);
      return;
    }
  }
};
