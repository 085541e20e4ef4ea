import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { OrderRecord } from "../../core/orders/order-record.ts";
import { FENCE_BUCKETS, type PetRecord } from "../../core/pets/pet-record.ts";
import { holds, soldOut, soldOutStock, soldStock } from "../../core/pets/stock-rule.ts";
import type { Stores } from "../../core/stores.ts";

/**
 * The consistency rules of PRODUCT.md section 5 and docs/consistency.md's invariants, checked two ways:
 *
 * - black-box (`readViolations`): everything read through the HTTP API with a staff or admin key (every page of
 *   pets, categories, orders and inventory); a pet or category is "deleted" when the listings no longer show it;
 * - on the stored layout (`readStoreViolations`): every pet and order document through the store ports, tombstones
 *   included (counters, marks, fences, the `reservation` of orders), the event log and the outbox.
 */

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** GET with a staff or admin key; `path` starts with "/". */
export type GetJson = (path: string) => Promise<JsonResponse>;

export interface SeenPet {
  id: number;
  categoryId: number;
  status: string;
}
export interface SeenOrder {
  id: number;
  petId: number;
  quantity: number;
  complete: boolean;
}
export interface SeenInventoryItem {
  petId: number;
  quantity: number;
  status: string;
}

export interface Snapshot {
  pets: SeenPet[];
  categories: { id: number }[];
  orders: SeenOrder[];
  inventory: SeenInventoryItem[];
}

export interface Expectations {
  /** Stock the test gave each pet (the quantity it last set while the pet had no orders); pets absent are not checked. */
  stockGiven?: ReadonlyMap<number, number>;
  /** Pets and categories whose DELETE answered 204: the listings must not show them. */
  deletedPets?: Iterable<number>;
  deletedCategories?: Iterable<number>;
  /**
   * The workload never edits a status by hand (no PUT of a pet's status, no stock set while orders are open):
   * then every status is the one the stock and open orders imply (pending ⇔ stock 0 with an open order).
   */
  statusFollowsStockOnly?: boolean;
}

export type Rule =
  | "stock-given" // stock given = current stock + units of existing orders
  | "order-names-deleted-pet"
  | "pet-names-deleted-category"
  | "status-agrees"
  | "order-ids-unique"
  | "deleted-still-listed"
  | "inventory-agrees" // the inventory listing has exactly one item per pet, with the pet's status
  // On the stored layout (findStoreViolations), docs/consistency.md's numbering:
  | "units-held" // 1: holdCount and heldUnits are the count and units of the open orders
  | "left-unfinished" // 8: a mark, a settling order, a provisional pet, a cancelled order kept once relayed
  | "fence-malformed" // fences are small counters in 32 buckets
  | "stock-limit" // 5
  | "pending-without-cause" // 4, 8: pending because sold out, yet stock or no open order
  | "event-lost" // 7: an acknowledged change without its event in the log, or events left pending
  | "event-duplicated"; // 7: an event, or one change, logged twice

export interface Violation {
  rule: Rule;
  petId?: number;
  categoryId?: number;
  orderId?: number;
  message: string;
}

const PAGE = 100;

/** Every page of a listing, following `Link: <…>; rel="next"`. */
export const readAll = async <T>(get: GetJson, path: string): Promise<T[]> => {
  const items: T[] = [];
  let next: string | undefined = `${path}${path.includes("?") ? "&" : "?"}limit=${PAGE}`;
  for (let pages = 0; next; pages++) {
    if (pages > 10_000) throw new Error(`${path}: more than 10,000 pages, the listing does not end`);
    const res = await get(next);
    if (res.status !== 200 || !Array.isArray(res.body))
      throw new Error(`GET ${next}: ${res.status} ${JSON.stringify(res.body)}`);
    items.push(...(res.body as T[]));
    next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get("link") ?? "")?.[1];
  }
  return items;
};

export const readSnapshot = async (get: GetJson): Promise<Snapshot> => {
  // Orders first, pets last: an order placed between the reads is then never judged against a stale pet list.
  const orders = await readAll<SeenOrder>(get, "/store/orders");
  const categories = await readAll<{ id: number }>(get, "/categories");
  const inventory = await readAll<SeenInventoryItem>(get, "/store/inventory");
  const pets = await readAll<SeenPet>(get, "/pets");
  return { pets, categories, orders, inventory };
};

