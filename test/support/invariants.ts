/**
 * The consistency rules of PRODUCT.md section 5, checked black-box: everything is read through the HTTP API
 * with a staff or admin key (every page of pets, categories, orders and inventory), so the checker knows
 * nothing of how a store lays out its documents. A pet or category is "deleted" when the listings no longer
 * show it.
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
  | "inventory-agrees"; // the inventory listing has exactly one item per pet, with the pet's status

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

const statusDisagreement = (status: string, stock: number, openOrders: number, strict: boolean): string | undefined => {
  const facts = `status ${status}, stock ${stock}, ${openOrders} open orders`;
  if (status === "sold" && (stock !== 0 || openOrders > 0)) return `${facts}: sold needs stock 0 and no open order`;
  if (!strict) return undefined;
  if (status === "pending" && (stock !== 0 || openOrders === 0))
    return `${facts}: pending needs stock 0 and an open order`;
  if (status === "available" && stock === 0 && openOrders > 0)
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
