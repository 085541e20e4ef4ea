import { fenceBucket, type Mark, type PetRecord } from "../../core/pets/pet-record.ts";
import type { PetChange, PetCondition, PetQuery, Pets, PetVariant, PetWrite } from "../../core/pets/pets.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { compareNameKeys, nameKeyOf } from "../../core/pets/pet-name-key.ts";
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

const compare = (value: number, bound: { eq: number } | { gt: number }): boolean =>
  "eq" in bound ? value === bound.eq : value > bound.gt;

const hasMark = (pet: PetRecord, orderId: number, kind: Mark["kind"], nonce?: string): boolean =>
  pet.marks.some((m) => m.orderId === orderId && m.kind === kind && (nonce === undefined || m.nonce === nonce));

/** The same semantics as the MongoDB filter the MongoDB adapter builds from a condition (contract-tested). */
export const petMeets = ({ pet }: StoredPet, c: PetCondition): boolean =>
  (c.lifecycle === undefined || (c.lifecycle === "none" ? pet.lifecycle === undefined : pet.lifecycle === c.lifecycle)) &&
  (c.status === undefined || pet.status === c.status) &&
  (c.statusNot === undefined || pet.status !== c.statusNot) &&
  (c.soldOut === undefined || (pet.pendingCause === "sold-out") === c.soldOut) &&
  (c.stock === undefined || compare(pet.stock, c.stock)) &&
  (c.holdCount === undefined || compare(pet.holdCount, c.holdCount)) &&
  (c.heldAtMost === undefined || pet.heldUnits <= c.heldAtMost) &&
  (c.mark === undefined || hasMark(pet, c.mark.orderId, c.mark.kind, c.mark.nonce)) &&
  (c.noMark === undefined || !hasMark(pet, c.noMark.orderId, c.noMark.kind)) &&
  (c.fence === undefined || (pet.fences[fenceBucket(c.fence.orderId)] ?? 0) === c.fence.value) &&
  (c.revision === undefined || pet.revision === c.revision) &&
  (c.movingTo === undefined || (c.movingTo === "none" ? pet.movingTo === undefined : pet.movingTo === c.movingTo)) &&
  (c.provisionalSince === undefined || pet.provisionalSince?.getTime() === c.provisionalSince.getTime());

const byOrderThenKind = (a: Mark, b: Mark): number => a.orderId - b.orderId || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0);

const changedMarks = (marks: Mark[], c: PetChange): Mark[] => {
  if (c.removeMark === undefined && c.addMark === undefined) return marks;
  const { removeMark: removed, addMark: added } = c;
  const kept = removed ? marks.filter((m) => !(m.orderId === removed.orderId && m.kind === removed.kind)) : [...marks];
  if (added) kept.push(copyMark(added));
  return kept.sort(byOrderThenKind);
};

const changedFences = (fences: Readonly<Record<number, number>>, orderId: number | undefined): Readonly<Record<number, number>> => {
  if (orderId === undefined) return fences;
  const bucket = fenceBucket(orderId);
  return { ...fences, [bucket]: (fences[bucket] ?? 0) + 1 };
};

const changed = (pet: PetRecord, c: PetChange): PetRecord => ({
  ...pet,
  ...(c.name !== undefined && { name: c.name }),
  ...(c.categoryId !== undefined && { categoryId: c.categoryId }),
  ...(c.status !== undefined && { status: c.status }),
  ...(c.pendingCause !== undefined && { pendingCause: c.pendingCause === "none" ? undefined : c.pendingCause }),
  ...(c.stock !== undefined && { stock: "to" in c.stock ? c.stock.to : pet.stock + c.stock.by }),
  ...(c.held !== undefined && { holdCount: pet.holdCount + c.held.orders, heldUnits: pet.heldUnits + c.held.units }),
  marks: changedMarks(pet.marks, c),
  fences: changedFences(pet.fences, c.bumpFence),
  ...(c.lifecycle !== undefined && { lifecycle: c.lifecycle === "none" ? undefined : c.lifecycle }),
  ...(c.movingTo !== undefined && { movingTo: c.movingTo === "none" ? undefined : c.movingTo }),
  ...(c.provisionalSince !== undefined && {
    provisionalSince: c.provisionalSince === "none" ? undefined : new Date(c.provisionalSince),
  }),
  revision: pet.revision + 1,
});

const isProvisional = ({ pet }: StoredPet): boolean => pet.lifecycle !== undefined || pet.movingTo !== undefined;
const isMarked = ({ pet }: StoredPet): boolean => pet.marks.length > 0;

/** What the indexes go by, taken before a write replaces the pet. */
interface IndexedAs {
  pet: PetRecord;
  provisional: boolean;
  marked: boolean;
}
const indexedAs = (stored: StoredPet): IndexedAs => ({ pet: stored.pet, provisional: isProvisional(stored), marked: isMarked(stored) });

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
      ids === undefined ? (descending ? this.#all.valuesBefore(after) : this.#all.valuesAfter(after)) : this.#ofIds(ids, after, descending);
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
      const key = nameKeyOf(stored.pet.name);
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
    if (this.#pets.has(pet.id)) throw new Error(`Pet ${pet.id} exists already`);
    const stored: StoredPet = { pet: copyOf({ pet }) };
    this.#pets.set(pet.id, stored);
    this.#all.set(pet.id, stored);
    this.#reindex(pet.id, undefined, stored);
  }

  async write(id: number, variants: readonly PetVariant[]): Promise<PetWrite> {
    const stored = this.#pets.get(id);
    if (!stored) return { applied: undefined, pet: undefined };
    const applied = variants.findIndex((v) => petMeets(stored, v.when));
    if (applied === -1) return { applied: undefined, pet: copyOf(stored) };
    const change = (variants[applied] as PetVariant).then;
    const before = indexedAs(stored);
    stored.pet = changed(stored.pet, change);
    this.#events.add(id, change.events ?? []);
    this.#reindex(id, before, stored);
    return { applied, pet: copyOf(stored) };
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
