/**
 * The clock-aligned UTC windows every subject is limited in, shortest first, with the limits field that bounds each.
 */
export const rateWindows = {
  minute: { ms: 60_000, limitField: "perMinute", maxLimit: 1_000_000, keyPrefix: "m" },
  day: { ms: 86_400_000, limitField: "perDay", maxLimit: 1_000_000_000, keyPrefix: "d" },
} as const;

export type WindowName = keyof typeof rateWindows;
export const windowNames = Object.keys(rateWindows) as WindowName[];

/** Requests allowed in each window: `perMinute`, `perDay`, … */
export type RateLimits = { [N in WindowName as (typeof rateWindows)[N]["limitField"]]: number };
export type LimitField = keyof RateLimits;
export const limitFields = windowNames.map((name) => rateWindows[name].limitField) as LimitField[];

/** One fixed window of one subject: `key` names it (it changes when the window does). */
export interface WindowSpec {
  key: string;
  limit: number;
  resetsAt: Date;
}

/** The current window of each kind, by name. */
export type Windows = Record<WindowName, WindowSpec>;
/** A count per window, by name. */
export type WindowCounts = Record<WindowName, number>;

/** Windows are aligned to the clock, not to a subject's first request. */
export const windowsAt = (now: Date, limits: RateLimits): Windows =>
  Object.fromEntries(
    windowNames.map((name) => {
      const { ms, limitField, keyPrefix } = rateWindows[name];
      const start = Math.floor(now.getTime() / ms) * ms;
      return [name, { key: `${keyPrefix}${start / ms}`, limit: limits[limitField], resetsAt: new Date(start + ms) }];
    }),
  ) as Windows;

export const sameLimits = (a: RateLimits | undefined, b: RateLimits | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && limitFields.every((field) => a[field] === b[field]));

/** Whole seconds from `now` until `then`, at least 1: what Retry-After says. */
export const secondsUntil = (now: Date, then: Date): number =>
  Math.max(1, Math.ceil((then.getTime() - now.getTime()) / 1000));
