import type { Db } from "mongodb";
import { mongoStoresFor } from "../../adapters/mongo/mongo-stores.ts";
import {
  describeViolations,
  findStoreViolations,
  readStoreView,
  readViolations,
  type GetJson,
  type Violation,
} from "./invariants.ts";

/** What clients were told during a round of a fault test (kill -9, network faults), and the stock they started from. */
export interface Acknowledged {
  stockGiven: ReadonlyMap<number, number>;
  /** Orders answered 201, and how many 201 answers were given for different orders (a reused id shows as more). */
  placed: ReadonlySet<number>;
  placedAnswers: number;
  /** Orders a cancellation was sent for, whatever its answer; and those answered 204. */
  cancelAttempted: ReadonlySet<number>;
  cancelled: ReadonlySet<number>;
}

export interface RoundCheck {
  /** One line per broken rule; empty when every invariant holds. */
  problems: string[];
  /** Units given minus units in stock and in orders, summed over the pets. */
  unitsMissing: number;
  /** Acknowledged changes (201 orders, 204 cancellations) whose event is not in the log. */
  eventsLost: number;
}

/**
 * Every invariant after a round, through the API (`get`, a staff key) and on the stored documents and the event log
 * (`db`, test/support/invariants.ts), with what the clients were told: no acknowledged order gone, no cancelled one
 * listed, no id given to two orders, every acknowledged change's event logged once.
 */
export const checkRound = async (get: GetJson, db: Db, ack: Acknowledged): Promise<RoundCheck> => {
  const { stockGiven, placed, placedAnswers, cancelAttempted, cancelled } = ack;
  const { snapshot, violations } = await readViolations(get, { stockGiven, statusFollowsStockOnly: true });
  const unitsMissing = [...stockGiven].reduce((sum, [petId, given]) => {
    const stock = snapshot.inventory.find((item) => item.petId === petId)?.quantity ?? 0;
    const ordered = snapshot.orders.filter((o) => o.petId === petId).reduce((units, o) => units + o.quantity, 0);
    return sum + given - stock - ordered;
  }, 0);
  const listed = new Set(snapshot.orders.map((o) => o.id));
  const lost = [...placed]
    .filter((id) => !cancelAttempted.has(id) && !listed.has(id))
    .map((id) => `order ${id} was acknowledged (201) but is gone`);
  const back = [...cancelled]
    .filter((id) => listed.has(id))
    .map((id) => `order ${id} was cancelled (204) but is listed`);
  const reused =
    placedAnswers === placed.size ? [] : [`${placedAnswers} orders were acknowledged under ${placed.size} ids`];
  const idsIn = async (name: string) =>
    ((await db.collection(name).distinct("_id")) as unknown[]).filter((id): id is number => typeof id === "number");
  const stores = mongoStoresFor(db, async () => {});
  const view = await readStoreView(stores, { pets: await idsIn("pets"), orders: await idsIn("orders") });
  const stored = findStoreViolations(view, { stockGiven, placed, cancelled });
  return {
    problems: [
      ...(violations.length ? [describeViolations(violations as Violation[])] : []),
      ...(stored.length ? [`stored: ${describeViolations(stored)}`] : []),
      ...lost,
      ...back,
      ...reused,
    ],
    unitsMissing,
    eventsLost: stored.filter((v) => v.rule === "event-lost" && v.orderId !== undefined).length,
  };
};
