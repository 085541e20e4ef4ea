import type { Collection, Db, Filter } from "mongodb";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { Outbox } from "../../core/events/outbox.port.ts";
import type { OrderDocument } from "./mongo-orders.repository.ts";
import type { PetDocument } from "./mongo-pets.repository.ts";
import { guarded } from "./store-unavailable.ts";

const oldestFirst = (a: DomainEvent, b: DomainEvent): number => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

type WithOutbox = { _id: number; outbox: DomainEvent[]; hasEvents?: true };

/**
 * The events pending on pet and order documents. Acknowledging pulls them out of their documents (idempotent),
 * then clears `hasEvents` where the outbox is empty (conditional on it still being empty, so an event pushed
 * meanwhile keeps its flag) and removes cancelled orders' tombstones whose last event is gone.
 */
export class MongoOutbox implements Outbox {
  readonly #sources: Collection<WithOutbox>[];
  readonly #orders: Collection<OrderDocument>;
  constructor(db: Db) {
    this.#orders = db.collection<OrderDocument>("orders");
    this.#sources = [db.collection<PetDocument>("pets"), this.#orders] as unknown as Collection<WithOutbox>[];
  }

  pending(limit: number): Promise<DomainEvent[]> {
    return guarded(async () => {
      const found = await Promise.all(
        this.#sources.map((c) => c.find({ hasEvents: true } as Filter<WithOutbox>, { projection: { outbox: 1 } }).toArray()),
      );
      return found
        .flat()
        .flatMap((doc) => doc.outbox)
        .sort(oldestFirst)
        .slice(0, limit);
    });
  }

  acknowledge(ids: readonly string[]): Promise<void> {
    return guarded(async () => {
      if (ids.length === 0) return;
      const listed = [...ids];
      const acknowledged = new Set(ids);
      for (const source of this.#sources) {
        const holders = await source.find({ "outbox.id": { $in: listed } } as Filter<WithOutbox>, { projection: { outbox: 1 } }).toArray();
        // $pullAll of the very elements read: right on every engine (the first test engine, FerretDB 1.24, matched
        // $pull conditions only by whole elements).
        for (const doc of holders) {
          await source.updateOne({ _id: doc._id } as Filter<WithOutbox>, { $pullAll: { outbox: doc.outbox.filter((e) => acknowledged.has(e.id)) } } as never);
        }
        await source.updateMany({ hasEvents: true, outbox: { $size: 0 } } as Filter<WithOutbox>, { $unset: { hasEvents: "" } });
      }
      await this.#orders.deleteMany({ state: "cancelled", outbox: { $size: 0 } });
    });
  }
}
