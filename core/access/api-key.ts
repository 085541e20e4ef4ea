import type { RateLimits } from "../rate-limiting/windows.ts";
import type { Role } from "./permissions.ts";

export type { RateLimits } from "../rate-limiting/windows.ts";

export const plans = ["free", "pro", "business", "enterprise"] as const;
export type Plan = (typeof plans)[number];

export interface ApiKey {
  id: number;
  label: string;
  role: Role;
  plan: Plan;
  /** Enterprise plan only. */
  limits: RateLimits | undefined;
  secretHash: string;
  createdAt: Date;
  revokedAt: Date | undefined;
  bannedUntil: Date | undefined;
  /** Starts of the last 24 hours' bans: each doubles the next one's length. */
  recentBans: Date[];
}

export type ApiKeySettings = Pick<ApiKey, "label" | "role" | "plan" | "limits">;

export interface ApiKeyDraft {
  label: string;
  role: Role;
  plan: Plan;
  limits?: RateLimits | undefined;
}

export interface ApiKeyChanges {
  label?: string | undefined;
  role?: Role | undefined;
  plan?: Plan | undefined;
  limits?: RateLimits | undefined;
}
