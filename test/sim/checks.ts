import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { Stores } from "../../core/stores.ts";
import { isWebhookEventType } from "../../core/webhooks/webhook-event.ts";
import { messageIdOf } from "../../core/webhooks/webhook-message.ts";
import { findStoreViolations, readStoreView, type Rule } from "../support/invariants.ts";
import type { Observations } from "./engine.ts";
import type { Ledger } from "./workload.ts";

/**
 * The rules a finished schedule must keep, read from the stored documents once recovery and the relay have run to
 * the end: the store checker's (test/support/invariants.ts: docs/consistency.md's invariants on the stored layout),
 * and what only the simulation knows: every event ever seen on a document, and every answer given.
 */
export type SimRule =
  | Rule
  | "pet-names-deleted-category" // invariant 3, on the stored pets (provisional ones were checked as unfinished)
  | "acknowledged-order-lost" // a 201 whose order is gone without a cancellation or its pet's deletion
  | "answered-undone-but-placed" // a 503 "undone, place it again" while the order stands
  | "event-missing" // invariant 7: an event recorded on a document, or a stock setting answered 200, not in the log
  | "applied-again"; // a copy of a pet or order write applied after the write had, or brought back a relayed event (docs/consistency.md#late-copies)

export interface SimViolation {
  rule: SimRule;
  message: string;
}

const everything = { limit: 10_000 };
/** The id of the one webhook subscription, to every event type, made before the first event. */
export const SUBSCRIBER = 1;
const range = (to: number): number[] => Array.from({ length: to }, (_, i) => i + 1);

export const checkWorld = async (
  stores: Stores,
  ledger: Ledger,
  observed: Observations,
  loggedEvents?: () => Promise<DomainEvent[]>,
): Promise<SimViolation[]> => {
  const read = await readStoreView(stores, {
    pets: range(observed.maxId.get("pets") ?? 0),
    orders: range(observed.maxId.get("orders") ?? 0),
  });
  const view = loggedEvents ? { ...read, logged: await loggedEvents() } : read;
  const violations: SimViolation[] = findStoreViolations(view, {
    stockGiven: observed.given,
    placed: ledger.placed.keys(),
    cancelled: ledger.cancelled,
    completed: ledger.completed,
  }).map(({ rule, message }) => ({ rule, message }));
  const fail = (rule: SimRule, message: string) => violations.push({ rule, message });

  const pets = new Map(view.pets.map((p) => [p.id, p]));
  const orders = new Map(view.orders.map((o) => [o.id, o]));
  const categories = new Set((await stores.categories.list(everything)).map((c) => c.id));
  for (const c of await stores.categories.deletingBefore(new Date("2100-01-01T00:00:00Z"), everything))
    fail("left-unfinished", `category ${c.id} is still being deleted`);
  for (const pet of view.pets)
    if (!categories.has(pet.categoryId))
      fail("pet-names-deleted-category", `pet ${pet.id} names category ${pet.categoryId}, which is gone`);

  for (const copy of observed.appliedAgain) fail("applied-again", copy);

  // What clients were told.
  for (const [id, placed] of ledger.placed) {
    const order = orders.get(id);
    const visible = order?.state === "open" || order?.state === "complete";
    if (visible && (order.petId !== placed.petId || order.quantity !== placed.quantity))
      fail("acknowledged-order-lost", `order ${id} answered to ${placed.actor} is another order now`);
    // Gone is right after a cancellation, or with its pet (a deletion finished by recovery counts too).
    if (!visible && !ledger.cancelTried.has(id) && pets.has(placed.petId))
      fail("acknowledged-order-lost", `order ${id} answered 201 to ${placed.actor} is ${order?.state ?? "gone"}`);
  }
  for (const attempt of ledger.undone)
    for (const id of observed.insertedBy.get(attempt) ?? []) {
      const order = orders.get(id);
      if ((order?.state === "open" || order?.state === "complete") && !ledger.placed.has(id))
        fail("answered-undone-but-placed", `an attempt answered 503 "undone" but its order ${id} is ${order.state}`);
    }
  for (const id of ledger.deletedPets)
    if (pets.has(id)) fail("deleted-still-listed", `pet ${id} was deleted (204) but is stored`);
  for (const id of ledger.deletedCategories)
    if (categories.has(id)) fail("deleted-still-listed", `category ${id} was deleted (204) but is listed`);

  // Every event a document ever held reaches the log, whatever became of the document.
  const logged = new Set(view.logged.map((e) => e.id));
  for (const event of observed.pendingSeen.values())
    if (!logged.has(event.id))
      fail("event-missing", `${event.type} ${JSON.stringify(event.data)} was recorded but never reached the event log`);
  for (const event of view.logged)
    if (isWebhookEventType(event.type) && !(await stores.webhookMessages.ofId(messageIdOf(event.id, SUBSCRIBER))))
      fail("event-missing", `${event.type} ${JSON.stringify(event.data)} is logged but its webhook message is not`);
  const quantitiesLogged = new Set(
    view.logged
      .filter((e) => e.type === "inventory.changed" && "quantity" in e.data)
      .map((e) => `${e.data.petId}:${(e.data as { quantity: number }).quantity}`),
  );
  for (const { petId, quantity } of ledger.stockSet)
    if (!quantitiesLogged.has(`${petId}:${quantity}`))
      fail(
        "event-missing",
        `pet ${petId}'s stock set to ${quantity} was answered 200, but no inventory.changed says so`,
      );
  return violations;
};
