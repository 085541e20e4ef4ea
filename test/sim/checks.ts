import type { DomainEvent, OrderData } from "../../core/events/domain-event.ts";
import type { OrderRecord } from "../../core/orders/order-record.ts";
import type { PetRecord } from "../../core/pets/pet-record.ts";
import type { Stores } from "../../core/stores.ts";
import type { Observations } from "./engine.ts";
import type { Ledger } from "./workload.ts";

/**
 * The rules a finished schedule must keep, read from the stored documents once recovery and the relay have run to
 * the end: docs/consistency.md's invariants (numbered there), PRODUCT.md §4's statuses, nothing left half done, and
 * every acknowledged change in the event log exactly once.
 */
export type SimRule =
  | "stock-conserved" // invariant 1: stock given = stock + units of existing orders
  | "units-held" // invariant 1: holdCount and heldUnits are those of the open orders
  | "order-names-missing-pet" // invariant 2
  | "abandoned-outlives-pet" // an abandoned tombstone whose pet is gone
  | "pet-names-missing-category" // invariant 3
  | "status-agrees" // invariant 4, PRODUCT.md §4
  | "pending-without-cause" // invariant 8: a pet pending for want of stock with no order to settle it
  | "stock-limit" // invariant 5
  | "left-unfinished" // invariant 8: marks, settling orders, provisional pets, category deletions, tombstones
  | "acknowledged-order-lost" // a 201 whose order is gone without a cancellation or its pet's deletion
  | "answered-undone-but-placed" // a 503 "undone, place it again" while the order stands
  | "deleted-still-there" // a 204 DELETE whose pet or category is still there
  | "event-lost" // invariant 7: an event recorded on a document never reached the event log
  | "event-duplicated" // invariants 6 and 7: the same change twice in the log (an order id used twice)
  | "event-missing"; // invariant 7: an acknowledged change without its event

export interface SimViolation {
  rule: SimRule;
  message: string;
}

const everything = { limit: 10_000 };

const readLog = async (stores: Stores): Promise<DomainEvent[]> => {
  const events: DomainEvent[] = [];
  let position = 0;
  for (let i = 0; i < 1000; i++) {
    const page = await stores.eventLog.readAfter(position, 500);
    events.push(...page.events);
    if (page.events.length === 0 || page.last === position) break;
    position = page.last;
  }
  return events;
};

