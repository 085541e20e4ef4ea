/** Attempts in all, the first included; with the default base they span about a day (23.6 h before jitter). */
export const MAX_ATTEMPTS = 10;
export const DEFAULT_RETRY_BASE_MS = 5_000;
const FACTOR = 4;
/** The longest wait, in bases (8 h at the default base of 5 s). */
const CAP_IN_BASES = 5_760;
/** Each wait is spread over ±20 %, so receivers that failed together are not retried together. */
const JITTER = 0.2;

/**
 * The wait after the `attempts`-th failure: exponential (×4) from `base`, capped, with jitter; `random` is in [0, 1).
 */
export const retryDelayMs = (attempts: number, baseMs: number, random: number): number => {
  const bases = Math.min(FACTOR ** Math.max(0, attempts - 1), CAP_IN_BASES);
  return Math.round(bases * baseMs * (1 - JITTER + 2 * JITTER * random));
};
