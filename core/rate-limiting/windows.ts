/** Clock-aligned UTC windows, shortest first: ties and Retry-After rely on the order. */
export const rateWindows = {
  minute: { ms: 60_000, limitField: "perMinute", maxLimit: 1_000_000, keyPrefix: "m" },
  day: { ms: 86_400_000, limitField: "perDay", maxLimit: 1_000_000_000, keyPrefix: "d" },
} as const;

export type WindowName = keyof typeof rateWindows;
export const windowNames = Object.keys(rateWindows) as WindowName[];

export type RateLimits = { [N in WindowName as (typeof rateWindows)[N]["limitField"]]: number };
export type LimitField = keyof RateLimits;
export const limitFields = windowNames.map((name) => rateWindows[name].limitField) as LimitField[];

/** `key` names one window of one subject: it changes when the window does. */
export interface WindowSpec {
  key: string;
  limit: number;
  resetsAt: Date;
}

export type Windows = Record<WindowName, WindowSpec>;
export type WindowCounts = Record<WindowName, number>;

/** Made once per window, not per request. */
const lastKeys = windowNames.map(() => ({ start: Number.NaN, key: "" }));

export const windowsAt = (now: Date, limits: RateLimits): Windows => {
  const windows = {} as Windows;
  for (let i = 0; i < windowNames.length; i++) {
    const name = windowNames[i]!;
    const { ms, limitField, keyPrefix } = rateWindows[name];
    const start = Math.floor(now.getTime() / ms) * ms;
    const last = lastKeys[i]!;
    if (last.start !== start) {
      last.start = start;
      last.key = `${keyPrefix}${start / ms}`;
    }
    windows[name] = { key: last.key, limit: limits[limitField], resetsAt: new Date(start + ms) };
  }
  return windows;
};

export const sameLimits = (a: RateLimits | undefined, b: RateLimits | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && limitFields.every((field) => a[field] === b[field]));

/** At least 1: what Retry-After says. */
export const secondsUntil = (now: Date, then: Date): number =>
  Math.max(1, Math.ceil((then.getTime() - now.getTime()) / 1000));
