import type { EventLog, EventLogPage } from "./event-log.port.ts";

export class FollowEvents {
  readonly #log: EventLog;
  constructor(log: EventLog) {
    this.#log = log;
  }

  /** Where to read from: `resumeAfter`, else the log's current end. */
  async execute(resumeAfter: number | undefined): Promise<number> {
    return resumeAfter ?? (await this.#end());
  }

  read(after: number, limit: number): Promise<EventLogPage> {
    return this.#log.readAfter(after, limit);
  }

  // The port has no "last position": found by doubling, then bisecting.
  async #end(): Promise<number> {
    const anyAfter = async (position: number) => (await this.#log.readAfter(position, 1)).events.length > 0;
    if (!(await anyAfter(0))) return 0;
    let low = 0;
    let high = 1;
    while (await anyAfter(high)) {
      low = high;
      high *= 2;
    }
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (await anyAfter(middle)) low = middle;
      else high = middle;
    }
    return high;
  }
}
