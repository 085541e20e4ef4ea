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
  /** Only for the enterprise plan: its individually agreed quota. */
  limits: RateLimits | undefined;
  /** SHA-256 of the secret; the secret itself is never stored. */
  secretHash: string;
  createdAt: Date;
  revokedAt: Date | undefined;
  bannedUntil: Date | undefined;
  /** When each ban of the last 24 hours started: every further ban within 24 hours lasts twice as long. */
  recentBans: Date[];
}

/** What an administrator may change on a key. */
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
