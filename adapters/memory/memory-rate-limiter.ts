import type { Consumption, RateLimiter } from "../../core/rate-limiting/rate-limiter.port.ts";
import type { WindowCounts, Windows, WindowSpec } from "../../core/rate-limiting/windows.ts";

/**
 * One subject's counters within one day window: the day's count, and its current and previous minute windows (a
 * request that read the clock just before a minute boundary may arrive just after it). Eight small integers in one
 * flat object (no boxed numbers): with its Map entry and name, what a tracked address costs.
 * A minute is named by how many ms before the day's end it resets (it lies in that day), -1 for none: that fits a
 * small integer where a timestamp would not.
 */
interface DayCounters {
  count: number;
  /** Refused requests while the day window was the one refusing. */
  strikes: number;
  minute: number;
  minuteCount: number;
  minuteStrikes: number;
  previousMinute: number;
  previousMinuteCount: number;
  previousMinuteStrikes: number;
}

/** Every subject seen in one day window. */
interface DayGeneration {
  resetsAt: number;
  subjects: Map<string, DayCounters>;
}

const NONE = -1;

/** How long after its day ends the previous day's counters are kept, for requests that read the clock before it. */
const STRAGGLER_GRACE_MS = 120_000;

/**
 * Fixed-window counters. `consume` checks and counts in one synchronous step, so the count is exact under any
 * concurrency within the process. Memory is bounded by day: subjects are kept in one map per day window (the
 * current one, and the previous one for two minutes after it ends), so a client address unseen today is forgotten
 * two minutes into the new day, all at once, without a sweep.
 */
export class MemoryRateLimiter implements RateLimiter {
  #current: DayGeneration = { resetsAt: Number.NEGATIVE_INFINITY, subjects: new Map() };
  #previous: DayGeneration | undefined;

  async consume(subject: string, { minute, day }: Windows): Promise<Consumption> {
    const counters = this.#countersOf(subject, minute, day);
    const minuteName = day.resetsAt.getTime() - minute.resetsAt.getTime();
    if (counters.minute === NONE || minuteName < counters.minute) {
      counters.previousMinute = counters.minute;
      counters.previousMinuteCount = counters.minuteCount;
      counters.previousMinuteStrikes = counters.minuteStrikes;
      counters.minute = minuteName;
      counters.minuteCount = 0;
      counters.minuteStrikes = 0;
    }
    const current = minuteName === counters.minute;
    if (!current && minuteName !== counters.previousMinute) {
      // Older than both kept minutes: it ended long ago; it counts in the day only.
      return this.#consumeDayOnly(counters, minute, day);
    }
    const minuteCount = current ? counters.minuteCount : counters.previousMinuteCount;

    if (counters.count >= day.limit) {
      counters.strikes += 1;
      return { admitted: false, counts: { minute: minuteCount, day: counters.count }, strikes: counters.strikes };
    }
    if (minuteCount >= minute.limit) {
      const strikes = current ? ++counters.minuteStrikes : ++counters.previousMinuteStrikes;
      return { admitted: false, counts: { minute: minuteCount, day: counters.count }, strikes };
    }
    counters.count += 1;
    if (current) counters.minuteCount += 1;
    else counters.previousMinuteCount += 1;
    return { admitted: true, counts: { minute: minuteCount + 1, day: counters.count }, strikes: 0 };
  }

  async usage(subject: string, { minute, day }: Windows): Promise<WindowCounts> {
    const dayResetsAt = day.resetsAt.getTime();
    const generation =
      dayResetsAt === this.#current.resetsAt
        ? this.#current
        : dayResetsAt === this.#previous?.resetsAt
          ? this.#previous
          : undefined;
    const counters = generation?.subjects.get(subject);
    if (!counters) return { minute: 0, day: 0 };
    const minuteName = dayResetsAt - minute.resetsAt.getTime();
    const minuteCount =
      minuteName === counters.minute
        ? counters.minuteCount
        : minuteName === counters.previousMinute
          ? counters.previousMinuteCount
          : 0;
    return { minute: minuteCount, day: counters.count };
  }

  #consumeDayOnly(counters: DayCounters, minute: WindowSpec, day: WindowSpec): Consumption {
    if (counters.count >= day.limit || minute.limit < 1) {
      counters.strikes += 1;
      return { admitted: false, counts: { minute: 0, day: counters.count }, strikes: counters.strikes };
    }
    counters.count += 1;
    return { admitted: true, counts: { minute: 1, day: counters.count }, strikes: 0 };
  }

  /** The subject's counters in the request's day window, created at 0. */
  #countersOf(subject: string, minute: WindowSpec, day: WindowSpec): DayCounters {
    const dayResetsAt = day.resetsAt.getTime();
    if (dayResetsAt > this.#current.resetsAt) {
      this.#previous = this.#current.resetsAt === Number.NEGATIVE_INFINITY ? undefined : this.#current;
      this.#current = { resetsAt: dayResetsAt, subjects: new Map() };
    }
    if (this.#previous && minute.resetsAt.getTime() > this.#previous.resetsAt + STRAGGLER_GRACE_MS)
      this.#previous = undefined;
    const generation =
      dayResetsAt === this.#current.resetsAt
        ? this.#current
        : dayResetsAt === this.#previous?.resetsAt
          ? this.#previous
          : // A day that ended more than the grace ago: counted afresh, and not kept.
            { resetsAt: dayResetsAt, subjects: new Map<string, DayCounters>() };
    let counters = generation.subjects.get(subject);
    if (!counters) {
      counters = {
        count: 0,
        strikes: 0,
        minute: NONE,
        minuteCount: 0,
        minuteStrikes: 0,
        previousMinute: NONE,
        previousMinuteCount: 0,
        previousMinuteStrikes: 0,
      };
      generation.subjects.set(subject, counters);
    }
    return counters;
  }
}
