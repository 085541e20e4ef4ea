export interface Secrets {
  /** At least 32 random bytes. */
  generate(): string;
  /** One-way: keys are stored and found by it. */
  hash(secret: string): string;
}
