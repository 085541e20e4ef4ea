import type { Hold, ListedPet, PetRecord, WrittenPet } from "../../core/pets/pet-record.ts";
import { namedOrders, type PetChange, type PetCondition, type PetQuery, type Pets, type PetVariant, type PetWrite } from "../../core/pets/pets.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { compareNameKeys, nameKeyOf } from "../../core/pets/pet-name-key.ts";
import { OrderedMap } from "./memory-ordered-map.ts";
import { MemoryPendingEvents, type StoredEvent } from "./memory-pending-events.ts";

type PetFields = Omit<PetRecord, "holds">;

/**
 * One pet: its fields, replaced (never changed) by a write, and its holds by order id, changed in place (a write adds
 * or drops one in O(1)). Only recovery's pages hand the holds out, copied (ofId, listings and writes leave them).
 */
export interface StoredPet {
  pet: PetFields;
  readonly holds: Map<number, StoredHold>;
}

/**
 * A hold as kept: its time in ms, not a Date. A popular pet keeps very many holds for as long as their orders are
 * open, and each is one object instead of two; every hold still passes young collections before it settles.
 */
interface StoredHold {
  readonly orderId: number;
  readonly units: number;
  readonly since: number | undefined;
}

const storedHold = (h: Hold): StoredHold => ({ orderId: h.orderId, units: h.units, since: h.since?.getTime() });
const copyHold = (h: StoredHold): Hold => ({ orderId: h.orderId, units: h.units, since: h.since === undefined ? undefined : new Date(h.since) });

const copyFields = (p: PetFields): PetFields => ({ ...p, provisionalSince: p.provisionalSince && new Date(p.provisionalSince) });

/** The pet as a listing gets it: a copy without its holds. */
const listedOf = ({ pet }: StoredPet): ListedPet => ({
  id: pet.id,
  name: pet.name,
  categoryId: pet.categoryId,
  status: pet.status,
  revision: pet.revision,
  stock: pet.stock,
  lifecycle: pet.lifecycle,
  movingTo: pet.movingTo,
  provisionalSince: pet.provisionalSince && new Date(pet.provisionalSince),
});

/** The pet with copies of its holds, in ascending order id (as MongoDB's adapter sorts them): recovery's pages. */
const recordOf = (stored: StoredPet): PetRecord => {
  const holds = Array.from(stored.holds.values(), copyHold);
  return { ...listedOf(stored), holds: holds.sort((a, b) => a.orderId - b.orderId) };
};

/** The pet as a write leaves it: its holds' count, and copies of the holds of the orders named (not the others). */
const writtenOf = (stored: StoredPet, named: readonly number[]): WrittenPet => {
  const namedHolds: Hold[] = [];
  for (const orderId of named) {
    const hold = stored.holds.get(orderId);
    if (hold) namedHolds.push(copyHold(hold));
  }
  return { ...listedOf(stored), holdCount: stored.holds.size, namedHolds };
};

const compare = (value: number, bound: { eq: number } | { gt: number }): boolean =>
  "eq" in bound ? value === bound.eq : value > bound.gt;

/** The same semantics as the MongoDB filter the MongoDB adapter builds from a condition (contract-tested). */
export const petMeets = ({ pet, holds }: StoredPet, c: PetCondition): boolean =>
  (c.lifecycle === undefined || (c.lifecycle === "none" ? pet.lifecycle === undefined : pet.lifecycle === c.lifecycle)) &&
  (c.status === undefined || pet.status === c.status) &&
  (c.statusNot === undefined || pet.status !== c.statusNot) &&
  (c.stock === undefined || compare(pet.stock, c.stock)) &&
  (c.hold === undefined || holds.get(c.hold.orderId)?.units === c.hold.units) &&
  (c.noHoldOf === undefined || !holds.has(c.noHoldOf)) &&
  (c.holdCount === undefined || compare(holds.size, c.holdCount)) &&
  (c.revision === undefined || pet.revision === c.revision) &&
  (c.movingTo === undefined || (c.movingTo === "none" ? pet.movingTo === undefined : pet.movingTo === c.movingTo)) &&
  (c.provisionalSince === undefined || pet.provisionalSince?.getTime() === c.provisionalSince.getTime());

const changedFields = (pet: PetFields, c: PetChange): PetFields => ({
  ...pet,
  ...(c.name !== undefined && { name: c.name }),
  ...(c.categoryId !== undefined && { categoryId: c.categoryId }),
  ...(c.status !== undefined && { status: c.status }),
  ...(c.stock !== undefined && { stock: "to" in c.stock ? c.stock.to : pet.stock + c.stock.by }),
  ...(c.lifecycle !== undefined && { lifecycle: c.lifecycle === "none" ? undefined : c.lifecycle }),
  ...(c.movingTo !== undefined && { movingTo: c.movingTo === "none" ? undefined : c.movingTo }),
  ...(c.provisionalSince !== undefined && {
    provisionalSince: c.provisionalSince === "none" ? undefined : new Date(c.provisionalSince),
  }),
  revision: pet.revision + 1,
});

const changeHolds = (holds: Map<number, StoredHold>, c: PetChange): void => {
  if (c.removeHoldOf !== undefined) holds.delete(c.removeHoldOf);
  if (c.addHold) holds.set(c.addHold.orderId, storedHold(c.addHold));
};

const isProvisional = ({ pet }: StoredPet): boolean => pet.lifecycle !== undefined || pet.movingTo !== undefined;
const isHolding = ({ holds }: StoredPet): boolean => holds.size > 0;

