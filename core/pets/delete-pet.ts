import type { Inventory } from "../inventory/inventory.port.ts";
import type { Orders } from "../orders/orders.port.ts";
import { DomainError, notFound } from "../shared/domain-error.ts";
import type { Pets } from "./pets.port.ts";

interface Ports {
  pets: Pets;
  orders: Orders;
  inventory: Inventory;
}

export class DeletePet {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number): Promise<void> {
    const { pets, orders, inventory } = this.#ports;
    if (!(await pets.ofId(id))) throw notFound("Pet", id);
    if (await orders.hasOpenForPet(id)) {
      throw new DomainError("pet_has_open_orders", `Pet ${id} has open orders; complete or cancel them first`);
    }
    if (!(await pets.remove(id))) throw notFound("Pet", id);
    await inventory.remove(id);
  }
}
