import type { EventLog, EventLogBounds, EventLogPage } from "./event-log.port.ts";

/** Why a reader cannot resume exactly where it said: its position is past the end, dropped, or another log's. */
export type ResetReason = "ahead" | "expired" | "unknown_log";

export interface FollowStart {
  /** Where reading starts: the events after it follow. */
  from: number;
  /** Set when `from` is not the position asked for: the reader must be told before anything else. */
  reset?: ResetReason | undefined;
}

export class FollowEvents {
  readonly #log: EventLog;
  constructor(log: EventLog) {
    this.#log = log;
  }

  /**
   * Where to read from: after `resumeAfter` when the log still holds everything after it, else from a position the
   * reader is told of (`reset`); without it, the log's current end. `0` reads from the oldest event kept.
   */
  async execute(resumeAfter: number | undefined): Promise<FollowStart> {
    if (resumeAfter === undefined) return { from: await this.#end(await this.#log.bounds()) };
    if (resumeAfter === 0) return { from: 0 };
    const bounds = await this.#log.bounds();
    if (resumeAfter > bounds.end) return { from: await this.#end(bounds), reset: "ahead" };
    // Everything this log still holds: a reader from another log, or behind what was dropped, has missed events.
    if (resumeAfter < bounds.origin) return { from: bounds.oldest - 1, reset: "unknown_log" };
    if (resumeAfter < bounds.oldest - 1) return { from: bounds.oldest - 1, reset: "expired" };
    return { from: resumeAfter };
  }

  read(after: number, limit: number): Promise<EventLogPage> {
    return this.#log.readAfter(after, limit);
  }

  // The readable end (a log may hold positions handed out but not yet written): found by doubling, then bisecting,
  // from just before the oldest event kept.
  async #end({ oldest }: EventLogBounds): Promise<number> {
    const anyAfter = async (position: number) => (await this.#log.readAfter(position, 1)).events.length > 0;
    const base = Math.max(0, oldest - 1);
    if (!(await anyAfter(base))) return base;
    let low = base;
    let step = 1;
    while (await anyAfter(base + step)) {
      low = base + step;
      step *= 2;
    }
    let high = base + step;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (await anyAfter(middle)) low = middle;
      else high = middle;
    }
    return high;
  }
}
