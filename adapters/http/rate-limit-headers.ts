import type { RateLimits } from "../../core/access/api-key.ts";
import type { Quota } from "../../core/rate-limiting/admit-request.ts";

/** The policy of a key's limits, written once while the key is remembered (and again if its limits ever changed). */
const policies = new WeakMap<RateLimits, { perMinute: number; perDay: number; text: string }>();
const policyOf = (limits: RateLimits): string => {
  const known = policies.get(limits);
  if (known && known.perMinute === limits.perMinute && known.perDay === limits.perDay) return known.text;
  const text = `"minute";q=${limits.perMinute};w=60, "day";q=${limits.perDay};w=86400`;
  policies.set(limits, { perMinute: limits.perMinute, perDay: limits.perDay, text });
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
  const window = quota.limit === quota.limits.perDay && quota.limit !== quota.limits.perMinute ? "day" : "minute";
  const secondsLeft = Math.max(0, reset - Math.floor(now.getTime() / 1000));
  headers.ratelimit = `"${window}";r=${quota.remaining};t=${secondsLeft}`;
};