/** The rules that a snapshot breaks; [] when it keeps them all. Meant for a quiet service (no request in flight). */
export const findViolations = (snapshot: Snapshot, expect: Expectations = {}): Violation[] => {
  const violations: Violation[] = [];
  const pets = new Map(snapshot.pets.map((p) => [p.id, p]));
  const categories = new Set(snapshot.categories.map((c) => c.id));
  const stock = new Map(snapshot.inventory.map((i) => [i.petId, i]));
  const ordersOf = new Map<number, SeenOrder[]>();
  const orderIds = new Set<number>();

  for (const order of snapshot.orders) {
    if (orderIds.has(order.id))
      violations.push({ rule: "order-ids-unique", orderId: order.id, message: `order ${order.id} is listed twice` });
    orderIds.add(order.id);
    if (!pets.has(order.petId)) {
      violations.push({
        rule: "order-names-deleted-pet",
        orderId: order.id,
        petId: order.petId,
        message: `order ${order.id} (${order.complete ? "complete" : "open"}, ${order.quantity} units) names pet ${order.petId}, which does not exist`,
      });
    }
    ordersOf.set(order.petId, [...(ordersOf.get(order.petId) ?? []), order]);
  }

  for (const pet of snapshot.pets) {
    if (!categories.has(pet.categoryId)) {
      violations.push({
        rule: "pet-names-deleted-category",
        petId: pet.id,
        categoryId: pet.categoryId,
        message: `pet ${pet.id} names category ${pet.categoryId}, which does not exist`,
      });
    }
    const item = stock.get(pet.id);
    if (!item || item.status !== pet.status) {
      violations.push({
        rule: "inventory-agrees",
        petId: pet.id,
        message: `pet ${pet.id} is ${pet.status}, its inventory item is ${JSON.stringify(item)}`,
      });
      continue;
    }
    const orders = ordersOf.get(pet.id) ?? [];
    const open = orders.filter((o) => !o.complete);
    const held = orders.reduce((sum, o) => sum + o.quantity, 0);
    const given = expect.stockGiven?.get(pet.id);
    if (given !== undefined && item.quantity + held !== given) {
      violations.push({
        rule: "stock-given",
        petId: pet.id,
        message: `pet ${pet.id} was given ${given} units; it has ${item.quantity} in stock and ${held} in ${orders.length} orders (${given - item.quantity - held} lost)`,
      });
    }
    const statusProblem = statusDisagreement(
      pet.status,
      item.quantity,
      open.length,
      expect.statusFollowsStockOnly ?? false,
    );
    if (statusProblem)
      violations.push({ rule: "status-agrees", petId: pet.id, message: `pet ${pet.id}: ${statusProblem}` });
  }
  for (const item of snapshot.inventory) {
    if (!pets.has(item.petId))
      violations.push({
        rule: "inventory-agrees",
        petId: item.petId,
        message: `inventory lists pet ${item.petId}, which is not listed`,
      });
  }

  for (const id of expect.deletedPets ?? []) {
    if (pets.has(id))
      violations.push({
        rule: "deleted-still-listed",
        petId: id,
        message: `pet ${id} was deleted (204) but is listed`,
      });
  }
  for (const id of expect.deletedCategories ?? []) {
    if (categories.has(id))
      violations.push({
        rule: "deleted-still-listed",
        categoryId: id,
        message: `category ${id} was deleted (204) but is listed`,
      });
  }
  return violations;
};

/** Judged by core's stock rule (core/pets/stock-rule.ts), the open orders standing for the holds. */
const statusDisagreement = (status: string, stock: number, openOrders: number, strict: boolean): string | undefined => {
  const facts = `status ${status}, stock ${stock}, ${openOrders} open orders`;
  const held = { stock, holdCount: openOrders };
  if (status === "sold" && !holds(soldStock, held)) return `${facts}: sold needs stock 0 and no open order`;
  if (!strict) return undefined;
  if (status === "pending" && !holds(soldOutStock, held)) return `${facts}: pending needs stock 0 and an open order`;
  if (status === "available" && holds(soldOutStock, held))
    return `${facts}: the order that took the last unit should have made it pending`;
  return undefined;
};

