import type { ApiKey } from "../../core/access/api-key.ts";
import type { Category } from "../../core/categories/category.ts";
import type { Order } from "../../core/orders/order.ts";
import { limitsOf } from "../../core/rate-limiting/plans.ts";

/** Domain objects → response bodies. Internal fields (order owner, key hashes) stop here. */

export const categoryJson = (c: Category) => (c.description === undefined ? { id: c.id, name: c.name } : { ...c });

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
