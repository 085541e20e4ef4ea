import type { DomainEvent } from "../../core/events/domain-event.ts";
import { fenceBucket, fenceOf, type Mark, type PetRecord } from "../../core/pets/pet-record.ts";
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
import { compareNameKeys, nameKeyOf, nameOrderKeyOf } from "../../core/pets/pet-name-key.ts";
import { OrderedMap } from "./memory-ordered-map.ts";
import { MemoryPendingEvents, type StoredEvent } from "./memory-pending-events.ts";

/** One pet, replaced (never changed in place) by a write: a reader's copy is the stored value at that instant. */
export interface StoredPet {
  pet: PetRecord;
}

const copyMark = (m: Mark): Mark => ({ ...m, since: new Date(m.since) });
/** A copy the caller may change: the record, its marks and fences. */
const copyOf = ({ pet }: StoredPet): PetRecord => ({
  ...pet,
  marks: pet.marks.map(copyMark),
  fences: { ...pet.fences },
  provisionalSince: pet.provisionalSince && new Date(pet.provisionalSince),
});

const hasMark = (pet: PetRecord, orderId: number, kind: Mark["kind"], nonce?: string): boolean =>
  pet.marks.some((m) => m.orderId === orderId && m.kind === kind && (nonce === undefined || m.nonce === nonce));

const byOrderThenKind = (a: Mark, b: Mark): number =>
  a.orderId - b.orderId || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0);
/** Inserted in order; a new order's mark nearly always goes last. */
const withMark = (pet: PetRecord, mark: Mark): Mark[] => {
  const marks = pet.marks.slice();
  let at = marks.length;
  while (at > 0 && byOrderThenKind(marks[at - 1]!, mark) > 0) at--;
  marks.splice(at, 0, copyMark(mark));
  return marks;
};
const withoutMark = (pet: PetRecord, orderId: number, kind: Mark["kind"]): Mark[] =>
  pet.marks.filter((m) => !(m.orderId === orderId && m.kind === kind));
/** A mark dropped moves the fence of its bucket on: a late copy of the write that added it is refused. */
const dropped = (pet: PetRecord, orderId: number, kind: Mark["kind"]): Partial<PetRecord> => ({
  marks: withoutMark(pet, orderId, kind),
  fences: { ...pet.fences, [fenceBucket(orderId)]: fenceOf(pet, orderId) + 1 },
});

/** The pet without the drops' marks, their fences moved on; undefined unless every mark is there. */
const withoutDrops = (pet: PetRecord, drops: readonly MarkDrop[]): PetRecord | undefined => {
  let rest = pet;
  for (const d of drops) {
    if (!hasMark(rest, d.orderId, d.kind, d.kind === "reserve" ? d.nonce : undefined)) return undefined;
    rest = { ...rest, ...dropped(rest, d.orderId, d.kind) };
  }
  return rest;
};

const visible = (pet: PetRecord): boolean => pet.lifecycle === undefined;
const revisionHolds = (pet: PetRecord, expected: number | undefined): boolean =>
  expected === undefined || pet.revision === expected;
const sameDate = (a: Date | undefined, b: Date): boolean => a?.getTime() === b.getTime();

/** A change the store applies: the pet's new fields (revision + 1 added here) and the events it appends. */
interface Applied {
  pet: Partial<PetRecord>;
  events?: readonly DomainEvent[] | undefined;
}

const caused = (c: Consequence): Partial<PetRecord> =>
  c.status ? { status: c.status.to, pendingCause: c.status.cause } : {};
const withConsequence = (change: Partial<PetRecord>, c: Consequence): Applied => ({
  pet: { ...change, ...caused(c) },
  events: c.events,
});

const within = (value: number, bound: Bound | undefined): boolean =>
  bound === undefined || ("eq" in bound ? value === bound.eq : value > bound.gt);
