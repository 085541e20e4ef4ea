import type { ApiKey, Plan, RateLimits } from "../access/api-key.ts";

export const planLimits: Readonly<Record<Exclude<Plan, "enterprise">, RateLimits>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

export const limitsOf = (key: Pick<ApiKey, "plan" | "limits">): RateLimits =>
  key.plan === "enterprise" ? (key.limits ?? { perMinute: 0, perDay: 0 }) : planLimits[key.plan];
