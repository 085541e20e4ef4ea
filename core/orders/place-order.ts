import type { Actor } from "../access/permissions.ts";
import { notedId, type IdempotentAttempt } from "../idempotency/run-idempotently.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import { foreseeReserve, release, reserveSeeing, type ReserveOutcome } from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { NewOrder, Order } from "./order.ts";
import { orderOf, type OrderRecord } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";
import { StockHints } from "./stock-hints.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  ids: IdAllocator;
  clock: Clock;
}

const refusal = (outcome: Exclude<ReserveOutcome, "reserved" | "already-held">, order: NewOrder): DomainError =>
  ({
    "unknown-pet": new DomainError("unknown_pet", `Pet ${order.petId} does not exist`),
    "not-available": new DomainError("pet_not_available", `Pet ${order.petId} is not available`),
    "insufficient-stock": new DomainError("insufficient_stock", `Pet ${order.petId} has fewer than ${order.quantity} units in stock`),
  })[outcome];

/**
 * place order: 0 read the pet — skipped when this instance last saw it orderable with at least the units in stock
 *                (StockHints): one that plainly cannot be ordered is refused, nothing written
 *              1 allocate the id                              crash → nothing written (the id is skipped)
 *              2 reserve on the pet, keyed by the order id     crash → a hold without its order: recovery (after the
 *                (stock, hold, status in one write: decisive)  grace period) writes an `abandoned` order under the id
 *                                                              and releases the hold
 *              3 insert the order, open, + order.placed        crash after → done
 * A refused reservation writes nothing; its refusal is explained by the pet the failed write returns, the same rule
 * as step 0's. If recovery abandoned the id first (the request outlived the grace period), the insert finds the id
 * taken: the placer gives its hold back (idempotently) and answers service_unavailable.
 *
 * Under an Idempotency-Key (`attempt`), the id is written down in the key's record after step 1 (before any write
 * under it), and an attempt that took over a lost one's record reuses the lost one's id instead of allocating one:
 *   the order exists (the lost attempt died after step 3)  → it is the answer, nothing written
 *   a hold without the order (died after step 2)           → step 2 finds it held, step 3 writes the order
 *   nothing under the id (died before step 2)               → steps 2 and 3 as for a new order
 *   recovery abandoned the id (its hold undone)             → a new id, as for a new order
 * Two attempts racing under one id (a lost one that was only slow): one insert wins, the other finds that order and
 * answers it; units it took anew (the order was no longer open, its hold settled) go back. If recovery abandons the
 * id between the look and step 3, the insert finds the tombstone: released, service_unavailable, as without a key.
 * So a key places at most one order, whichever step a crash cut.
 */
export class PlaceOrder {
  readonly #ports: Ports;
  readonly #hints: StockHints;
  constructor(ports: Ports, hints = new StockHints()) {
    this.#ports = ports;
    this.#hints = hints;
  }

  async execute(input: NewOrder, actor: Actor, attempt?: IdempotentAttempt): Promise<Order> {
    const { orders, pets, ids, clock } = this.#ports;
    const noted = notedId(attempt, "orderId");
    const found = noted === undefined ? undefined : await orders.ofId(noted);
    if (found && this.#isPlacedAs(found, input, actor)) return orderOf(found);
    // Nothing written under the noted id yet, or a hold only: go on under it. Abandoned (or, impossibly, another's): a new id.
    const earlier = found === undefined ? noted : undefined;
    let expectedStock = this.#hints.stockOf(input.petId);
    // An earlier attempt's id may hold units already: the reservation tells (already-held), a look at the pet cannot.
    if (earlier === undefined && (expectedStock === undefined || expectedStock < input.quantity)) {
      // Refuses early without writing (a rush on the last units then costs the hot pet document no writes); the
      // reservation still decides. The order has no id yet, so no hold can be its: the holds are not looked at.
      const seen = await pets.ofId(input.petId);
      this.#hints.saw(input.petId, seen);
      const foreseen = foreseeReserve(seen, input.quantity);
      if (foreseen) throw refusal(foreseen, input);
      expectedStock = seen?.stock;
    }
    const id = earlier ?? (await ids.next("orders"));
    await attempt?.note({ orderId: id });
    const { outcome, pet } = await reserveSeeing(pets, clock, input.petId, id, input.quantity, expectedStock);
    this.#hints.saw(input.petId, pet);
    if (outcome !== "reserved" && outcome !== "already-held") throw refusal(outcome, input);
    const at = clock.now();
    const order: OrderRecord = {
      id,
      petId: input.petId,
      quantity: input.quantity,
      shipDate: input.shipDate,
      placedBy: actor.keyId,
      state: "open",
      revision: 1,
      createdAt: at,
    };
    if (!(await orders.insert(order, [stampEvent(at, "order.placed", orderData(order, false))]))) {
      const placed = attempt ? await orders.ofId(id) : undefined;
      if (placed && this.#isPlacedAs(placed, input, actor)) {
        // Another attempt under the same key placed it. An open order owns the hold; units this attempt took anew
        // because the order had settled its hold already (completed, cancelled) go back.
        if (outcome === "reserved" && placed.state !== "open") await release(pets, clock, order.petId, id, order.quantity);
        return orderOf(placed);
      }
      await release(pets, clock, order.petId, id, order.quantity);
      throw new DomainError("service_unavailable", "The order took too long to place and was undone; place it again", 1);
    }
    return orderOf(order);
  }

  /** Whether `order` is what an attempt of this same request placed (under the same Idempotency-Key). */
  #isPlacedAs(order: OrderRecord, input: NewOrder, actor: Actor): boolean {
    return order.state !== "abandoned" && order.placedBy === actor.keyId && order.petId === input.petId && order.quantity === input.quantity;
  }
}
