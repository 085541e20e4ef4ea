import type { ApiKey, Plan } from "../access/api-key.ts";
import { limitFields, type RateLimits } from "./windows.ts";

export const planLimits: Readonly<Record<Exclude<Plan, "enterprise">, RateLimits>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

const noLimits = Object.fromEntries(limitFields.map((field) => [field, 0])) as RateLimits;

export const limitsOf = (key: Pick<ApiKey, "plan" | "limits">): RateLimits =>
  key.plan === "enterprise" ? (key.limits ?? noLimits) : planLimits[key.plan];
