import type { Collection, Db, Document, Filter, UpdateFilter } from "mongodb";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { PetStatus } from "../../core/pets/pet.ts";
import { fenceBucket, type Mark, type PendingCause, type PetRecord } from "../../core/pets/pet-record.ts";
import type {
  Consequence,
  Edit,
  PetFields,
  PetQuery,
  Pets,
  PetWrite,
  Reservation,
  Settlement,
  StockSetting,
  ReservationPosted,
  ReservationVoided,
  SettleMarkCleared,
  MarkDrop,
  MarksDropped,
  MoveStart,
  MoveFinish,
  MoveUndone,
  DeletingStart,
} from "../../core/pets/pets.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import type { Bound, StockCases, StockFacts } from "../../core/pets/stock-rule.ts";
import { nameKeyOf, nameOrderKeyOf } from "../../core/pets/pet-name-key.ts";
import { findPage } from "./mongo-paging.ts";
import { oldestKey } from "./outbox-key.ts";
import { gonePet, petNotGone } from "./gone.ts";
import { allMapped, definedFields, type EveryField } from "./mapping.ts";
import { guarded } from "./store-unavailable.ts";
import { createWorkIndexes, PENDING_EVENT_IDS, PENDING_EVENTS, type WorkIndex } from "./work-indexes.ts";

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
  /** The name lower-cased (nameKeyOf): what name search goes by, through an index. */
  nameKey: string;
  /** The name key with its numbers comparable (nameOrderKeyOf): what the name order goes by, through an index. */
  nameOrder: string;
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

const markDocument = (m: Mark): MarkDocument => ({
  u: m.units,
  s: m.since,
  ...(m.nonce !== undefined && { n: m.nonce }),
});

/** The fields PUT sets, as stored (by an insert and by an edit). */
const fieldsDocument = (fields: PetFields) => {
  const { name, ...unmapped } = fields;
  allMapped(unmapped);
  const nameKey = nameKeyOf(name);
  return { name, nameKey, nameOrder: nameOrderKeyOf(nameKey) };
};

type OptionalKeys<T> = Exclude<{ [K in keyof T]: undefined extends T[K] ? K : never }[keyof T], undefined>;
/** The optional fields PUT may leave out, which an edit then unsets: a compile error here until each is listed. */
const optionalFields: Record<OptionalKeys<PetFields>, true> = {};

const toDocument = (pet: PetRecord): PetDocument => {
  const { id, name, categoryId, status, pendingCause, revision, stock, holdCount, heldUnits, ...rest } = pet;
  const { marks, fences, lifecycle, movingTo, provisionalSince, ...unmapped } = rest;
  allMapped(unmapped);
  return definedFields({
    _id: id,
    ...fieldsDocument({ name }),
    categoryId,
    status,
    pendingCause,
    revision,
    stock,
    holdCount,
    heldUnits,
    marks: Object.fromEntries(marks.map((m) => [markKey(m.orderId, m.kind), markDocument(m)])),
    markCount: marks.length,
    fences: Object.fromEntries(Object.entries(fences).map(([bucket, value]) => [bucket, value])),
    lifecycle,
    movingTo,
    provisionalSince,
    outbox: [],
  });
};

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

