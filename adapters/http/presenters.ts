import type { ApiKey } from "../../core/access/api-key.ts";
import type { Category } from "../../core/categories/category.ts";
import type { InventoryItem } from "../../core/inventory/inventory-item.ts";
import type { Pet } from "../../core/pets/pet.ts";
import type { Order } from "../../core/orders/order.ts";
import { limitsOf } from "../../core/rate-limiting/plans.ts";

/** Domain objects → response bodies. Internal fields (order owner, key hashes) stop here. */

export const categoryJson = (c: Category) =>
  c.description === undefined ? { id: c.id, name: c.name } : { id: c.id, name: c.name, description: c.description };

export const petJson = (p: Pet) => ({ id: p.id, name: p.name, categoryId: p.categoryId, status: p.status });

export const inventoryJson = (i: InventoryItem) => ({ petId: i.petId, quantity: i.quantity, status: i.status });

export const orderJson = (o: Order) => ({
  id: o.id,
  petId: o.petId,
  quantity: o.quantity,
  ...(o.shipDate ? { shipDate: o.shipDate.toISOString() } : {}),
  complete: o.complete,
});

export const apiKeyJson = (k: ApiKey, now: Date) => ({
  id: k.id,
  label: k.label,
  role: k.role,
  plan: k.plan,
  limits: limitsOf(k),
  createdAt: k.createdAt.toISOString(),
  revoked: k.revokedAt !== undefined,
  ...(k.bannedUntil && k.bannedUntil > now ? { bannedUntil: k.bannedUntil.toISOString() } : {}),
});
