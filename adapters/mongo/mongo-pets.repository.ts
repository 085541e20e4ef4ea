import type { Collection, Db, Document, Filter, UpdateFilter } from "mongodb";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { PetStatus } from "../../core/pets/pet.ts";
import type { Hold, ListedPet, PetRecord, WrittenPet } from "../../core/pets/pet-record.ts";
import { namedOrders, type PetChange, type PetCondition, type PetQuery, type Pets, type PetVariant, type PetWrite } from "../../core/pets/pets.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { nameKeyOf } from "../../core/pets/pet-name-key.ts";
import { findPage } from "./mongo-paging.ts";
import { oldestKey } from "./outbox-key.ts";
import { guarded } from "./store-unavailable.ts";

/** The pet aggregate: stock, the holds of open orders ("o<orderId>": units) and the outbox live in the pet. */
export interface PetDocument {
  _id: number;
  name: string;
  /** The name lower-cased (nameKeyOf): what name search and the name order go by, through an index. */
  nameKey: string;
  categoryId: number;
  status: PetStatus;
  revision: number;
  stock: number;
  holds: Record<string, number>;
  /** When each hold was taken, under the same keys. */
  heldSince?: Record<string, Date>;
  /** The number of keys of `holds`: conditions on "no hold" or "the last hold" need it. */
  holdCount: number;
  lifecycle?: "creating" | "deleting";
  movingTo?: number;
  provisionalSince?: Date;
  outbox: DomainEvent[];
  /** Set while the outbox is not empty: what the relay's query finds through an index. */
  hasEvents?: true;
  /** The outbox key of the oldest pending event, or an earlier one (see MongoOutbox). */
  eventsSince?: string;
}

const holdKey = (orderId: number): string => `o${orderId}`;

const toDocument = (pet: PetRecord): PetDocument => ({
  _id: pet.id,
  name: pet.name,
  nameKey: nameKeyOf(pet.name),
  categoryId: pet.categoryId,
  status: pet.status,
  revision: pet.revision,
  stock: pet.stock,
  holds: Object.fromEntries(pet.holds.map((h) => [holdKey(h.orderId), h.units])),
  heldSince: Object.fromEntries(pet.holds.flatMap((h) => (h.since ? [[holdKey(h.orderId), h.since]] : []))),
  holdCount: pet.holds.length,
  ...(pet.lifecycle !== undefined && { lifecycle: pet.lifecycle }),
  ...(pet.movingTo !== undefined && { movingTo: pet.movingTo }),
  ...(pet.provisionalSince !== undefined && { provisionalSince: pet.provisionalSince }),
  outbox: [],
});

/** The pet as a listing reads it: what `withoutHolds` leaves. */
const toListed = (doc: Omit<PetDocument, "outbox" | "holds" | "heldSince">): ListedPet => ({
  id: doc._id,
  name: doc.name,
  categoryId: doc.categoryId,
  status: doc.status,
  revision: doc.revision,
  stock: doc.stock,
  lifecycle: doc.lifecycle,
  movingTo: doc.movingTo,
  provisionalSince: doc.provisionalSince,
});

const toPet = (doc: Omit<PetDocument, "outbox">): PetRecord => ({
  ...toListed(doc),
  holds: Object.entries(doc.holds)
    .map(([key, units]) => ({ orderId: Number(key.slice(1)), units, since: doc.heldSince?.[key] }))
    .sort((a, b) => a.orderId - b.orderId),
});

/** What a write's reply carries: the pet's fields and hold count, and the holds of the named orders only. */
const writtenProjection = (named: readonly number[]): Document => {
  const projection: Document = { name: 1, categoryId: 1, status: 1, revision: 1, stock: 1, holdCount: 1, lifecycle: 1, movingTo: 1, provisionalSince: 1 };
  for (const orderId of named) projection[`holds.${holdKey(orderId)}`] = projection[`heldSince.${holdKey(orderId)}`] = 1;
  return projection;
};

type WrittenDocument = Omit<PetDocument, "outbox" | "holds"> & { holds?: Record<string, number> };

const toWritten = (doc: WrittenDocument, named: readonly number[]): WrittenPet => {
  const namedHolds: Hold[] = [];
  for (const orderId of named) {
    const units = doc.holds?.[holdKey(orderId)];
    if (units !== undefined) namedHolds.push({ orderId, units, since: doc.heldSince?.[holdKey(orderId)] });
  }
  return { ...toListed(doc), holdCount: doc.holdCount, namedHolds };
};

const bound = (b: { eq: number } | { gt: number }) => ("eq" in b ? b.eq : { $gt: b.gt });

