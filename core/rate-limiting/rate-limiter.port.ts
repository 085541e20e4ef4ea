/** One fixed window of one subject: `key` names it (it changes when the window does). */
export interface WindowSpec {
  key: string;
  limit: number;
  resetsAt: Date;
}

export interface Consumption {
  /** True when the request was counted in both windows; false when either was full and neither counted it. */
  admitted: boolean;
  /** Requests counted in each window, this one included when admitted. */
  minuteCount: number;
  dayCount: number;
  /** When refused: how many refused requests the subject has sent in the window that refused it, this one included. */
  strikes: number;
}

/** Fixed-window counters. Exact under any concurrency: no window ever counts more than its limit. */
export interface RateLimiter {
  consume(subject: string, minute: WindowSpec, day: WindowSpec): Promise<Consumption>;
  /** The requests counted so far in these windows, counting nothing: 0 for a window never used. */
  usage(subject: string, minute: WindowSpec, day: WindowSpec): Promise<Usage>;
}

export interface Usage {
  minuteCount: number;
  dayCount: number;
}
