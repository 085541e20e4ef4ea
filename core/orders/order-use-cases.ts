import { can, type Actor } from "../access/permissions.ts";
import type { Inventory } from "../inventory/inventory.port.ts";
import { applyTransition } from "../pets/pet-status-transitions.ts";
import type { Pets } from "../pets/pets.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError, notFound } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import { lookahead, toPage, type Page } from "../shared/page.ts";
import type { NewOrder, Order, OrderChanges } from "./order.ts";
import type { OrderQuery, Orders } from "./orders.port.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  inventory: Inventory;
  ids: IdAllocator;
  clock: Clock;
}

const orderCompleted = (id: number): DomainError =>
  new DomainError("order_completed", `Order ${id} is complete and can no longer change`);

/** Another key's order is reported as missing: a customer learns nothing about orders it did not place. */
const visibleOrder = async (orders: Orders, id: number, actor: Actor): Promise<Order> => {
  const order = await orders.ofId(id);
  if (!order || (order.placedBy !== actor.keyId && !can(actor, "orders:any"))) throw notFound("Order", id);
  return order;
};

/** After a conditional write missed: the order is either gone or complete by now. */
const explainMissedWrite = async (orders: Orders, id: number): Promise<never> => {
  throw (await orders.ofId(id))?.complete ? orderCompleted(id) : notFound("Order", id);
};

abstract class OrderUseCase {
  protected readonly ports: Ports;
  constructor(ports: Ports) {
    this.ports = ports;
  }
}

export class PlaceOrder extends OrderUseCase {
  async execute(input: NewOrder, actor: Actor): Promise<Order> {
    const { orders, pets, inventory, ids } = this.ports;
    const pet = await pets.ofId(input.petId);
    if (!pet) throw new DomainError("unknown_pet", `Pet ${input.petId} does not exist`);
    if (pet.status !== "available") {
      throw new DomainError("pet_not_available", `Pet ${pet.id} is ${pet.status}, not available`);
    }
    // The reservation is the single atomic step that decides: two orders for the last unit never both pass it.
    const left = await inventory.reserve(pet.id, input.quantity);
    if (left === undefined) {
      throw new DomainError("insufficient_stock", `Pet ${pet.id} has fewer than ${input.quantity} units in stock`);
    }
    let order: Order;
    try {
      order = { id: await ids.next("orders"), ...input, shipDate: input.shipDate, complete: false, placedBy: actor.keyId };
      await orders.add(order);
    } catch (error) {
      await inventory.release(pet.id, input.quantity); // compensate: no order, so no reservation
      throw error;
    }
    if (left === 0) await applyTransition(pets, pet.id, "available", "pending", "last-unit-ordered");
    return order;
  }
}

export class ListOrders extends OrderUseCase {
  async execute(query: OrderQuery, actor: Actor): Promise<Page<Order>> {
    const placedBy = can(actor, "orders:any") ? query.placedBy : actor.keyId;
    const fetched = await this.ports.orders.list({ ...query, placedBy, ...lookahead(query) });
    return toPage(fetched, query, (o) => o.id);
  }
}

export class GetOrder extends OrderUseCase {
  execute(id: number, actor: Actor): Promise<Order> {
    return visibleOrder(this.ports.orders, id, actor);
  }
}

/** PATCH: set a ship date and/or complete the order. A completed order never changes again. */
export class UpdateOrder extends OrderUseCase {
  async execute(id: number, changes: OrderChanges, actor: Actor): Promise<Order> {
    const { orders, pets, inventory, clock } = this.ports;
    const current = await visibleOrder(orders, id, actor);
    if (current.complete) throw orderCompleted(id);
    const complete = changes.complete === true;
    const shipDate = changes.shipDate ?? current.shipDate ?? (complete ? clock.now() : undefined);
    const updated = (await orders.updateOpen(id, { complete, shipDate })) ?? (await explainMissedWrite(orders, id));
    if (complete && !(await orders.hasOpenForPet(updated.petId)) && (await inventory.quantityOf(updated.petId)) === 0) {
      await applyTransition(pets, updated.petId, "pending", "sold", "last-open-order-completed");
    }
    return updated;
  }
}

/** DELETE: cancels an open order and gives its units back to stock. */
export class CancelOrder extends OrderUseCase {
  async execute(id: number, actor: Actor): Promise<void> {
    const { orders, pets, inventory } = this.ports;
    const current = await visibleOrder(orders, id, actor);
    if (current.complete) throw orderCompleted(id);
    const removed = (await orders.removeOpen(id)) ?? (await explainMissedWrite(orders, id));
    let stock: number | undefined;
    try {
      stock = await inventory.release(removed.petId, removed.quantity);
    } catch (error) {
      await orders.add(removed); // compensate: the units are still reserved, so the order stays
      throw error;
    }
    // Stock was 0 before this cancellation and is above 0 again: the pet can be ordered once more.
    if (stock === removed.quantity) {
      await applyTransition(pets, removed.petId, "pending", "available", "order-cancelled-restocking");
    }
  }
}
