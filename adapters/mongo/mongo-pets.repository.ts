import type { Collection, Db, Document, Filter, UpdateFilter } from "mongodb";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { PetStatus } from "../../core/pets/pet.ts";
import { fenceBucket, type Mark, type PendingCause, type PetRecord } from "../../core/pets/pet-record.ts";
import type { PetChange, PetCondition, PetQuery, Pets, PetVariant, PetWrite } from "../../core/pets/pets.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { nameKeyOf } from "../../core/pets/pet-name-key.ts";
import { findPage } from "./mongo-paging.ts";
import { oldestKey } from "./outbox-key.ts";
import { guarded } from "./store-unavailable.ts";

/** A move in flight as stored, under "r<orderId>" (reserve) or "s<orderId>" (settle). */
interface MarkDocument {
  u: number;
  s: Date;
  n?: string;
}

/** The pet aggregate; its size follows the moves in flight and the events not yet relayed, never its open orders. */
export interface PetDocument {
  _id: number;
  name: string;
  /** The name lower-cased (nameKeyOf): what name search and the name order go by, through an index. */
  nameKey: string;
  categoryId: number;
  status: PetStatus;
  pendingCause?: PendingCause;
  revision: number;
  stock: number;
  holdCount: number;
  heldUnits: number;
  marks: Record<string, MarkDocument>;
  /** The number of keys of `marks`: recovery finds marked pets through an index on it. */
  markCount: number;
  fences: Record<string, number>;
  lifecycle?: "creating" | "deleting";
  movingTo?: number;
  provisionalSince?: Date;
  outbox: DomainEvent[];
  /** Set while the outbox is not empty: what the relay's query finds through an index. */
  hasEvents?: true;
  /** The outbox key of the oldest pending event, or an earlier one (see MongoOutbox). */
  eventsSince?: string;
}

const markKey = (orderId: number, kind: Mark["kind"]): string => `${kind === "reserve" ? "r" : "s"}${orderId}`;

const markDocument = (m: Mark): MarkDocument => ({ u: m.units, s: m.since, ...(m.nonce !== undefined && { n: m.nonce }) });

/** Every field of a pet in one place: a new field is mapped here and in `toRecord`. */
const toDocument = (pet: PetRecord): PetDocument => ({
  _id: pet.id,
  name: pet.name,
  nameKey: nameKeyOf(pet.name),
  categoryId: pet.categoryId,
  status: pet.status,
  ...(pet.pendingCause !== undefined && { pendingCause: pet.pendingCause }),
  revision: pet.revision,
  stock: pet.stock,
  holdCount: pet.holdCount,
  heldUnits: pet.heldUnits,
  marks: Object.fromEntries(pet.marks.map((m) => [markKey(m.orderId, m.kind), markDocument(m)])),
  markCount: pet.marks.length,
  fences: Object.fromEntries(Object.entries(pet.fences).map(([bucket, value]) => [bucket, value])),
  ...(pet.lifecycle !== undefined && { lifecycle: pet.lifecycle }),
  ...(pet.movingTo !== undefined && { movingTo: pet.movingTo }),
  ...(pet.provisionalSince !== undefined && { provisionalSince: pet.provisionalSince }),
  outbox: [],
});

const toMarks = (marks: Record<string, MarkDocument> | undefined): Mark[] =>
  Object.entries(marks ?? {})
    .map(([key, m]): Mark => ({
      orderId: Number(key.slice(1)),
      kind: key.startsWith("r") ? "reserve" : "settle",
      units: m.u,
      since: m.s,
      ...(m.n !== undefined && { nonce: m.n }),
    }))
    .sort((a, b) => a.orderId - b.orderId || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));

const toRecord = (doc: Omit<PetDocument, "outbox">): PetRecord => ({
  id: doc._id,
  name: doc.name,
  categoryId: doc.categoryId,
  status: doc.status,
  pendingCause: doc.pendingCause,
  revision: doc.revision,
  stock: doc.stock,
  holdCount: doc.holdCount,
  heldUnits: doc.heldUnits,
  marks: toMarks(doc.marks),
  fences: Object.fromEntries(Object.entries(doc.fences ?? {}).map(([bucket, value]) => [Number(bucket), value])),
  lifecycle: doc.lifecycle,
  movingTo: doc.movingTo,
  provisionalSince: doc.provisionalSince,
});

const bound = (b: { eq: number } | { gt: number }) => ("eq" in b ? b.eq : { $gt: b.gt });