/** Core's facts checked on the record, as MongoDB checks them as a filter. */
const factsHold = (when: StockFacts, pet: PetRecord): boolean =>
  within(pet.stock, when.stock) &&
  within(pet.holdCount, when.holdCount) &&
  (when.status === undefined || pet.status === when.status) &&
  (when.pendingCause === undefined || pet.pendingCause === when.pendingCause);

/** The change with the consequence of core's first case that holds for the pet; undefined (refused) when none does. */
const withCaseOf = (pet: PetRecord, { cases }: StockCases, change: Partial<PetRecord>): Applied | undefined => {
  const applies = cases.find((c) => factsHold(c.when, pet));
  return applies && withConsequence(change, applies.then);
};

/** Units back to stock and out of the holds. */
const unitsBack = (pet: PetRecord, units: number, back: StockCases, change: Partial<PetRecord>): Applied | undefined =>
  withCaseOf(pet, back, {
    ...change,
    stock: pet.stock + units,
    holdCount: pet.holdCount - 1,
    heldUnits: pet.heldUnits - units,
  });

/** A record's fields an edit keeps: all but those PUT sets (PetFields). */
const keptByEdit = {
  id: true,
  categoryId: true,
  status: true,
  revision: true,
  stock: true,
  holdCount: true,
  heldUnits: true,
  pendingCause: true,
  marks: true,
  fences: true,
  lifecycle: true,
  movingTo: true,
  provisionalSince: true,
} satisfies Record<Exclude<keyof PetRecord, keyof PetFields>, true>;

/** `fields` in place of the pet's own: an optional field of the pet they leave out becomes undefined. */
const edited = (pet: PetRecord, e: Omit<Edit, "expectedRevision" | "petId">): Applied => {
  const gone: Partial<Record<keyof PetRecord, undefined>> = {};
  for (const key of Object.keys(pet) as (keyof PetRecord)[]) if (!Object.hasOwn(keptByEdit, key)) gone[key] = undefined;
  return withConsequence({ ...gone, ...e.fields }, e);
};
const isProvisional = ({ pet }: StoredPet): boolean => pet.lifecycle !== undefined || pet.movingTo !== undefined;
const isMarked = ({ pet }: StoredPet): boolean => pet.marks.length > 0;

/** What the indexes go by, taken before a write replaces the pet. */
interface IndexedAs {
  pet: PetRecord;
  provisional: boolean;
  marked: boolean;
}
const indexedAs = (stored: StoredPet): IndexedAs => ({
  pet: stored.pet,
  provisional: isProvisional(stored),
  marked: isMarked(stored),
});

/**
 * Every write checks and changes one pet without awaiting in between: atomic within the process. Besides the pets
 * by id, ordered indexes (all pets, provisional ones, ones with holds) and the count of pets naming each category
 * are kept up to date by the same synchronous step, so no request scans or sorts the whole store.
 */
export class MemoryPets implements Pets {
  readonly #pets = new Map<number, StoredPet>();
  readonly #events = new MemoryPendingEvents();
  readonly #all = new OrderedMap<StoredPet>();
  readonly #provisional = new OrderedMap<StoredPet>();
  readonly #marked = new OrderedMap<StoredPet>();
  readonly #naming = new Map<number, number>();
  /** The ids of removed pets, taken for good: a late copy of an insert is refused (docs/consistency.md#late-copies). */
  readonly #gone = new Set<number>();

  async ofId(id: number): Promise<PetRecord | undefined> {
    const stored = this.#pets.get(id);
    return stored && copyOf(stored);
  }

  async list(query: PetQuery): Promise<PetRecord[]> {
    const { statuses, categoryId, ids, after, namePrefix, sort = "id" } = query;
    const matches = ({ pet }: StoredPet) =>
      pet.lifecycle === undefined &&
      (statuses === undefined || statuses.includes(pet.status)) &&
      (categoryId === undefined || pet.categoryId === categoryId) &&
      (namePrefix === undefined || nameKeyOf(pet.name).startsWith(namePrefix));
    if (sort === "name") return this.#byName(query, matches);
    const descending = sort === "-id";
    const candidates =
      ids === undefined
        ? descending
          ? this.#all.valuesBefore(after)
          : this.#all.valuesAfter(after)
        : this.#ofIds(ids, after, descending);
    return pageOf(candidates, query.limit, copyOf, matches);
  }

