import type { Actor } from "../access/permissions.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import { foreseeReserve, release, reserve, type ReserveOutcome } from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { NewOrder, Order } from "./order.ts";
import { orderOf, type OrderRecord } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";

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
 * place order: 0 read the pet: one that plainly cannot be ordered is refused, nothing written
 *              1 allocate the id                              crash → nothing written (the id is skipped)
 *              2 reserve on the pet, keyed by the order id     crash → a hold without its order: recovery (after the
 *                (stock, hold, status in one write: decisive)  grace period) writes an `abandoned` order under the id
 *                                                              and releases the hold
 *              3 insert the order, open, + order.placed        crash after → done
 * A refused reservation writes nothing. If recovery abandoned the id first (the request outlived the grace period),
 * the insert finds the id taken: the placer gives its hold back (idempotently) and answers service_unavailable.
 */
export class PlaceOrder {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(input: NewOrder, actor: Actor): Promise<Order> {
    const { orders, pets, ids, clock } = this.#ports;
    // Refuses early without writing (a rush on the last units then costs the hot pet document no writes); the
    // reservation still decides. The order has no id yet, so no hold can be its: the holds are not looked at.
    const seen = await pets.ofId(input.petId);
    const foreseen = foreseeReserve(seen, input.quantity);
    if (foreseen) throw refusal(foreseen, input);
    const id = await ids.next("orders");
    const outcome = await reserve(pets, clock, input.petId, id, input.quantity, seen);
    if (outcome !== "reserved" && outcome !== "already-held") throw refusal(outcome, input);
    const order: OrderRecord = {
      id,
      petId: input.petId,
      quantity: input.quantity,
      shipDate: input.shipDate,
      placedBy: actor.keyId,
      state: "open",
      revision: 1,
      createdAt: clock.now(),
    };
    if (!(await orders.insert(order, [stampEvent(clock, "order.placed", orderData(order, false))]))) {
      await release(pets, clock, order.petId, id, order.quantity);
      throw new DomainError("service_unavailable", "The order took too long to place and was undone; place it again", 1);
    }
    return orderOf(order);
  }
}
