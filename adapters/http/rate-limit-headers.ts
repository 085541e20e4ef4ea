import type { Quota } from "../../core/rate-limiting/admit-request.ts";

const unixSeconds = (date: Date): number => Math.ceil(date.getTime() / 1000);

/** The seed's X-RateLimit-* headers, plus the IETF draft RateLimit-Policy / RateLimit pair. */
export const setRateLimitHeaders = (headers: Record<string, string>, quota: Quota, now: Date): void => {
  const reset = unixSeconds(quota.resetsAt);
  headers["x-ratelimit-limit"] = String(quota.limit);
  headers["x-ratelimit-remaining"] = String(quota.remaining);
  headers["x-ratelimit-reset"] = String(reset);
  headers["ratelimit-policy"] = `"minute";q=${quota.limits.perMinute};w=60, "day";q=${quota.limits.perDay};w=86400`;
  const window = quota.limit === quota.limits.perDay && quota.limit !== quota.limits.perMinute ? "day" : "minute";
  const secondsLeft = Math.max(0, reset - Math.floor(now.getTime() / 1000));
  headers.ratelimit = `"${window}";r=${quota.remaining};t=${secondsLeft}`;
};
