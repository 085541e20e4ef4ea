import { hash, randomBytes } from "node:crypto";
import type { Secrets } from "../../core/access/secrets.port.ts";

const sha256Hex = (secret: string): string => hash("sha256", secret, "hex");

/** How long a presented secret's hash is remembered after its last use, at most (two generations of this). */
export const HASH_MEMO_MS = 1_000;
/** Secrets remembered per generation at most: a flood of made-up keys is hashed, not remembered. */
const MEMO_ENTRIES = 1_000;

/**
 * Secrets are 32 random bytes, so a plain SHA-256 is enough to store them: nothing to brute-force, and a
 * look-up by hash compares no secret byte by byte (no timing to measure).
 *
 * A busy key is hashed about once a second, not on every request (SHA-256 is a sizeable part of a keyed read's CPU:
 * docs/performance.md): the hashes of the secrets presented in the current and the previous second are remembered,
 * in memory only. A secret stays in this process's memory at most two seconds after it was last presented, as a
 * request's own header string may until it is collected; nothing is written anywhere.
 * The memo is a Map keyed by the secret: it compares a secret's characters only on a clash of V8's seeded 32-bit
 * string hashes, so a caller cannot time its way towards one.
 */
export class NodeSecrets implements Secrets {
  readonly #now: () => number;
  readonly #digest: (secret: string) => string;
  #current = new Map<string, string>();
  #previous = new Map<string, string>();
  #turnsAt = Number.NEGATIVE_INFINITY;

  constructor(now: () => number = Date.now, digest: (secret: string) => string = sha256Hex) {
    this.#now = now;
    this.#digest = digest;
  }

  generate(): string {
    return `pk_${randomBytes(32).toString("base64url")}`;
  }

  hash(secret: string): string {
    const now = this.#now();
    if (now >= this.#turnsAt) {
      // Forgotten all at once: what was not presented for a whole generation goes.
      this.#previous = now - this.#turnsAt < HASH_MEMO_MS ? this.#current : new Map();
      this.#current = new Map();
      this.#turnsAt = now + HASH_MEMO_MS;
    }
    let digest = this.#current.get(secret);
    if (digest !== undefined) return digest;
    digest = this.#previous.get(secret) ?? this.#digest(secret);
    if (this.#current.size < MEMO_ENTRIES) this.#current.set(secret, digest);
    return digest;
  }
}
