import { defaultBanPolicy } from "../../core/rate-limiting/ban-policy.ts";
import { planLimits } from "../../core/rate-limiting/plans.ts";

/** The free plan, which also limits every caller without a valid key (per address). */
export const free = planLimits.free;

/** The ban policy a petstore gets unless configured otherwise. */
export const ban = defaultBanPolicy;

/** Requests a fresh free key can send in one minute before its ban: the window, then the strikes. */
export const untilBanned = free.perMinute + ban.strikes;