export const readViolations = async (
  get: GetJson,
  expect: Expectations = {},
): Promise<{ snapshot: Snapshot; violations: Violation[] }> => {
  const snapshot = await readSnapshot(get);
  return { snapshot, violations: findViolations(snapshot, expect) };
};

/** A GetJson over a real socket (loopback only), for service processes. */
export const loopbackGetJson =
  (origin: string, key: string, timeoutMs = 10_000): GetJson =>
  async (path) => {
    const res = await fetch(`${origin}${path}`, {
      headers: { "x-api-key": key },
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text,
    };
  };

/** One line per rule broken, with a count and the first examples: for test failure messages and the chaos script. */
export const describeViolations = (violations: readonly Violation[], examples = 3): string => {
  const byRule = new Map<Rule, Violation[]>();
  for (const v of violations) byRule.set(v.rule, [...(byRule.get(v.rule) ?? []), v]);
  return [...byRule]
    .map(
      ([rule, list]) =>
        `${rule} ×${list.length}: ${list
          .slice(0, examples)
          .map((v) => v.message)
          .join("; ")}`,
    )
    .join("\n");
};

/** Every stored pet and order (tombstones too), the event log read from its start, and what is still pending. */
export interface StoreView {
  pets: PetRecord[];
  orders: OrderRecord[];
  logged: DomainEvent[];
  pending: DomainEvent[];
}

export interface StoreExpectations {
  /** Stock given per pet, as for `findViolations`. */
  stockGiven?: ReadonlyMap<number, number>;
  /** Changes answered with a 2xx: each must have its event in the log. */
  placed?: Iterable<number>;
  cancelled?: Iterable<number>;
  completed?: Iterable<number>;
}

/** Reads a StoreView through the ports, given the ids to look at (a store lists only what clients see). */
export const readStoreView = async (
  stores: Stores,
  ids: { pets: Iterable<number>; orders: Iterable<number> },
): Promise<StoreView> => {
  const pets: PetRecord[] = [];
  for (const id of ids.pets) {
    const pet = await stores.pets.ofId(id);
    if (pet) pets.push(pet);
  }
  const orders: OrderRecord[] = [];
  for (const id of ids.orders) {
    const order = await stores.orders.ofId(id);
    if (order) orders.push(order);
  }
  const logged: DomainEvent[] = [];
  // Until the reader is held (at a gap it may not pass yet, or the end): a page of holes only has no events but
  // moves the reader on, and the events after it are still to read.
  for (let position = 0, pages = 0; pages < 10_000; pages++) {
    const page = await stores.eventLog.readAfter(position, 500);
    logged.push(...page.events);
    if (page.last === position) break;
    position = page.last;
  }
  return { pets, orders, logged, pending: await stores.outbox.pending(1_000) };
};

/**
 * The invariants of docs/consistency.md on the stored documents, for a store that is quiet and where recovery and the
 * relay have run to the end (nothing half done may be left).
 */
export const findStoreViolations = (view: StoreView, expect: StoreExpectations = {}): Violation[] => {
  const violations: Violation[] = [];
  const fail = (rule: Rule, message: string, ids: Partial<Violation> = {}) =>
    violations.push({ rule, message, ...ids });
  const ordersOf = new Map<number, OrderRecord[]>();
  for (const order of view.orders) {
    ordersOf.set(order.petId, [...(ordersOf.get(order.petId) ?? []), order]);
    if (order.settling)
      fail("left-unfinished", `order ${order.id} (${order.state}) is still settling`, { orderId: order.id });
    if (order.state === "cancelled" && view.pending.length === 0)
      fail("left-unfinished", `cancelled order ${order.id} is kept though its events were relayed`, {
        orderId: order.id,
      });
  }
  const pets = new Set(view.pets.map((p) => p.id));
  for (const order of view.orders)
    if ((order.state === "open" || order.state === "complete") && !pets.has(order.petId))
      fail("order-names-deleted-pet", `${order.state} order ${order.id} names pet ${order.petId}, which is gone`, {
        orderId: order.id,
      });
  for (const pet of view.pets) {
    const where = `pet ${pet.id} (${pet.status}${pet.pendingCause ? `/${pet.pendingCause}` : ""}, stock ${pet.stock})`;
    const at = { petId: pet.id };
    if (pet.lifecycle !== undefined || pet.movingTo !== undefined)
      fail("left-unfinished", `${where} is still ${pet.lifecycle ?? `moving to ${pet.movingTo}`}`, at);
    if (pet.marks.length > 0)
      fail("left-unfinished", `${where} keeps marks ${pet.marks.map((m) => `${m.kind}:${m.orderId}`).join(", ")}`, at);
    for (const [bucket, value] of Object.entries(pet.fences))
      if (!(Number(bucket) >= 0 && Number(bucket) < FENCE_BUCKETS && Number.isInteger(value) && value > 0))
        fail("fence-malformed", `${where} has fence ${bucket} = ${value}`, at);
    const mine = ordersOf.get(pet.id) ?? [];
    const open = mine.filter((o) => o.state === "open");
    const existing = mine.filter((o) => o.state === "open" || o.state === "complete");
    const openUnits = open.reduce((sum, o) => sum + o.quantity, 0);
    if (pet.holdCount !== open.length || pet.heldUnits !== openUnits)
      fail(
        "units-held",
        `${where} counts ${pet.holdCount} orders holding ${pet.heldUnits} units; its open orders are ${open.length} holding ${openUnits}`,
        at,
      );
    const given = expect.stockGiven?.get(pet.id);
    const accounted = pet.stock + existing.reduce((sum, o) => sum + o.quantity, 0);
    if (given !== undefined && accounted !== given)
      fail("stock-given", `${where} was given ${given}; stock + units of ${existing.length} orders = ${accounted}`, at);
    if (pet.stock < 0) fail("stock-given", `${where} has negative stock`, at);
    if (pet.stock + pet.heldUnits > 1_000_000) fail("stock-limit", `${where} holds more than 1,000,000 units`, at);
    if ((pet.status === "pending") !== (pet.pendingCause !== undefined))
      fail("status-agrees", `${where}: a pending cause exactly while pending`, at);
    const held = { stock: pet.stock, holdCount: open.length };
    if (pet.status === "sold" && !holds(soldStock, held))
      fail("status-agrees", `${where} is sold with ${open.length} open orders`, at);
    if (holds(soldOut, pet) && !holds(soldOutStock, held))
      fail("pending-without-cause", `${where} is pending for want of stock with ${open.length} open orders`, at);
  }

  if (view.pending.length > 0) fail("event-lost", `${view.pending.length} events are still waiting to be relayed`);
  const ids = new Set<string>();
  const changes = new Map<string, number>();
  for (const event of view.logged) {
    if (ids.has(event.id)) fail("event-duplicated", `event ${event.id} (${event.type}) is logged twice`);
    ids.add(event.id);
    if (event.type.startsWith("order.")) {
      const key = `${event.type} ${(event.data as { id: number }).id}`;
      changes.set(key, (changes.get(key) ?? 0) + 1);
    }
  }
  for (const [key, count] of changes) if (count > 1) fail("event-duplicated", `${key} is logged ${count} times`);
  const expectLogged = (type: string, orderIds: Iterable<number> | undefined, answered: string) => {
    for (const id of orderIds ?? [])
      if (!changes.has(`${type} ${id}`))
        fail("event-lost", `order ${id} was answered ${answered}, but the log has no ${type}`, { orderId: id });
  };
  expectLogged("order.placed", expect.placed, "201");
  expectLogged("order.cancelled", expect.cancelled, "204");
  expectLogged("order.completed", expect.completed, "200 complete");
  for (const order of view.orders) {
    if (order.state === "open" || order.state === "complete")
      expectLogged("order.placed", [order.id], `(it exists, ${order.state})`);
    if (order.state === "complete") expectLogged("order.completed", [order.id], "(it is complete)");
  }
  return violations;
};