const toRecord = (doc: Omit<PetDocument, "outbox">): EveryField<PetRecord> => ({
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

/** What a write changes, as the parts of an update (merged, increments add up). */
interface Change {
  set?: Document;
  unset?: readonly string[];
  inc?: Document;
  events?: readonly DomainEvent[] | undefined;
}

const merged = (...changes: Change[]): Change => ({
  set: Object.assign({}, ...changes.map((c) => c.set)),
  unset: changes.flatMap((c) => c.unset ?? []),
  inc: changes.reduce<Document>((sum, c) => {
    for (const [field, by] of Object.entries(c.inc ?? {}))
      sum[field] = ((sum[field] as number | undefined) ?? 0) + (by as number);
    return sum;
  }, {}),
  events: changes.flatMap((c) => c.events ?? []),
});

/** Every write moves the revision on; events go to the outbox in the same update. */
const updateOf = (change: Change): UpdateFilter<PetDocument> => {
  const { set = {}, unset = [], inc = {}, events = [] } = change;
  return {
    $inc: { ...inc, revision: 1 },
    ...((Object.keys(set).length > 0 || events.length > 0) && {
      $set: { ...set, ...(events.length > 0 && { hasEvents: true }) },
    }),
    ...(unset.length > 0 && { $unset: Object.fromEntries(unset.map((field) => [field, ""])) }),
    ...(events.length > 0 && { $push: { outbox: { $each: [...events] } }, $min: { eventsSince: oldestKey(events) } }),
  } as UpdateFilter<PetDocument>;
};

const consequence = (c: Consequence): Change => ({
  ...(c.status && {
    set: { status: c.status.to, ...(c.status.cause !== undefined && { pendingCause: c.status.cause }) },
    unset: c.status.cause === undefined ? ["pendingCause"] : [],
  }),
  events: c.events,
});

const markPath = (orderId: number, kind: Mark["kind"]): string => `marks.${markKey(orderId, kind)}`;
const addMark = (mark: Mark): Change => ({
  set: { [markPath(mark.orderId, mark.kind)]: markDocument(mark) },
  inc: { markCount: 1 },
});
/** A mark dropped moves the fence of its bucket on: a late copy of the write that added it is refused. */
const removeMark = (orderId: number, kind: Mark["kind"]): Change => ({
  unset: [markPath(orderId, kind)],
  inc: { markCount: -1, [`fences.${fenceBucket(orderId)}`]: 1 },
});
/** Drops taken along by a write: each only while its mark is there (a reservation's by its nonce). */
const dropsFacts = (drops: readonly MarkDrop[]): Document =>
  Object.fromEntries(
    drops.map((d) =>
      d.kind === "reserve"
        ? [`${markPath(d.orderId, d.kind)}.n`, d.nonce]
        : [markPath(d.orderId, d.kind), { $exists: true }],
    ),
  );
const dropped = (drops: readonly MarkDrop[]): Change => merged(...drops.map((d) => removeMark(d.orderId, d.kind)));
const held = (orders: number, units: number): Change => ({ inc: { holdCount: orders, heldUnits: units } });
const edited = (fields: PetFields): Change => ({
  set: fieldsDocument(fields),
  unset: (Object.keys(optionalFields) as OptionalKeys<PetFields>[]).filter((key) => fields[key] === undefined),
});

const visibleNow = { lifecycle: { $exists: false } } as const;
const ofRevision = (revision: number | undefined) => (revision === undefined ? {} : { revision });
const fenceIs = (orderId: number, value: number) => ({
  [`fences.${fenceBucket(orderId)}`]: value === 0 ? { $exists: false } : value,
});

type Alternative = [facts: Document, change: Change];

const boundFilter = (bound: Bound) => ("eq" in bound ? bound.eq : { $gt: bound.gt });
/** Core's facts about a pet (core/pets/stock-rule.ts) as a filter on its document. */
const factsFilter = (when: StockFacts): Document =>
  definedFields({
    stock: when.stock && boundFilter(when.stock),
    holdCount: when.holdCount && boundFilter(when.holdCount),
    status: when.status,
    pendingCause: when.pendingCause,
  } satisfies Record<keyof StockFacts, unknown>);

/**
 * One alternative per case of core's table, each with its facts and none of the earlier cases' ($nor): they exclude
 * each other, so at most one applies whichever is tried first. The likely one is tried first.
 */
const caseAlternatives = (facts: Document, change: Change, { cases, likely }: StockCases): Alternative[] => {
  const alternatives = cases.map((c, i): Alternative => {
    const own = factsFilter(c.when);
    const earlier = cases.slice(0, i).map((e) => factsFilter(e.when));
    return [
      {
        ...facts,
        ...(Object.keys(own).length > 0 && { $and: [own] }),
        ...(earlier.length > 0 && { $nor: earlier }),
      },
      merged(change, consequence(c.then)),
    ];
  });
  const at = likely ?? -1;
  return at <= 0 ? alternatives : [alternatives[at]!, ...alternatives.filter((_, i) => i !== at)];
};

/** Units back to stock and out of the holds. */
const unitsBack = (facts: Document, units: number, back: StockCases, change: Change): Alternative[] =>
  caseAlternatives(facts, merged(change, { inc: { stock: units } }, held(-1, -units)), back);

/** Events not yet relayed stay on the server: a relay that falls behind must not make every read carry them. */
const withoutOutbox = { outbox: 0 } as const;

/** The pets with a move or a lifecycle step in flight, and those with marks: recovery's work lists. */
const MOVING: WorkIndex = {
  name: "moving",
  key: { movingTo: 1 },
  only: { movingTo: { $exists: true } },
  replaces: "movingTo_1",
};
const PROVISIONAL: WorkIndex = {
  name: "provisional",
  key: { lifecycle: 1 },
  only: { lifecycle: { $exists: true } },
  replaces: "lifecycle_1",
};
const MARKED: WorkIndex = {
  name: "marked",
  key: { markCount: 1, _id: 1 },
  only: { markCount: { $gt: 0 } },
  replaces: "markCount_1__id_1",
};

/**
 * The listing of every pet by id walks `_id` in order, stepping over the `gone` tombstones in the page's range: the
 * test engine (DocumentDB) reads any other index's ranges whole and sorts them, which costs every live pet a page.
 */
const BY_ID = "_id_";
/** The name order of every pet: a name key no less than "" leaves out the tombstones, which have none. */
const BY_NAME = { name: "nameOrder_1__id_1", key: { nameOrder: 1, _id: 1 } } as const;

/** Listings walk the full ones (by status, category, name and the name order); recovery and the relay the work indexes. */
export const createPetIndexes = async (db: Db): Promise<void> => {
  // One index per command: the first test engine (FerretDB 1.24) dropped the connection when one createIndexes named
  // several existing ones, and one command per index costs nothing that matters at start-up.
  const pets = db.collection("pets");
  await pets.createIndex({ status: 1, _id: 1 });
  await pets.createIndex({ categoryId: 1, _id: 1 });
  // Name search and the name order: stored keys, since DocumentDB (FerretDB v2) has no collation indexes.
  await pets.createIndex({ nameKey: 1, _id: 1 });
  await pets.createIndex(BY_NAME.key, { name: BY_NAME.name });
  await createWorkIndexes(pets, [MOVING, PROVISIONAL, MARKED, PENDING_EVENTS, PENDING_EVENT_IDS]);
};

/** Named after the key's latest definition: a new name makes every database rewrite the keys that differ, once. */
const NAME_KEYS_FOLDED = { _id: "pet-name-keys-capital-sharp-s-folded" };

/**
 * Gives pets written before `nameKey` or `nameOrder` existed their keys; a pet renamed meanwhile already has its new
 * ones. Once per database and key definition, it also rewrites the keys written by an earlier definition (lower-cased
 * only: ß, ς and ligatures differ; before ẞ was folded as ß), then notes that in `migrations`, so later start-ups walk only pets without a key. Safe on several
 * instances at once.
 */
export const migratePetNameKeys = async (db: Db): Promise<void> => {
  const pets = db.collection<PetDocument>("pets");
  for await (const doc of pets.find({ nameKey: { $exists: false }, ...petNotGone }, { projection: { name: 1 } })) {
    await pets.updateOne(
      { _id: doc._id, name: doc.name, nameKey: { $exists: false } },
      { $set: fieldsDocument({ name: doc.name }) },
    );
  }
  const migrations = db.collection<{ _id: string }>("migrations");
  if (!(await migrations.findOne(NAME_KEYS_FOLDED))) {
    for await (const doc of pets.find(petNotGone, { projection: { name: 1, nameKey: 1 } })) {
      const keys = fieldsDocument({ name: doc.name });
      if (doc.nameKey !== keys.nameKey) await pets.updateOne({ _id: doc._id, name: doc.name }, { $set: keys });
    }
    await migrations.updateOne(NAME_KEYS_FOLDED, { $set: { at: new Date() } }, { upsert: true });
  }
  for await (const doc of pets.find({ nameOrder: { $exists: false }, ...petNotGone }, { projection: { name: 1 } })) {
    await pets.updateOne(
      { _id: doc._id, name: doc.name, nameOrder: { $exists: false } },
      { $set: fieldsDocument({ name: doc.name }) },
    );
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

/** The name conditions of a listing: its prefix (`nameKey`), and with the name order the page's cursor (`nameOrder`). */
const nameKeyFilter = (query: PetQuery): Filter<PetDocument>[] => {
  const parts: Filter<PetDocument>[] = [];
  if (query.namePrefix !== undefined) {
    const end = prefixEnd(query.namePrefix);
    parts.push({ nameKey: { $gte: query.namePrefix, ...(end !== undefined && { $lt: end }) } });
  }
  if (query.sort === "name")
    parts.push(
      query.afterName === undefined
        ? { nameOrder: { $gte: "" } }
        : {
            $or: [
              { nameOrder: { $gt: query.afterName } },
              { nameOrder: query.afterName, _id: { $gt: query.after ?? -Infinity } },
            ],
          },
    );
  return parts;
};

/**
 * Every write is one `findOneAndUpdate` per alternative at most: the server checks the filter and applies the update
 * atomically per document. A write's alternatives exclude each other, so trying them in turn is safe under any
 * interleaving; a refused write reads the pet once so core can explain it.
 */
export class MongoPets implements Pets {
  readonly #pets: Collection<PetDocument>;
  constructor(db: Db) {
    this.#pets = db.collection<PetDocument>("pets");
  }

  ofId(id: number): Promise<PetRecord | undefined> {
    return guarded(async () => {
      const doc = await this.#pets.findOne({ _id: id, ...petNotGone }, { projection: withoutOutbox });
      return doc ? toRecord(doc) : undefined;
    });
  }

  list(query: PetQuery): Promise<PetRecord[]> {
    return guarded(async () => {
      const named = nameKeyFilter(query);
      // Every pet, not looked up by id: the listing's index is named, so no plan reads the whole collection and sorts.
      const everyPet =
        query.ids === undefined &&
        query.statuses === undefined &&
        query.categoryId === undefined &&
        query.namePrefix === undefined;
      const byId = query.sort !== "name";
      const filter: Filter<PetDocument> = {
        ...visibleNow,
        ...(query.statuses !== undefined && { status: { $in: [...query.statuses] } }),
        ...(query.categoryId !== undefined && { categoryId: query.categoryId }),
        ...(named.length > 0 && { $and: named }),
      };
      if (byId)
        return (
          await findPage(this.#pets, filter, query, {
            ids: query.ids,
            projection: withoutOutbox,
            descending: query.sort === "-id",
            hint: everyPet ? BY_ID : undefined,
          })
        ).map(toRecord);
      const byName = query.ids === undefined ? filter : { ...filter, _id: { $in: [...query.ids] } };
      const docs = await this.#pets
        .find(byName, { projection: withoutOutbox, ...(everyPet && { hint: BY_NAME.name }) })
        .sort({ nameOrder: 1, _id: 1 })
        .limit(query.limit)
        .toArray();
      return docs.map(toRecord);
    });
  }

  insert(pet: PetRecord): Promise<void> {
    return guarded(async () => {
      await this.#pets.insertOne(toDocument(pet));
    });
  }

  reserve(r: Reservation): Promise<PetWrite> {
    const drops = r.drops ?? [];
    const facts = {
      ...visibleNow,
      status: "available",
      [markPath(r.orderId, "reserve")]: { $exists: false },
      ...fenceIs(r.orderId, r.fence),
      ...dropsFacts(drops),
    };
    const taken = merged(
      { inc: { stock: -r.units } },
      held(1, r.units),
      addMark({ orderId: r.orderId, kind: "reserve", units: r.units, since: r.at, nonce: r.nonce }),
      dropped(drops),
    );
    return this.#write(r.petId, caseAlternatives(facts, taken, r));
  }

  postReservation({ petId, orderId, nonce }: ReservationPosted): Promise<PetWrite> {
    return this.#write(petId, [[{ [`${markPath(orderId, "reserve")}.n`]: nonce }, removeMark(orderId, "reserve")]]);
  }

  voidReservation(u: ReservationVoided): Promise<PetWrite> {
    const path = markPath(u.orderId, "reserve");
    const facts = u.nonce === undefined ? { [path]: { $exists: true } } : { [`${path}.n`]: u.nonce };
    return this.#write(u.petId, unitsBack(facts, u.units, u, removeMark(u.orderId, "reserve")));
  }

  applySettlement(s: Settlement): Promise<PetWrite> {
    const drops = s.drops ?? [];
    // A reserve mark this write drops is not there after it: the drop's fact (its nonce) replaces "not there".
    const keeps = drops.some((d) => d.kind === "reserve" && d.orderId === s.orderId);
    const facts = {
      ...petNotGone,
      [markPath(s.orderId, "settle")]: { $exists: false },
      ...fenceIs(s.orderId, s.fence),
      ...(s.reservation !== undefined && !keeps && { [`${markPath(s.orderId, "reserve")}.n`]: { $ne: s.reservation } }),
      ...dropsFacts(drops),
    };
    const mark = merged(addMark({ orderId: s.orderId, kind: "settle", units: s.units, since: s.at }), dropped(drops));
    if (s.how === "release") return this.#write(s.petId, unitsBack(facts, s.units, s, mark));
    return this.#write(s.petId, caseAlternatives(facts, merged(mark, held(-1, -s.units)), s));
  }

  clearSettleMark({ petId, orderId }: SettleMarkCleared): Promise<PetWrite> {
    const path = markPath(orderId, "settle");
    return this.#write(petId, [[{ [path]: { $exists: true } }, removeMark(orderId, "settle")]]);
  }

  dropMarks({ petId, drops }: MarksDropped): Promise<PetWrite> {
    return this.#write(petId, [[dropsFacts(drops), dropped(drops)]]);
  }

  setStock(s: StockSetting): Promise<PetWrite> {
    const facts = { ...visibleNow, heldUnits: { $lte: s.heldAtMost }, ...ofRevision(s.expectedRevision) };
    return this.#write(s.petId, caseAlternatives(facts, { set: { stock: s.quantity } }, s));
  }

  edit(e: Edit): Promise<PetWrite> {
    const facts = { ...visibleNow, status: e.checkedStatus, ...ofRevision(e.expectedRevision) };
    return this.#write(e.petId, [[facts, merged(edited(e.fields), consequence(e))]]);
  }

  beginMove({ petId, to, since, expectedRevision }: MoveStart): Promise<PetWrite> {
    return this.#write(petId, [
      [{ ...visibleNow, revision: expectedRevision }, { set: { movingTo: to, provisionalSince: since } }],
    ]);
  }

  finishMove(m: MoveFinish): Promise<PetWrite> {
    const facts = { movingTo: m.to, provisionalSince: m.since, ...visibleNow, status: m.checkedStatus };
    const landed: Change = { set: { categoryId: m.to }, unset: ["movingTo", "provisionalSince"] };
    return this.#write(m.petId, [[facts, merged(edited(m.fields), consequence(m), landed)]]);
  }

  undoMove({ petId, to, since }: MoveUndone): Promise<PetWrite> {
    return this.#write(petId, [
      [{ movingTo: to, provisionalSince: since }, { unset: ["movingTo", "provisionalSince"] }],
    ]);
  }

  finishCreating(petId: number): Promise<PetWrite> {
    return this.#write(petId, [[{ lifecycle: "creating" }, { unset: ["lifecycle", "provisionalSince"] }]]);
  }

  beginDeleting({ petId, since, expectedRevision }: DeletingStart): Promise<PetWrite> {
    const facts = { ...visibleNow, holdCount: 0, ...ofRevision(expectedRevision) };
    return this.#write(petId, [[facts, { set: { lifecycle: "deleting", provisionalSince: since } }]]);
  }

  /** The pet leaves its `gone` tombstone (gone.ts), as a removed `deleting` one does. */
  removeCreating(petId: number, since?: Date): Promise<boolean> {
    const filter = {
      _id: petId,
      lifecycle: "creating" as const,
      ...(since !== undefined && { provisionalSince: since }),
    };
    return guarded(async () => (await this.#pets.updateOne(filter, gonePet)).matchedCount === 1);
  }

  /** It leaves its `gone` tombstone, which keeps the events still pending on it for the relay (gone.ts). */
  removeDeleting(petId: number): Promise<boolean> {
    const filter = { _id: petId, lifecycle: "deleting" as const };
    return guarded(async () => (await this.#pets.updateOne(filter, gonePet)).matchedCount === 1);
  }

  #write(id: number, alternatives: readonly Alternative[]): Promise<PetWrite> {
    return guarded(async () => {
      for (const [facts, change] of alternatives) {
        const filter = { ...facts, _id: id } as Filter<PetDocument>;
        const doc = await this.#pets.findOneAndUpdate(filter, updateOf(change), {
          returnDocument: "after",
          projection: withoutOutbox,
        });
        if (doc) return { applied: true, pet: toRecord(doc) };
      }
      const doc = await this.#pets.findOne({ _id: id, ...petNotGone }, { projection: withoutOutbox });
      return { applied: false, pet: doc ? toRecord(doc) : undefined };
    });
  }

  anyNaming(categoryId: number): Promise<boolean> {
    return guarded(async () => {
      // Moves first: a pet goes from movingTo = c to categoryId = c in one write, so a move finishing between the two
      // reads is seen by the second; read the other way round (or at once), it could be missed by both.
      if (await this.#pets.findOne({ movingTo: categoryId }, { projection: { _id: 1 }, hint: MOVING.name }))
        return true;
      return (await this.#pets.findOne({ categoryId }, { projection: { _id: 1 } })) !== null;
    });
  }

  provisional(page: PageRequest): Promise<PetRecord[]> {
    return guarded(async () => {
      const [inLifecycle, moving] = await Promise.all([
        // By name, not only `$exists` (which the partial index's filter needs): a `gone` tombstone is in the index.
        findPage(this.#pets, { lifecycle: { $exists: true, $in: ["creating", "deleting"] } }, page, {
          projection: withoutOutbox,
          hint: PROVISIONAL.name,
        }),
        findPage(this.#pets, { movingTo: { $exists: true } }, page, { projection: withoutOutbox, hint: MOVING.name }),
      ]);
      const byId = new Map([...inLifecycle, ...moving].map((doc) => [doc._id, doc]));
      return [...byId.values()]
        .sort((a, b) => a._id - b._id)
        .slice(0, page.limit)
        .map(toRecord);
    });
  }

  withMarks(page: PageRequest): Promise<PetRecord[]> {
    return guarded(async () =>
      (
        await findPage(this.#pets, { markCount: { $gt: 0 } }, page, { projection: withoutOutbox, hint: MARKED.name })
      ).map(toRecord),
    );
  }
}
