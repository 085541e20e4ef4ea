/** Makes API key secrets and the one-way hashes they are stored and looked up by. */
export interface Secrets {
  /** A new random secret with at least 32 bytes of entropy. */
  generate(): string;
  hash(secret: string): string;
}
