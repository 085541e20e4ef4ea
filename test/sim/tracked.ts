import type { SimRule } from "./checks.ts";
import type { SimResult } from "./simulate.ts";

/**
 * Rules still broken by bugs the simulation found whose fixes are under way (docs/consistency.md#simulation). While
 * a rule is listed, its violations are counted and printed, not failed; every other rule fails the run. A rule goes
 * from this list with the fix that makes it hold.
 */
export const TRACKED: Partial<Record<SimRule, string>> = {
  "abandoned-outlives-pet": "abandoned tombstones outlive their pet",
  "event-duplicated": "a keyed retry reuses its noted order id once that order's cancelled tombstone is gone",
};

/**
 * An order id placed twice (that bug, above) breaks whatever follows in its schedule: a settle mark of the first order
 * keyed by the same id makes the second's cancellation keep its units. Such a schedule is counted as that bug's.
 */
export const orderIdReused = (result: SimResult): boolean =>
  result.violations.some((v) => v.rule === "event-duplicated" && /order\.placed \d+ is logged/.test(v.message));
