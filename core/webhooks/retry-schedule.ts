/** The first included. */
export const MAX_ATTEMPTS = 10;
export const DEFAULT_RETRY_BASE_MS = 5_000;
const FACTOR = 4;
/** The longest wait, in bases. */
const CAP_IN_BASES = 5_760;
/** So receivers that failed together are not retried together. */
const JITTER = 0.2;

/** After the `attempts`-th failure; `random` in [0, 1). */
export const retryDelayMs = (attempts: number, baseMs: number, random: number): number => {
  const bases = Math.min(FACTOR ** Math.max(0, attempts - 1), CAP_IN_BASES);
  return Math.round(bases * baseMs * (1 - JITTER + 2 * JITTER * random));
};
