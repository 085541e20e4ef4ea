import type { EventLog, EventLogPage } from "./event-log.port.ts";

/** A live reader of the event log: resumes after its last event, or starts at the log's current end. */
export class FollowEvents {
  readonly #log: EventLog;
  constructor(log: EventLog) {
    this.#log = log;
  }

  /** The position to read after: `resumeAfter` when given, else the end of the log as it is now. */
  async execute(resumeAfter: number | undefined): Promise<number> {
    return resumeAfter ?? (await this.#end());
  }

  read(after: number, limit: number): Promise<EventLogPage> {
    return this.#log.readAfter(after, limit);
  }

  /** The log's end, found by doubling then halving single-event reads (the port has no "last position"). */
  async #end(): Promise<number> {
    const anyAfter = async (position: number) => (await this.#log.readAfter(position, 1)).events.length > 0;
    if (!(await anyAfter(0))) return 0;
    let low = 0;
    let high = 1;
    while (await anyAfter(high)) {
      low = high;
      high *= 2;
    }
    // anyAfter(low) holds (or low is 0, checked above) and anyAfter(high) does not.
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (await anyAfter(middle)) low = middle;
      else high = middle;
    }
    return high;
  }
}
