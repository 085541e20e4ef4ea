import type { Consumption, RateLimiter, WindowSpec } from "../../core/rate-limiting/rate-limiter.port.ts";

interface Counter {
  resetsAt: number;
  count: number;
  /** Refused requests while this window was the one refusing. */
  strikes: number;
}

interface SubjectCounters {
  minutes: Map<string, Counter>;
  days: Map<string, Counter>;
}

/**
 * Fixed-window counters. `consume` checks and counts in one synchronous step, so the count is exact under
 * any concurrency within the process. Memory stays bounded: each subject keeps its current and previous
 * window of each kind (a request that read the clock just before a boundary may arrive just after it), and a
 * subject unseen since before the previous day is forgotten when a new day starts.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #subjects = new Map<string, SubjectCounters>();
  #newestDay = Number.NEGATIVE_INFINITY;

  async consume(subject: string, minute: WindowSpec, day: WindowSpec): Promise<Consumption> {
    this.#forgetIdleSubjects(day);
    const counters = this.#subjects.get(subject) ?? { minutes: new Map(), days: new Map() };
    this.#subjects.set(subject, counters);
    const minuteCounter = counterOf(counters.minutes, minute);
    const dayCounter = counterOf(counters.days, day);

    const refusing =
      dayCounter.count >= day.limit ? dayCounter : minuteCounter.count >= minute.limit ? minuteCounter : undefined;
    if (refusing) {
      refusing.strikes += 1;
      return { admitted: false, minuteCount: minuteCounter.count, dayCount: dayCounter.count, strikes: refusing.strikes };
    }
    minuteCounter.count += 1;
    dayCounter.count += 1;
    return { admitted: true, minuteCount: minuteCounter.count, dayCount: dayCounter.count, strikes: 0 };
  }

  #forgetIdleSubjects(day: WindowSpec): void {
    const resetsAt = day.resetsAt.getTime();
    if (resetsAt <= this.#newestDay) return;
    const previousDay = this.#newestDay;
    this.#newestDay = resetsAt;
    for (const [subject, counters] of this.#subjects) {
      if (Math.max(...[...counters.days.values()].map((c) => c.resetsAt)) < previousDay) this.#subjects.delete(subject);
    }
  }
}

/** The window's counter, created at 0; only the two newest windows of the kind are kept. */
const counterOf = (counters: Map<string, Counter>, window: WindowSpec): Counter => {
  let counter = counters.get(window.key);
  if (!counter) {
    counter = { resetsAt: window.resetsAt.getTime(), count: 0, strikes: 0 };
    counters.set(window.key, counter);
    if (counters.size > 2) {
      const oldest = [...counters].reduce((a, b) => (a[1].resetsAt <= b[1].resetsAt ? a : b));
      counters.delete(oldest[0]);
    }
  }
  return counter;
};
