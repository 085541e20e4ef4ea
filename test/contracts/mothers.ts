import type { ApiKey } from "../../core/access/api-key.ts";
import type { CategoryRecord } from "../../core/categories/category.ts";
import type { OrderRecord } from "../../core/orders/order-record.ts";
import type { Orders, OrderWrite } from "../../core/orders/orders.port.ts";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { PetRecord } from "../../core/pets/pet-record.ts";
import type { Pets, PetWrite } from "../../core/pets/pets.port.ts";
import type { WindowSpec } from "../../core/rate-limiting/rate-limiter.port.ts";

/** Millisecond precision on purpose: every store must give dates back exactly. */
export const at = (iso: string): Date => new Date(iso);

/** A visible pet with no stock, no orders holding units and no marks. */
export const aPet = (overrides: Partial<PetRecord> = {}): PetRecord => ({
  id: 1,
  name: "Rex",
  categoryId: 1,
  status: "available",
  revision: 1,
  stock: 0,
  holdCount: 0,
  heldUnits: 0,
  pendingCause: undefined,
  marks: [],
  fences: {},
  lifecycle: undefined,
  movingTo: undefined,
  provisionalSince: undefined,
  ...overrides,
});

/** Appends events to a visible pet by an edit that changes nothing else: how tests of the outbox write events. */
export const recordEvents = async (pets: Pets, petId: number, events: readonly DomainEvent[]): Promise<PetWrite> => {
  const pet = await pets.ofId(petId);
  if (!pet) throw new Error(`no pet ${petId}`);
  return pets.edit({ petId, fields: { name: pet.name }, checkedStatus: pet.status, events });
};

/** Removes a visible pet no order holds units of, as a deletion does. */
export const removePet = async (pets: Pets, petId: number): Promise<boolean> =>
  (await pets.beginDeleting({ petId, since: new Date(0) })).applied && (await pets.removeDeleting(petId));

export const aCategory = (overrides: Partial<CategoryRecord> = {}): CategoryRecord => ({
  id: 1,
  name: "Dogs",
  description: "Loyal companions",
  revision: 1,
  deletingSince: undefined,
  ...overrides,
});

/** An open order. */
export const anOrder = (overrides: Partial<OrderRecord> = {}): OrderRecord => ({
  id: 1,
  petId: 1,
  quantity: 1,
  shipDate: at("2026-11-21T12:34:56.789Z"),
  state: "open",
  placedBy: 1,
  revision: 1,
  createdAt: at("2026-11-21T12:00:00.000Z"),
  ...overrides,
});

/** Appends events to an open order by a ship-date change that changes nothing: how tests of the outbox write them. */
export const recordOrderEvents = async (
  orders: Orders,
  orderId: number,
  events: readonly DomainEvent[],
): Promise<OrderWrite> => {
  const order = await orders.ofId(orderId);
  if (!order) throw new Error(`no order ${orderId}`);
  return orders.changeShipDate({ orderId, shipDate: order.shipDate, events });
};

export const anApiKey = (overrides: Partial<ApiKey> = {}): ApiKey => ({
  id: 1,
  label: "storefront",
  role: "customer",
  plan: "free",
  limits: undefined,
  secretHash: `hash-of-key-${overrides.id ?? 1}`,
  createdAt: at("2026-11-20T08:15:30.123Z"),
  revokedAt: undefined,
  bannedUntil: undefined,
  recentBans: [],
  ...overrides,
});

/**
 * The n-th minute and day windows after a fixed point far ahead: in service a window's `resetsAt` lies in the
 * future, and a store may expire counters after it.
 */
const windowsStart = Date.parse("2100-01-01T00:00:00.000Z");
export const aMinuteWindow = (n: number, limit: number): WindowSpec => ({
  key: `m${n}`,
  limit,
  resetsAt: new Date(windowsStart + n * 60_000),
});
export const aDayWindow = (n: number, limit: number): WindowSpec => ({
  key: `d${n}`,
  limit,
  resetsAt: new Date(windowsStart + n * 86_400_000),
});

/** A page wide enough to see everything a test stores. */
export const everything = { limit: 100 } as const;