/** A condition as a filter; the memory adapter's `petMeets` is the same rule (both run the Pets contract). */
export const petFilter = (id: number, c: PetCondition): Filter<PetDocument> => {
  const filter: Document = { _id: id };
  if (c.lifecycle !== undefined) filter.lifecycle = c.lifecycle === "none" ? { $exists: false } : c.lifecycle;
  if (c.status !== undefined) filter.status = c.status;
  if (c.statusNot !== undefined) filter.status = { $ne: c.statusNot };
  if (c.soldOut !== undefined) filter.pendingCause = c.soldOut ? "sold-out" : { $ne: "sold-out" };
  if (c.stock !== undefined) filter.stock = bound(c.stock);
  if (c.holdCount !== undefined) filter.holdCount = bound(c.holdCount);
  if (c.heldAtMost !== undefined) filter.heldUnits = { $lte: c.heldAtMost };
  if (c.mark !== undefined) {
    const key = `marks.${markKey(c.mark.orderId, c.mark.kind)}`;
    if (c.mark.nonce !== undefined) filter[`${key}.n`] = c.mark.nonce;
    else filter[key] = { $exists: true };
  }
  if (c.noMark !== undefined) filter[`marks.${markKey(c.noMark.orderId, c.noMark.kind)}`] = { $exists: false };
  if (c.fence !== undefined) {
    filter[`fences.${fenceBucket(c.fence.orderId)}`] = c.fence.value === 0 ? { $exists: false } : c.fence.value;
  }
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
  if (c.pendingCause === "none") unset.pendingCause = "";
  else if (c.pendingCause !== undefined) set.pendingCause = c.pendingCause;
  if (c.stock !== undefined) {
    if ("to" in c.stock) set.stock = c.stock.to;
    else inc.stock = c.stock.by;
  }
  if (c.held !== undefined) {
    inc.holdCount = c.held.orders;
    inc.heldUnits = c.held.units;
  }
  if (c.addMark !== undefined) {
    set[`marks.${markKey(c.addMark.orderId, c.addMark.kind)}`] = markDocument(c.addMark);
    inc.markCount = (inc.markCount ?? 0) + 1;
  }
  if (c.removeMark !== undefined) {
    unset[`marks.${markKey(c.removeMark.orderId, c.removeMark.kind)}`] = "";
    inc.markCount = (inc.markCount ?? 0) - 1;
  }
  if (c.bumpFence !== undefined) inc[`fences.${fenceBucket(c.bumpFence)}`] = 1;
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

/** Events not yet relayed stay on the server: a relay that falls behind must not make every read carry them. */
const withoutOutbox = { outbox: 0 } as const;
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
  await pets.createIndex({ markCount: 1, _id: 1 });
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

  ofId(id: number): Promise<PetRecord | undefined> {
    return guarded(async () => {
      const doc = await this.#pets.findOne({ _id: id }, { projection: withoutOutbox });
      return doc ? toRecord(doc) : undefined;
    });
  }

  list(query: PetQuery): Promise<PetRecord[]> {
    return guarded(async () => {
      const named = nameKeyFilter(query);
      const filter: Filter<PetDocument> = {
        ...visible,
        ...(query.statuses !== undefined && { status: { $in: [...query.statuses] } }),
        ...(query.categoryId !== undefined && { categoryId: query.categoryId }),
        ...(named.length > 0 && { $and: named }),
      };
      if (query.sort !== "name") return (await findPage(this.#pets, filter, query, query.ids, withoutOutbox, query.sort === "-id")).map(toRecord);
      const byName = query.ids === undefined ? filter : { ...filter, _id: { $in: [...query.ids] } };
      const docs = await this.#pets.find(byName, { projection: withoutOutbox }).sort({ nameKey: 1, _id: 1 }).limit(query.limit).toArray();
      return docs.map(toRecord);
    });
  }

  insert(pet: PetRecord): Promise<void> {
    return guarded(async () => {
      await this.#pets.insertOne(toDocument(pet));
    });
  }

  write(id: number, variants: readonly PetVariant[]): Promise<PetWrite> {
    return guarded(async () => {
      const projection = withoutOutbox;
      for (const [applied, variant] of variants.entries()) {
        const doc = await this.#pets.findOneAndUpdate(petFilter(id, variant.when), petUpdate(variant.then), { returnDocument: "after", projection });
        if (doc) return { applied, pet: toRecord(doc) };
      }
      const doc = await this.#pets.findOne({ _id: id }, { projection });
      return { applied: undefined, pet: doc ? toRecord(doc) : undefined };
    });
  }

  removeIf(id: number, when: PetCondition): Promise<boolean> {
    return guarded(async () => (await this.#pets.deleteOne(petFilter(id, when))).deletedCount === 1);
  }

  anyNaming(categoryId: number): Promise<boolean> {
    return guarded(async () => {
      // Moves first: a pet goes from movingTo = c to categoryId = c in one write, so a move finishing between the two
      // reads is seen by the second; read the other way round (or at once), it could be missed by both.
      if (await this.#pets.findOne({ movingTo: categoryId }, { projection: { _id: 1 } })) return true;
      return (await this.#pets.findOne({ categoryId }, { projection: { _id: 1 } })) !== null;
    });
  }

  provisional(page: PageRequest): Promise<PetRecord[]> {
    return guarded(async () => {
      const [inLifecycle, moving] = await Promise.all([
        findPage(this.#pets, { lifecycle: { $exists: true } }, page, undefined, withoutOutbox),
        findPage(this.#pets, { movingTo: { $exists: true } }, page, undefined, withoutOutbox),
      ]);
      const byId = new Map([...inLifecycle, ...moving].map((doc) => [doc._id, doc]));
      return [...byId.values()]
        .sort((a, b) => a._id - b._id)
        .slice(0, page.limit)
        .map(toRecord);
    });
  }

  withMarks(page: PageRequest): Promise<PetRecord[]> {
    return guarded(async () => (await findPage(this.#pets, { markCount: { $gt: 0 } }, page, undefined, withoutOutbox)).map(toRecord));
  }
}
