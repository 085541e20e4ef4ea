import { rateWindows, sameLimits, windowNames, type RateLimits } from "../../core/rate-limiting/windows.ts";
import type { Quota } from "../../core/rate-limiting/admit-request.ts";

/** The policy of a key's limits, written once while the key is remembered (and again if its limits ever changed). */
const policies = new WeakMap<RateLimits, { limits: RateLimits; text: string }>();
const policyOf = (limits: RateLimits): string => {
  const known = policies.get(limits);
  if (known && sameLimits(known.limits, limits)) return known.text;
  const text = windowNames
    .map((name) => `"${name}";q=${limits[rateWindows[name].limitField]};w=${rateWindows[name].ms / 1000}`)
    .join(", ");
  policies.set(limits, { limits: { ...limits }, text });
  return text;
};

const unixSeconds = (date: Date): number => Math.ceil(date.getTime() / 1000);

/** The seed's X-RateLimit-* headers, plus the IETF draft RateLimit-Policy / RateLimit pair. */
export const setRateLimitHeaders = (headers: Record<string, string>, quota: Quota, now: Date): void => {
  const reset = unixSeconds(quota.resetsAt);
  headers["x-ratelimit-limit"] = String(quota.limit);
  headers["x-ratelimit-remaining"] = String(quota.remaining);
  headers["x-ratelimit-reset"] = String(reset);
  headers["ratelimit-policy"] = policyOf(quota.limits);
  const secondsLeft = Math.max(0, reset - Math.floor(now.getTime() / 1000));
  headers.ratelimit = `"${quota.window}";r=${quota.remaining};t=${secondsLeft}`;
};
