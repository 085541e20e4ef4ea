import { DomainError } from "../shared/domain-error.ts";
import type { PetStatus } from "./pet.ts";

/** What moves a pet from one status to another (PRODUCT.md §4, "Orders, stock and pet status"). */
export type StatusTrigger =
  | "last-unit-ordered" // an order takes the last unit (stock reaches 0)
  | "staff-hold" // staff puts the pet on hold (PUT)
  | "order-cancelled-restocking" // an open order is cancelled and stock is above 0 again
  | "staff-release" // staff releases a hold (PUT)
  | "last-open-order-completed" // the last open order is completed while stock is 0
  | "restock"; // inventory is set above 0

/** The only status changes there are. Anything else is 409 invalid_transition. */
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

/** A staff edit may keep the status or move it along a staff-triggered row of the table. */
export const assertStaffMayChangeStatus = (from: PetStatus, to: PetStatus): void => {
  if (from === to) return;
  if (staffTriggers.some((trigger) => canTransition(from, to, trigger))) return;
  throw new DomainError("invalid_transition", `A pet cannot move from ${from} to ${to} by an edit`);
};
