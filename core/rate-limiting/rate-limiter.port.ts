import type { WindowCounts, Windows } from "./windows.ts";

export type { WindowSpec } from "./windows.ts";

export interface Consumption {
  /** True when the request was counted in every window; false when any was full and none counted it. */
  admitted: boolean;
  /** Requests counted in each window, this one included when admitted. */
  counts: WindowCounts;
  /** When refused: how many refused requests the subject has sent in the window that refused it, this one included. */
  strikes: number;
}

/** Fixed-window counters. Exact under any concurrency: no window ever counts more than its limit. */
export interface RateLimiter {
  consume(subject: string, windows: Windows): Promise<Consumption>;
  /** The requests counted so far in these windows, counting nothing: 0 for a window never used. */
  usage(subject: string, windows: Windows): Promise<WindowCounts>;
}
