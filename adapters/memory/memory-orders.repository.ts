import type { Order } from "../../core/orders/order.ts";
import type { OrderQuery, Orders } from "../../core/orders/orders.port.ts";
import { pageOf } from "./memory-paging.ts";

/** Conditional writes check "still open" and write in one synchronous step. */
export class MemoryOrders implements Orders {
  readonly #orders = new Map<number, Order>();

  async ofId(id: number): Promise<Order | undefined> {
    const order = this.#orders.get(id);
    return order && structuredClone(order);
  }

  async list(query: OrderQuery): Promise<Order[]> {
    const { complete, petId, placedBy } = query;
    return pageOf(
      this.#orders.values(),
      query,
      (order) =>
        (complete === undefined || order.complete === complete) &&
        (petId === undefined || order.petId === petId) &&
        (placedBy === undefined || order.placedBy === placedBy),
    );
  }

  async add(order: Order): Promise<void> {
    this.#orders.set(order.id, structuredClone(order));
  }

  async updateOpen(id: number, changes: { complete: boolean; shipDate: Date | undefined }): Promise<Order | undefined> {
    const order = this.#orders.get(id);
    if (!order || order.complete) return undefined;
    const updated: Order = { ...order, complete: changes.complete, shipDate: changes.shipDate && new Date(changes.shipDate) };
    this.#orders.set(id, updated);
    return structuredClone(updated);
  }

  async removeOpen(id: number): Promise<Order | undefined> {
    const order = this.#orders.get(id);
    if (!order || order.complete) return undefined;
    this.#orders.delete(id);
    return order;
  }

  async hasOpenForPet(petId: number): Promise<boolean> {
    return [...this.#orders.values()].some((order) => order.petId === petId && !order.complete);
  }
}
