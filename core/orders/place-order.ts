import type { Actor } from "../access/permissions.ts";
import type { Inventory } from "../inventory/inventory.port.ts";
import { applyTransition } from "../pets/pet-status-transitions.ts";
import type { Pets } from "../pets/pets.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { NewOrder, Order } from "./order.ts";
import type { Orders } from "./orders.port.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  inventory: Inventory;
  ids: IdAllocator;
}

export class PlaceOrder {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(input: NewOrder, actor: Actor): Promise<Order> {
    const { orders, pets, inventory, ids } = this.#ports;
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
