import { DomainError } from "../shared/domain-error.ts";
import type { PetStatus } from "./pet.ts";

/** PRODUCT.md §4, "Orders, stock and pet status". */
export type StatusTrigger =
  | "last-unit-ordered"
  | "staff-hold"
  | "order-cancelled-restocking"
  | "staff-release"
  | "last-open-order-completed"
  | "restock";

export const petStatusTransitions: ReadonlyArray<{
  from: PetStatus;
  to: PetStatus;
  triggers: readonly StatusTrigger[];
}> = [
  { from: "available", to: "pending", triggers: ["last-unit-ordered", "staff-hold"] },
  { from: "pending", to: "available", triggers: ["order-cancelled-restocking", "staff-release"] },
  { from: "pending", to: "sold", triggers: ["last-open-order-completed"] },
  { from: "sold", to: "available", triggers: ["restock"] },
];

export const staffTriggers: readonly StatusTrigger[] = ["staff-hold", "staff-release"];

export const canTransition = (from: PetStatus, to: PetStatus, trigger: StatusTrigger): boolean =>
  petStatusTransitions.some((t) => t.from === from && t.to === to && t.triggers.includes(trigger));

export const assertStaffMayChangeStatus = (from: PetStatus, to: PetStatus): void => {
  if (from === to) return;
  if (staffTriggers.some((trigger) => canTransition(from, to, trigger))) return;
  throw new DomainError("invalid_transition", `A pet cannot move from ${from} to ${to} by an edit`);
};