/** What the indexes go by, taken before a write changes the holds in place. */
interface IndexedAs {
  pet: PetFields;
  provisional: boolean;
  holding: boolean;
}
const indexedAs = (stored: StoredPet): IndexedAs => ({ pet: stored.pet, provisional: isProvisional(stored), holding: isHolding(stored) });

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
  readonly #holding = new OrderedMap<StoredPet>();
  readonly #naming = new Map<number, number>();

  async ofId(id: number): Promise<ListedPet | undefined> {
    const stored = this.#pets.get(id);
    return stored && listedOf(stored);
  }

  async list(query: PetQuery): Promise<ListedPet[]> {
    const { statuses, categoryId, ids, after, namePrefix, sort = "id" } = query;
    const matches = ({ pet }: StoredPet) =>
      pet.lifecycle === undefined &&
      (statuses === undefined || statuses.includes(pet.status)) &&
      (categoryId === undefined || pet.categoryId === categoryId) &&
      (namePrefix === undefined || nameKeyOf(pet.name).startsWith(namePrefix));
    if (sort === "name") return this.#byName(query, matches);
    const descending = sort === "-id";
    const candidates =
      ids === undefined ? (descending ? this.#all.valuesBefore(after) : this.#all.valuesAfter(after)) : this.#ofIds(ids, after, descending);
    return pageOf(candidates, query.limit, listedOf, matches);
  }

  /**
   * The name order has no index here: the matching pets are sorted on each request. The memory store serves
   * development and tests, not catalogues of a size where that shows (MongoDB's has its index).
   */
  #byName(query: PetQuery, matches: (stored: StoredPet) => boolean): ListedPet[] {
    const { ids, after, afterName } = query;
    const keyed: { key: string; stored: StoredPet }[] = [];
    const candidates = ids === undefined ? this.#all.valuesAfter() : this.#ofIds(ids, undefined, false);
    for (const stored of candidates) {
      if (!matches(stored)) continue;
      const key = nameKeyOf(stored.pet.name);
      if (afterName !== undefined) {
        const order = compareNameKeys(key, afterName);
        if (order < 0 || (order === 0 && stored.pet.id <= (after ?? -Infinity))) continue;
      }
      keyed.push({ key, stored });
    }
    keyed.sort((a, b) => compareNameKeys(a.key, b.key) || a.stored.pet.id - b.stored.pet.id);
    return keyed.slice(0, query.limit).map(({ stored }) => listedOf(stored));
  }

  async insert(pet: PetRecord): Promise<void> {
    if (this.#pets.has(pet.id)) throw new Error(`Pet ${pet.id} exists already`);
    const { holds, ...fields } = pet;
    const stored: StoredPet = { pet: copyFields(fields), holds: new Map(holds.map((h) => [h.orderId, storedHold(h)] as const)) };
    this.#pets.set(pet.id, stored);
    this.#all.set(pet.id, stored);
    this.#reindex(pet.id, undefined, stored);
  }

  async write(id: number, variants: readonly PetVariant[]): Promise<PetWrite> {
    const stored = this.#pets.get(id);
    if (!stored) return { applied: undefined, pet: undefined };
    const applied = variants.findIndex((v) => petMeets(stored, v.when));
    if (applied === -1) return { applied: undefined, pet: writtenOf(stored, namedOrders(variants)) };
    const change = (variants[applied] as PetVariant).then;
    const before = indexedAs(stored);
    stored.pet = changedFields(stored.pet, change);
    changeHolds(stored.holds, change);
    this.#events.add(id, change.events ?? []);
    this.#reindex(id, before, stored);
    return { applied, pet: writtenOf(stored, namedOrders(variants)) };
  }

  async removeIf(id: number, when: PetCondition): Promise<boolean> {
    const stored = this.#pets.get(id);
    if (!stored || !petMeets(stored, when)) return false;
    this.#pets.delete(id);
    this.#all.delete(id);
    this.#reindex(id, indexedAs(stored), undefined);
    this.#events.drop(id);
    return true;
  }

  async anyNaming(categoryId: number): Promise<boolean> {
    return (this.#naming.get(categoryId) ?? 0) > 0;
  }

  async provisional(page: PageRequest): Promise<PetRecord[]> {
    return pageOf(this.#provisional.valuesAfter(page.after), page.limit, recordOf);
  }

  async withHolds(page: PageRequest): Promise<PetRecord[]> {
    return pageOf(this.#holding.valuesAfter(page.after), page.limit, recordOf);
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
    toggle(this.#holding, id, now, was?.holding ?? false, now !== undefined && isHolding(now));
    if (was && now && was.pet.categoryId === now.pet.categoryId && was.pet.movingTo === now.pet.movingTo) return;
    if (was) this.#countNaming(was.pet, -1);
    if (now) this.#countNaming(now.pet, 1);
  }

  #countNaming(pet: PetFields, by: number): void {
    for (const categoryId of pet.movingTo === undefined ? [pet.categoryId] : [pet.categoryId, pet.movingTo]) {
      const count = (this.#naming.get(categoryId) ?? 0) + by;
      if (count === 0) this.#naming.delete(categoryId);
      else this.#naming.set(categoryId, count);
    }
  }
}

const toggle = (index: OrderedMap<StoredPet>, id: number, entry: StoredPet | undefined, was: boolean, now: boolean): void => {
  if (was === now) return;
  if (now && entry) index.set(id, entry);
  else index.delete(id);
};

/** Up to `limit` of the candidates (ascending id) that match, each made into what the caller gets; stops at the limit. */
const pageOf = <T>(candidates: Iterable<StoredPet>, limit: number, as: (stored: StoredPet) => T, matches: (stored: StoredPet) => boolean = () => true): T[] => {
  const page: T[] = [];
  for (const stored of candidates) {
    if (page.length >= limit) break;
    if (matches(stored)) page.push(as(stored));
  }
  return page;
};
