import type { Quota } from "../../core/rate-limiting/admit-request.ts";

const unixSeconds = (date: Date): number => Math.ceil(date.getTime() / 1000);

/** The seed's X-RateLimit-* headers, plus the IETF draft RateLimit-Policy / RateLimit pair. */
export const setRateLimitHeaders = (headers: Headers, quota: Quota, now: Date): void => {
  headers.set("x-ratelimit-limit", String(quota.limit));
  headers.set("x-ratelimit-remaining", String(quota.remaining));
  headers.set("x-ratelimit-reset", String(unixSeconds(quota.resetsAt)));
  headers.set("ratelimit-policy", `"minute";q=${quota.limits.perMinute};w=60, "day";q=${quota.limits.perDay};w=86400`);
  const window = quota.limit === quota.limits.perDay && quota.limit !== quota.limits.perMinute ? "day" : "minute";
  const secondsLeft = Math.max(0, unixSeconds(quota.resetsAt) - Math.floor(now.getTime() / 1000));
  headers.set("ratelimit", `"${window}";r=${quota.remaining};t=${secondsLeft}`);
};