export const checkWorld = async (
  stores: Stores,
  ledger: Ledger,
  observed: Observations,
  loggedEvents: () => Promise<DomainEvent[]> = () => readLog(stores),
): Promise<SimViolation[]> => {
  const violations: SimViolation[] = [];
  const fail = (rule: SimRule, message: string) => violations.push({ rule, message });

  const pets = new Map<number, PetRecord>();
  for (let id = 1; id <= (observed.maxId.get("pets") ?? 0); id++) {
    const pet = await stores.pets.ofId(id);
    if (pet) pets.set(id, pet);
  }
  const orders = new Map<number, OrderRecord>();
  for (let id = 1; id <= (observed.maxId.get("orders") ?? 0); id++) {
    const order = await stores.orders.ofId(id);
    if (order) orders.set(id, order);
  }
  const categories = new Set((await stores.categories.list(everything)).map((c) => c.id));

  // Half-done work that recovery should have finished.
  for (const c of await stores.categories.deletingBefore(new Date("2100-01-01T00:00:00Z"), everything))
    fail("left-unfinished", `category ${c.id} is still being deleted`);

  const ordersOf = new Map<number, OrderRecord[]>();
  for (const order of orders.values()) {
    ordersOf.set(order.petId, [...(ordersOf.get(order.petId) ?? []), order]);
    const pet = pets.get(order.petId);
    if (order.settling) fail("left-unfinished", `order ${order.id} (${order.state}) is still settling`);
    if (order.state === "cancelled") fail("left-unfinished", `cancelled order ${order.id} is still stored`);
    if (order.state === "abandoned") {
      if (!pet) fail("abandoned-outlives-pet", `abandoned order ${order.id} names pet ${order.petId}, which is gone`);
    } else if (!pet || pet.lifecycle === "deleting")
      fail("order-names-missing-pet", `${order.state} order ${order.id} names pet ${order.petId}, which is gone`);
  }

  for (const pet of pets.values()) {
    const where = `pet ${pet.id} (${pet.status}${pet.pendingCause ? `/${pet.pendingCause}` : ""}, stock ${pet.stock})`;
    if (pet.lifecycle !== undefined || pet.movingTo !== undefined)
      fail("left-unfinished", `${where} is still ${pet.lifecycle ?? `moving to ${pet.movingTo}`}`);
    if (pet.marks.length > 0)
      fail("left-unfinished", `${where} keeps marks ${pet.marks.map((m) => `${m.kind}:${m.orderId}`).join(",")}`);
    if (!categories.has(pet.categoryId))
      fail("pet-names-missing-category", `${where} names category ${pet.categoryId}, which is gone`);
    const mine = ordersOf.get(pet.id) ?? [];
    const open = mine.filter((o) => o.state === "open");
    const existing = mine.filter((o) => o.state === "open" || o.state === "complete");
    const openUnits = open.reduce((sum, o) => sum + o.quantity, 0);
    if (pet.holdCount !== open.length || pet.heldUnits !== openUnits)
      fail(
        "units-held",
        `${where} counts ${pet.holdCount} orders holding ${pet.heldUnits} units; its open orders are ${open.length} holding ${openUnits}`,
      );
    const given = observed.given.get(pet.id) ?? 0;
    const accounted = pet.stock + existing.reduce((sum, o) => sum + o.quantity, 0);
    if (accounted !== given)
      fail(
        "stock-conserved",
        `${where} was given ${given} units; stock ${pet.stock} + ${existing.length} orders' units = ${accounted} (${given - accounted} lost)`,
      );
    if (pet.stock + pet.heldUnits > 1_000_000) fail("stock-limit", `${where} holds more than 1,000,000 units`);
    if (pet.stock < 0) fail("stock-conserved", `${where} has negative stock`);
    if (pet.status === "sold" && (pet.stock !== 0 || open.length > 0))
      fail("status-agrees", `${where} is sold with ${open.length} open orders`);
    if ((pet.status === "pending") !== (pet.pendingCause !== undefined))
      fail("status-agrees", `${where} has a pending cause exactly while pending`);
    if (pet.pendingCause === "sold-out" && (pet.stock !== 0 || open.length === 0))
      fail("pending-without-cause", `${where} is pending for want of stock with ${open.length} open orders`);
  }

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
    if (pets.has(id) && pets.get(id)!.lifecycle === undefined)
      fail("deleted-still-there", `pet ${id} was deleted (204)`);
  for (const id of ledger.deletedCategories)
    if (categories.has(id)) fail("deleted-still-there", `category ${id} was deleted (204)`);

  // Events: the log after the last relay.
  const log = await loggedEvents();
  const pendingLeft = await stores.outbox.pending(1000);
  if (pendingLeft.length > 0) fail("event-lost", `${pendingLeft.length} events are still pending after the last relay`);
  const logged = new Set<string>();
  const perOrder = new Map<string, number>();
  for (const event of log) {
    if (logged.has(event.id)) fail("event-duplicated", `event ${event.id} (${event.type}) is logged twice`);
    logged.add(event.id);
    if (event.type.startsWith("order.")) {
      const key = `${event.type} ${(event.data as OrderData).id}`;
      perOrder.set(key, (perOrder.get(key) ?? 0) + 1);
    }
  }
  for (const [key, count] of perOrder) if (count > 1) fail("event-duplicated", `${key}: ${count} events`);
  for (const event of observed.pendingSeen.values())
    if (!logged.has(event.id))
      fail("event-lost", `${event.type} ${JSON.stringify(event.data)} was recorded but never reached the event log`);
  const expectOne = (type: string, id: number, why: string) => {
    if (!perOrder.has(`${type} ${id}`)) fail("event-missing", `${why}, but the log has no ${type} for order ${id}`);
  };
  for (const id of ledger.placed.keys()) expectOne("order.placed", id, `order ${id} was answered 201`);
  for (const id of ledger.cancelled) expectOne("order.cancelled", id, `order ${id}'s cancellation was answered 204`);
  for (const id of ledger.completed) expectOne("order.completed", id, `order ${id}'s completion was answered 200`);
  for (const order of orders.values()) {
    if (order.state === "open" || order.state === "complete")
      expectOne("order.placed", order.id, `order ${order.id} exists`);
    if (order.state === "complete") expectOne("order.completed", order.id, `order ${order.id} is complete`);
  }
  const quantitiesLogged = new Set(
    log
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
