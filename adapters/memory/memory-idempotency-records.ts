import type {
  Claim,
  IdempotencyClaim,
  IdempotencyRecords,
  RecordedResponse,
} from "../../core/idempotency/idempotency-records.port.ts";

interface Entry {
  token: string;
  fingerprint: string;
  leaseUntil: Date;
  expiresAt: Date;
  response: RecordedResponse | undefined;
}

export class MemoryIdempotencyRecords implements IdempotencyRecords {
  readonly #entries = new Map<string, Entry>();
  #lastSweep = 0;
  #lastToken = 0;

  claim(claim: IdempotencyClaim): Promise<Claim> {
    const id = `${claim.scope}\u0000${claim.key}`;
    const existing = this.#entries.get(id);
    const stale = !existing || existing.expiresAt <= claim.now || (!existing.response && existing.leaseUntil <= claim.now);
    if (stale) {
      this.#sweep(claim.now);
      const token = String(++this.#lastToken);
      this.#entries.set(id, { token, fingerprint: claim.fingerprint, leaseUntil: claim.leaseUntil, expiresAt: claim.expiresAt, response: undefined });
      return Promise.resolve({ outcome: "claimed", token });
    }
    return Promise.resolve(
      existing.response
        ? { outcome: "completed", fingerprint: existing.fingerprint, response: structuredClone(existing.response) }
        : { outcome: "in-progress", fingerprint: existing.fingerprint, leaseUntil: new Date(existing.leaseUntil) },
    );
  }

  complete(scope: string, key: string, token: string, response: RecordedResponse): Promise<boolean> {
    const entry = this.#owned(scope, key, token);
    if (entry) entry.response = structuredClone(response);
    return Promise.resolve(entry !== undefined);
  }

  release(scope: string, key: string, token: string): Promise<void> {
    if (this.#owned(scope, key, token)) this.#entries.delete(`${scope}\u0000${key}`);
    return Promise.resolve();
  }

  /** The record, while `token` owns it unfinished. */
  #owned(scope: string, key: string, token: string): Entry | undefined {
    const entry = this.#entries.get(`${scope}\u0000${key}`);
    return entry && entry.token === token && !entry.response ? entry : undefined;
  }

  /** Forgets expired records, at most once a minute. */
  #sweep(now: Date): void {
    if (now.getTime() - this.#lastSweep < 60_000) return;
    this.#lastSweep = now.getTime();
    for (const [id, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(id);
  }
}
