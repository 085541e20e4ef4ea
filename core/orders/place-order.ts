import type { Actor } from "../access/permissions.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import { explainReserve, release, reserve, type ReserveOutcome } from "../pets/stock-writes.ts";
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
 * place order:  1 allocate the id, and read the pet       crash → nothing written (the id is skipped); a pet
 *                 (in parallel)                           that plainly cannot be ordered is refused here
 *               2 insert order {placing}, invisible     crash → recovery deletes it after the grace period
 *               3 reserve on the pet, keyed by order id crash → recovery releases the hold, deletes the order
 *                 (stock, status and hold in one write; the decisive step)
 *               4 confirm placing → open + order.placed crash before → as 3; after → done
 * A refused reservation deletes the placing order at once. An order recovery undid (the request outlived the
 * grace period) fails its confirmation: the placer gives its hold back and answers service_unavailable.
 */
export class PlaceOrder {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(input: NewOrder, actor: Actor): Promise<Order> {
    const { orders, pets, ids, clock } = this.#ports;
    // Read alongside the id: a plain refusal costs one round trip and writes nothing; the reservation still decides.
    const [id, seen] = await Promise.all([ids.next("orders"), pets.ofId(input.petId)]);
    const foreseen = explainReserve(seen, id, input.quantity);
    if (foreseen && foreseen !== "already-held") throw refusal(foreseen, input);
    const placing: OrderRecord = {
      id,
      petId: input.petId,
      quantity: input.quantity,
      shipDate: input.shipDate,
      placedBy: actor.keyId,
      state: "placing",
      revision: 1,
      createdAt: clock.now(),
    };
    await orders.insert(placing);
    const outcome = await reserve(pets, clock, placing.petId, placing.id, placing.quantity, seen);
    if (outcome !== "reserved" && outcome !== "already-held") {
      await orders.removeIf(placing.id, { state: "placing" });
      throw refusal(outcome, input);
    }
    const placed = stampEvent(clock, "order.placed", orderData(placing, false));
    const open = await orders.write(placing.id, { state: "placing" }, { state: "open", events: [placed] });
    if (!open) {
      await release(pets, clock, placing.petId, placing.id, placing.quantity);
      throw new DomainError("service_unavailable", "The order took too long to place and was undone; place it again", 1);
    }
    return orderOf(open);
  }
}
