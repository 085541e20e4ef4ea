import type {
  Claim,
  IdempotencyClaim,
  IdempotencyRecords,
  RecordedResponse,
} from "../../core/idempotency/idempotency-records.port.ts";

interface Entry {
  fingerprint: string;
  leaseUntil: Date;
  expiresAt: Date;
  response: RecordedResponse | undefined;
}

export class MemoryIdempotencyRecords implements IdempotencyRecords {
  readonly #entries = new Map<string, Entry>();
  #lastSweep = 0;

  claim(claim: IdempotencyClaim): Promise<Claim> {
    const id = `${claim.scope}\u0000${claim.key}`;
    const existing = this.#entries.get(id);
    const stale = !existing || existing.expiresAt <= claim.now || (!existing.response && existing.leaseUntil <= claim.now);
    if (stale) {
      this.#sweep(claim.now);
      this.#entries.set(id, { fingerprint: claim.fingerprint, leaseUntil: claim.leaseUntil, expiresAt: claim.expiresAt, response: undefined });
      return Promise.resolve({ outcome: "claimed" });
    }
    return Promise.resolve(
      existing.response
        ? { outcome: "completed", fingerprint: existing.fingerprint, response: structuredClone(existing.response) }
        : { outcome: "in-progress", fingerprint: existing.fingerprint },
    );
  }

  complete(scope: string, key: string, response: RecordedResponse): Promise<void> {
    const entry = this.#entries.get(`${scope}\u0000${key}`);
    if (entry) entry.response = structuredClone(response);
    return Promise.resolve();
  }

  release(scope: string, key: string): Promise<void> {
    this.#entries.delete(`${scope}\u0000${key}`);
    return Promise.resolve();
  }

  /** Forgets expired records, at most once a minute. */
  #sweep(now: Date): void {
    if (now.getTime() - this.#lastSweep < 60_000) return;
    this.#lastSweep = now.getTime();
    for (const [id, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(id);
  }
}