  /**
   * The name order has no index here: the matching pets are sorted on each request. The memory store serves
   * development and tests, not catalogues of a size where that shows (MongoDB's has its index).
   */
  #byName(query: PetQuery, matches: (stored: StoredPet) => boolean): PetRecord[] {
    const { ids, after, afterName } = query;
    const keyed: { key: string; stored: StoredPet }[] = [];
    const candidates = ids === undefined ? this.#all.valuesAfter() : this.#ofIds(ids, undefined, false);
    for (const stored of candidates) {
      if (!matches(stored)) continue;
      const key = nameOrderKeyOf(nameKeyOf(stored.pet.name));
      if (afterName !== undefined) {
        const order = compareNameKeys(key, afterName);
        if (order < 0 || (order === 0 && stored.pet.id <= (after ?? -Infinity))) continue;
      }
      keyed.push({ key, stored });
    }
    keyed.sort((a, b) => compareNameKeys(a.key, b.key) || a.stored.pet.id - b.stored.pet.id);
    return keyed.slice(0, query.limit).map(({ stored }) => copyOf(stored));
  }

  async insert(pet: PetRecord): Promise<void> {
    if (this.#pets.has(pet.id) || this.#gone.has(pet.id)) throw new Error(`Pet ${pet.id} exists already`);
    const stored: StoredPet = { pet: copyOf({ pet }) };
    this.#pets.set(pet.id, stored);
    this.#all.set(pet.id, stored);
    this.#reindex(pet.id, undefined, stored);
  }

  async reserve(r: Reservation): Promise<PetWrite> {
    return this.#write(r.petId, (pet) => {
      if (!visible(pet) || pet.status !== "available" || hasMark(pet, r.orderId, "reserve")) return undefined;
      if (fenceOf(pet, r.orderId) !== r.fence) return undefined;
      const rest = withoutDrops(pet, r.drops ?? []);
      if (!rest) return undefined;
      const mark: Mark = { orderId: r.orderId, kind: "reserve", units: r.units, since: r.at, nonce: r.nonce };
      const change = {
        stock: pet.stock - r.units,
        holdCount: pet.holdCount + 1,
        heldUnits: pet.heldUnits + r.units,
        marks: withMark(rest, mark),
        fences: rest.fences,
      };
      return withCaseOf(pet, r, change);
    });
  }

  async dropMarks({ petId, drops }: MarksDropped): Promise<PetWrite> {
    return this.#write(petId, (pet) => {
      const rest = withoutDrops(pet, drops);
      return rest && { pet: { marks: rest.marks, fences: rest.fences } };
    });
  }

  async postReservation({ petId, orderId, nonce }: ReservationPosted): Promise<PetWrite> {
    return this.#write(petId, (pet) =>
      hasMark(pet, orderId, "reserve", nonce) ? { pet: dropped(pet, orderId, "reserve") } : undefined,
    );
  }

  async voidReservation(u: ReservationVoided): Promise<PetWrite> {
    return this.#write(u.petId, (pet) =>
      hasMark(pet, u.orderId, "reserve", u.nonce)
        ? unitsBack(pet, u.units, u, dropped(pet, u.orderId, "reserve"))
        : undefined,
    );
  }

  async applySettlement(s: Settlement): Promise<PetWrite> {
    return this.#write(s.petId, (pet) => {
      if (hasMark(pet, s.orderId, "settle") || fenceOf(pet, s.orderId) !== s.fence) return undefined;
      const rest = withoutDrops(pet, s.drops ?? []);
      if (!rest) return undefined;
      if (s.reservation !== undefined && hasMark(rest, s.orderId, "reserve", s.reservation)) return undefined;
      const marks = withMark(rest, { orderId: s.orderId, kind: "settle", units: s.units, since: s.at });
      if (s.how === "release") return unitsBack(pet, s.units, s, { marks, fences: rest.fences });
      return withCaseOf(pet, s, {
        marks,
        fences: rest.fences,
        holdCount: pet.holdCount - 1,
        heldUnits: pet.heldUnits - s.units,
      });
    });
  }

  async clearSettleMark({ petId, orderId }: SettleMarkCleared): Promise<PetWrite> {
    return this.#write(petId, (pet) =>
      hasMark(pet, orderId, "settle") ? { pet: dropped(pet, orderId, "settle") } : undefined,
    );
  }

  async setStock(s: StockSetting): Promise<PetWrite> {
    return this.#write(s.petId, (pet) => {
      if (!visible(pet) || pet.heldUnits > s.heldAtMost || !revisionHolds(pet, s.expectedRevision)) return undefined;
      return withCaseOf(pet, s, { stock: s.quantity });
    });
  }

  async edit(e: Edit): Promise<PetWrite> {
    return this.#write(e.petId, (pet) =>
      visible(pet) && pet.status === e.checkedStatus && revisionHolds(pet, e.expectedRevision)
        ? edited(pet, e)
        : undefined,
    );
  }

  async beginMove({ petId, to, since, expectedRevision }: MoveStart): Promise<PetWrite> {
    return this.#write(petId, (pet) =>
      visible(pet) && pet.revision === expectedRevision
        ? { pet: { movingTo: to, provisionalSince: new Date(since) } }
        : undefined,
    );
  }

  async finishMove(m: MoveFinish): Promise<PetWrite> {
    return this.#write(m.petId, (pet) => {
      if (
        pet.movingTo !== m.to ||
        !sameDate(pet.provisionalSince, m.since) ||
        !visible(pet) ||
        pet.status !== m.checkedStatus
      )
        return undefined;
      const { pet: change, events } = edited(pet, m);
      return { pet: { ...change, categoryId: m.to, movingTo: undefined, provisionalSince: undefined }, events };
    });
  }

  async undoMove({ petId, to, since }: MoveUndone): Promise<PetWrite> {
    return this.#write(petId, (pet) =>
      pet.movingTo === to && sameDate(pet.provisionalSince, since)
        ? { pet: { movingTo: undefined, provisionalSince: undefined } }
        : undefined,
    );
  }

  async finishCreating(petId: number): Promise<PetWrite> {
    return this.#write(petId, (pet) =>
      pet.lifecycle === "creating" ? { pet: { lifecycle: undefined, provisionalSince: undefined } } : undefined,
    );
  }

  async beginDeleting({ petId, since, expectedRevision }: DeletingStart): Promise<PetWrite> {
    return this.#write(petId, (pet) =>
      visible(pet) && pet.holdCount === 0 && revisionHolds(pet, expectedRevision)
        ? { pet: { lifecycle: "deleting", provisionalSince: new Date(since) } }
        : undefined,
    );
  }

  async removeCreating(petId: number, since?: Date): Promise<boolean> {
    return this.#remove(
      petId,
      (pet) => pet.lifecycle === "creating" && (since === undefined || sameDate(pet.provisionalSince, since)),
    );
  }

  async removeDeleting(petId: number): Promise<boolean> {
    return this.#remove(petId, (pet) => pet.lifecycle === "deleting");
  }

  /** Checks and changes the pet in one synchronous step: `change` answers undefined when its facts do not hold. */
  #write(id: number, change: (pet: PetRecord) => Applied | undefined): PetWrite {
    const stored = this.#pets.get(id);
    if (!stored) return { applied: false, pet: undefined };
    const applied = change(stored.pet);
    if (!applied) return { applied: false, pet: copyOf(stored) };
    const before = indexedAs(stored);
    stored.pet = { ...stored.pet, ...applied.pet, revision: stored.pet.revision + 1 };
    this.#events.add(id, applied.events ?? []);
    this.#reindex(id, before, stored);
    return { applied: true, pet: copyOf(stored) };
  }

  /** Its pending events stay to be relayed: a change acknowledged before the removal still yields its event. */
  #remove(id: number, holds: (pet: PetRecord) => boolean): boolean {
    const stored = this.#pets.get(id);
    if (!stored || !holds(stored.pet)) return false;
    this.#gone.add(id);
    this.#pets.delete(id);
    this.#all.delete(id);
    this.#reindex(id, indexedAs(stored), undefined);
    return true;
  }

  async anyNaming(categoryId: number): Promise<boolean> {
    return (this.#naming.get(categoryId) ?? 0) > 0;
  }

  async provisional(page: PageRequest): Promise<PetRecord[]> {
    return pageOf(this.#provisional.valuesAfter(page.after), page.limit, copyOf);
  }

  async withMarks(page: PageRequest): Promise<PetRecord[]> {
    return pageOf(this.#marked.valuesAfter(page.after), page.limit, copyOf);
  }

  /** `listener` is called after each write that records events on the pets (the outbox's, which wakes its relays). */
  onEvents(listener: () => void): void {
    this.#events.onAdd = listener;
  }

  /** The outbox's view: up to `limit` of the pets' pending events, oldest first, as stored (the outbox copies what it hands out). */
  oldestEvents(limit: number): StoredEvent[] {
    return this.#events.oldest(limit);
  }

  /** Removes these events: `handed` as `oldestEvents` gave them, `ids` by id. */
  acknowledge(handed: readonly StoredEvent[], ids: readonly string[]): void {
    this.#events.acknowledge(handed, ids);
  }

  /** These pets past `after` in id order (descending: below it). */
  #ofIds(ids: readonly number[], after: number | undefined, descending: boolean): StoredPet[] {
    const past = (id: number) => after === undefined || (descending ? id < after : id > after);
    if (ids.length === 1) {
      const stored = past(ids[0]!) ? this.#pets.get(ids[0]!) : undefined;
      return stored ? [stored] : [];
    }
    return [...new Set(ids)]
      .filter(past)
      .sort((a, b) => (descending ? b - a : a - b))
      .flatMap((id) => this.#pets.get(id) ?? []);
  }

  /** `was`: how the pet was indexed before the change (undefined: inserted); `now`: the pet after it (undefined: removed). */
  #reindex(id: number, was: IndexedAs | undefined, now: StoredPet | undefined): void {
    toggle(this.#provisional, id, now, was?.provisional ?? false, now !== undefined && isProvisional(now));
    toggle(this.#marked, id, now, was?.marked ?? false, now !== undefined && isMarked(now));
    if (was && now && was.pet.categoryId === now.pet.categoryId && was.pet.movingTo === now.pet.movingTo) return;
    if (was) this.#countNaming(was.pet, -1);
    if (now) this.#countNaming(now.pet, 1);
  }

  #countNaming(pet: PetRecord, by: number): void {
    for (const categoryId of pet.movingTo === undefined ? [pet.categoryId] : [pet.categoryId, pet.movingTo]) {
      const count = (this.#naming.get(categoryId) ?? 0) + by;
      if (count === 0) this.#naming.delete(categoryId);
      else this.#naming.set(categoryId, count);
    }
  }
}

const toggle = (
  index: OrderedMap<StoredPet>,
  id: number,
  entry: StoredPet | undefined,
  was: boolean,
  now: boolean,
): void => {
  if (was === now) return;
  if (now && entry) index.set(id, entry);
  else index.delete(id);
};

/** Up to `limit` of the candidates (ascending id) that match, each made into what the caller gets; stops at the limit. */
const pageOf = <T>(
  candidates: Iterable<StoredPet>,
  limit: number,
  as: (stored: StoredPet) => T,
  matches: (stored: StoredPet) => boolean = () => true,
): T[] => {
  const page: T[] = [];
  for (const stored of candidates) {
    if (page.length >= limit) break;
    if (matches(stored)) page.push(as(stored));
  }
  return page;
};
