import type { EventLog, EventLogBounds, EventLogPage } from "./event-log.port.ts";

/** Why a reader cannot resume where it said. */
export type ResetReason = "ahead" | "expired" | "unknown_log";

export interface FollowStart {
  from: number;
  /** The reader must be told before anything else. */
  reset?: ResetReason | undefined;
}

export class FollowEvents {
  readonly #log: EventLog;
  constructor(log: EventLog) {
    this.#log = log;
  }

  /** Without `resumeAfter`, the log's end; `0`, the oldest event kept; a position the log cannot resume is `reset`. */
  async execute(resumeAfter: number | undefined): Promise<FollowStart> {
    if (resumeAfter === undefined) return { from: await this.#end(await this.#log.bounds()) };
    if (resumeAfter === 0) return { from: 0 };
    const bounds = await this.#log.bounds();
    if (resumeAfter > bounds.end) return { from: await this.#end(bounds), reset: "ahead" };
    // Either reader has missed events: it gets everything this log still holds.
    if (resumeAfter < bounds.origin) return { from: bounds.oldest - 1, reset: "unknown_log" };
    if (resumeAfter < bounds.oldest - 1) return { from: bounds.oldest - 1, reset: "expired" };
    return { from: resumeAfter };
  }

  read(after: number, limit: number): Promise<EventLogPage> {
    return this.#log.readAfter(after, limit);
  }

  // Positions may be handed out but not yet written: search for the readable end.
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