/** A condition as a filter; the memory adapter's `petMeets` is the same rule (both run the Pets contract). */
export const petFilter = (id: number, c: PetCondition): Filter<PetDocument> => {
  const filter: Document = { _id: id };
  if (c.lifecycle !== undefined) filter.lifecycle = c.lifecycle === "none" ? { $exists: false } : c.lifecycle;
  if (c.status !== undefined) filter.status = c.status;
  if (c.statusNot !== undefined) filter.status = { $ne: c.statusNot };
  if (c.stock !== undefined) filter.stock = bound(c.stock);
  if (c.hold !== undefined) filter[`holds.${holdKey(c.hold.orderId)}`] = c.hold.units;
  if (c.noHoldOf !== undefined) filter[`holds.${holdKey(c.noHoldOf)}`] = { $exists: false };
  if (c.holdCount !== undefined) filter.holdCount = bound(c.holdCount);
  if (c.revision !== undefined) filter.revision = c.revision;
  if (c.movingTo !== undefined) filter.movingTo = c.movingTo === "none" ? { $exists: false } : c.movingTo;
  if (c.provisionalSince !== undefined) filter.provisionalSince = c.provisionalSince;
  return filter as Filter<PetDocument>;
};

export const petUpdate = (c: PetChange): UpdateFilter<PetDocument> => {
  const set: Document = {};
  const unset: Document = {};
  const inc: Document = { revision: 1 };
  if (c.name !== undefined) {
    set.name = c.name;
    set.nameKey = nameKeyOf(c.name);
  }
  if (c.categoryId !== undefined) set.categoryId = c.categoryId;
  if (c.status !== undefined) set.status = c.status;
  if (c.stock !== undefined) {
    if ("to" in c.stock) set.stock = c.stock.to;
    else inc.stock = c.stock.by;
  }
  if (c.addHold !== undefined) {
    set[`holds.${holdKey(c.addHold.orderId)}`] = c.addHold.units;
    if (c.addHold.since) set[`heldSince.${holdKey(c.addHold.orderId)}`] = c.addHold.since;
    inc.holdCount = (inc.holdCount ?? 0) + 1;
  }
  if (c.removeHoldOf !== undefined) {
    unset[`holds.${holdKey(c.removeHoldOf)}`] = "";
    unset[`heldSince.${holdKey(c.removeHoldOf)}`] = "";
    inc.holdCount = (inc.holdCount ?? 0) - 1;
  }
  for (const field of ["lifecycle", "movingTo", "provisionalSince"] as const) {
    const value = c[field];
    if (value === "none") unset[field] = "";
    else if (value !== undefined) set[field] = value;
  }
  const events = c.events ?? [];
  if (events.length > 0) set.hasEvents = true;
  return {
    $inc: inc,
    ...(Object.keys(set).length > 0 && { $set: set }),
    ...(Object.keys(unset).length > 0 && { $unset: unset }),
    ...(events.length > 0 && { $push: { outbox: { $each: [...events] } }, $min: { eventsSince: oldestKey(events) } }),
  } as UpdateFilter<PetDocument>;
};

const withoutOutbox = { projection: { outbox: 0 } } as const;
/** A look at a pet or a listing leaves the holds on the server too: a popular pet's open orders are not sent with every read. */
const withoutHolds = { outbox: 0, holds: 0, heldSince: 0 } as const;
const visible = { lifecycle: { $exists: false } } as const;

/** Listings by status or category walk the first two; recovery's and the category check's queries the next three; the outbox the last two. */
export const createPetIndexes = async (db: Db): Promise<void> => {
  // One index per command: the first test engine (FerretDB 1.24) dropped the connection when one createIndexes named
  // several existing ones, and one command per index costs nothing that matters at start-up.
  const pets = db.collection("pets");
  await pets.createIndex({ status: 1, _id: 1 });
  await pets.createIndex({ categoryId: 1, _id: 1 });
  await pets.createIndex({ movingTo: 1 });
  await pets.createIndex({ lifecycle: 1 });
  await pets.createIndex({ holdCount: 1, _id: 1 });
  await pets.createIndex({ hasEvents: 1, eventsSince: 1, _id: 1 });
  await pets.createIndex({ "outbox.id": 1 });
  // Name search and the name order: a stored lower-cased key, since DocumentDB (FerretDB v2) has no collation indexes.
  await pets.createIndex({ nameKey: 1, _id: 1 });
};

/** Gives pets written before `nameKey` existed their key; a pet renamed meanwhile already has its new one. */
export const migratePetNameKeys = async (db: Db): Promise<void> => {
  const pets = db.collection<PetDocument>("pets");
  for await (const doc of pets.find({ nameKey: { $exists: false } }, { projection: { name: 1 } })) {
    await pets.updateOne({ _id: doc._id, name: doc.name, nameKey: { $exists: false } }, { $set: { nameKey: nameKeyOf(doc.name) } });
  }
};

/** The first string above every string that starts with `prefix`, in code point order; undefined when there is none. */
const prefixEnd = (prefix: string): string | undefined => {
  const points = [...prefix].map((c) => c.codePointAt(0) as number);
  while (points.length > 0 && points.at(-1) === 0x10ffff) points.pop();
  if (points.length === 0) return undefined;
  const last = (points.pop() as number) + 1;
  // Surrogate code points have no UTF-8 form: the next code point after U+D7FF is U+E000.
  points.push(last === 0xd800 ? 0xe000 : last);
  return String.fromCodePoint(...points);
};

