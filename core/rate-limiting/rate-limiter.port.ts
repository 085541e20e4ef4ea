import type { WindowCounts, Windows } from "./windows.ts";

export type { WindowSpec } from "./windows.ts";

export interface Consumption {
  /** Counted in every window, or (one was full) in none. */
  admitted: boolean;
  counts: WindowCounts;
  /** When refused: the refused requests in the refusing window, this one included. */
  strikes: number;
}

/** No window counts past its limit: docs/decisions/fixed-window-limits.md. */
export interface RateLimiter {
  consume(subject: string, windows: Windows): Promise<Consumption>;
  /** Counts nothing. */
  usage(subject: string, windows: Windows): Promise<WindowCounts>;
}
