import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { Outbox } from "../../core/events/outbox.port.ts";
import type { MemoryOrders } from "./memory-orders.repository.ts";
import { copyEvent } from "./memory-pending-events.ts";
import type { MemoryPets } from "./memory-pets.repository.ts";

export const oldestFirst = (a: DomainEvent, b: DomainEvent): number => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The events pending on the memory pets and orders: the work is proportional to the pending events, not the store. */
export class MemoryOutbox implements Outbox {
  readonly #pets: MemoryPets;
  readonly #orders: MemoryOrders;
  constructor(pets: MemoryPets, orders: MemoryOrders) {
    this.#pets = pets;
    this.#orders = orders;
  }

  async pending(limit: number): Promise<DomainEvent[]> {
    return [...this.#pets.storedEvents(), ...this.#orders.storedEvents()]
      .sort(oldestFirst)
      .slice(0, limit)
      .map(copyEvent);
  }

  async acknowledge(ids: readonly string[]): Promise<void> {
    const set = new Set(ids);
    this.#pets.acknowledge(set);
    this.#orders.acknowledge(set);
  }
}