/** The `nameKey` conditions of a listing: its prefix, and with the name order the page's cursor. */
const nameKeyFilter = (query: PetQuery): Filter<PetDocument>[] => {
  const parts: Filter<PetDocument>[] = [];
  if (query.namePrefix !== undefined) {
    const end = prefixEnd(query.namePrefix);
    parts.push({ nameKey: { $gte: query.namePrefix, ...(end !== undefined && { $lt: end }) } });
  }
  if (query.sort === "name" && query.afterName !== undefined) {
    parts.push({ $or: [{ nameKey: { $gt: query.afterName } }, { nameKey: query.afterName, _id: { $gt: query.after ?? -Infinity } }] });
  }
  return parts;
};

/**
 * Every write is one `findOneAndUpdate` whose filter is the variant's condition: the server applies check and
 * change atomically per document, whatever else runs concurrently. Variants exclude each other, so trying them
 * one after the other is safe under any interleaving.
 */
export class MongoPets implements Pets {
  readonly #pets: Collection<PetDocument>;
  constructor(db: Db) {
    this.#pets = db.collection<PetDocument>("pets");
  }

  ofId(id: number): Promise<ListedPet | undefined> {
    return guarded(async () => {
      const doc = await this.#pets.findOne({ _id: id }, { projection: withoutHolds });
      return doc ? toListed(doc) : undefined;
    });
  }

  list(query: PetQuery): Promise<ListedPet[]> {
    return guarded(async () => {
      const named = nameKeyFilter(query);
      const filter: Filter<PetDocument> = {
        ...visible,
        ...(query.statuses !== undefined && { status: { $in: [...query.statuses] } }),
        ...(query.categoryId !== undefined && { categoryId: query.categoryId }),
        ...(named.length > 0 && { $and: named }),
      };
      if (query.sort !== "name") return (await findPage(this.#pets, filter, query, query.ids, withoutHolds, query.sort === "-id")).map(toListed);
      const byName = query.ids === undefined ? filter : { ...filter, _id: { $in: [...query.ids] } };
      const docs = await this.#pets.find(byName, { projection: withoutHolds }).sort({ nameKey: 1, _id: 1 }).limit(query.limit).toArray();
      return docs.map(toListed);
    });
  }

  insert(pet: PetRecord): Promise<void> {
    return guarded(async () => {
      await this.#pets.insertOne(toDocument(pet));
    });
  }

  write(id: number, variants: readonly PetVariant[]): Promise<PetWrite> {
    return guarded(async () => {
      // Neither the outbox (a relay that falls behind must not make every write carry the backlog back) nor the holds
      // of other orders (a popular pet's open orders must not come back with every reservation).
      const named = namedOrders(variants);
      const projection = writtenProjection(named);
      for (const [applied, variant] of variants.entries()) {
        const doc = await this.#pets.findOneAndUpdate(petFilter(id, variant.when), petUpdate(variant.then), { returnDocument: "after", projection });
        if (doc) return { applied, pet: toWritten(doc as WrittenDocument, named) };
      }
      const doc = await this.#pets.findOne({ _id: id }, { projection });
      return { applied: undefined, pet: doc ? toWritten(doc as WrittenDocument, named) : undefined };
    });
  }

  removeIf(id: number, when: PetCondition): Promise<boolean> {
    return guarded(async () => (await this.#pets.deleteOne(petFilter(id, when))).deletedCount === 1);
  }

  anyNaming(categoryId: number): Promise<boolean> {
    return guarded(async () => {
      const [named, moving] = await Promise.all([
        this.#pets.findOne({ categoryId }, { projection: { _id: 1 } }),
        this.#pets.findOne({ movingTo: categoryId }, { projection: { _id: 1 } }),
      ]);
      return named !== null || moving !== null;
    });
  }

  provisional(page: PageRequest): Promise<PetRecord[]> {
    return guarded(async () => {
      const [inLifecycle, moving] = await Promise.all([
        findPage(this.#pets, { lifecycle: { $exists: true } }, page, undefined, withoutOutbox.projection),
        findPage(this.#pets, { movingTo: { $exists: true } }, page, undefined, withoutOutbox.projection),
      ]);
      const byId = new Map([...inLifecycle, ...moving].map((doc) => [doc._id, doc]));
      return [...byId.values()]
        .sort((a, b) => a._id - b._id)
        .slice(0, page.limit)
        .map(toPet);
    });
  }

  withHolds(page: PageRequest): Promise<PetRecord[]> {
    return guarded(async () => (await findPage(this.#pets, { holdCount: { $gt: 0 } }, page, undefined, withoutOutbox.projection)).map(toPet));
  }
}
