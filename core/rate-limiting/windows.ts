import type { RateLimits } from "../access/api-key.ts";
import type { WindowSpec } from "./rate-limiter.port.ts";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The current UTC minute and UTC day. Windows are aligned to the clock, not to a subject's first request. */
export const windowsAt = (now: Date, limits: RateLimits): { minute: WindowSpec; day: WindowSpec } => {
  const minuteStart = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
  const dayStart = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return {
    minute: { key: `m${minuteStart / MINUTE_MS}`, limit: limits.perMinute, resetsAt: new Date(minuteStart + MINUTE_MS) },
    day: { key: `d${dayStart / DAY_MS}`, limit: limits.perDay, resetsAt: new Date(dayStart + DAY_MS) },
  };
};

/** Whole seconds from `now` until `then`, at least 1: what Retry-After says. */
export const secondsUntil = (now: Date, then: Date): number =>
  Math.max(1, Math.ceil((then.getTime() - now.getTime()) / 1000));
