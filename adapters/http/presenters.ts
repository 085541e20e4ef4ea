import type { z } from "zod";
import type { ApiKey } from "../../core/access/api-key.ts";
import type { Category } from "../../core/categories/category.ts";
import type { InventoryItem } from "../../core/inventory/inventory-item.ts";
import type { Order } from "../../core/orders/order.ts";
import type { PlacedOrder } from "../../core/orders/describe-placements.ts";
import type { Pet } from "../../core/pets/pet.ts";
import type { OnlyKeysOf } from "../../core/shared/only-keys-of.ts";
import { limitsOf } from "../../core/rate-limiting/plans.ts";
import type { DeliveryAttempt } from "../../core/webhooks/delivery-attempt.ts";
import type { WebhookSubscription } from "../../core/webhooks/webhook-subscription.ts";
import type {
  ApiKeyView,
  CategoryView,
  DeliveryAttemptView,
  InventoryItemView,
  OrderView,
  PetView,
  PlacedOrderView,
  WebhookView,
} from "./schemas.ts";

/** Domain objects → wire shapes: internal fields (order owner, key hashes, revisions) stop here. */

type View<S extends z.ZodType> = z.input<S>;

/** Every field of the pet but its revision (which travels as the ETag). */
export const presentPet = (p: Pet): View<typeof PetView> => {
  const { revision, ...view } = p;
  return view satisfies OnlyKeysOf<View<typeof PetView>, typeof view>;
};

export const presentCategory = (c: Category): View<typeof CategoryView> =>
  c.description === undefined ? { id: c.id, name: c.name } : { id: c.id, name: c.name, description: c.description };

export const presentOrder = (o: Order): View<typeof OrderView> => ({
  id: o.id,
  petId: o.petId,
  quantity: o.quantity,
  ...(o.shipDate ? { shipDate: o.shipDate.toISOString() } : {}),
  complete: o.complete,
});

/** `expand=placement`: the seed's order and who placed it when (a deleted key keeps only its id). */
export const presentPlacedOrder = ({ order, placement }: PlacedOrder): View<typeof PlacedOrderView> => ({
  ...presentOrder(order),
  placement: {
    at: placement.at.toISOString(),
    by: placement.by.label === undefined ? { id: placement.by.id } : { id: placement.by.id, label: placement.by.label },
  },
});

export const presentInventoryItem = (i: InventoryItem): View<typeof InventoryItemView> => ({
  petId: i.petId,
  quantity: i.quantity,
  status: i.status,
});

export const presentApiKey = (k: ApiKey, now: Date): View<typeof ApiKeyView> => ({
  id: k.id,
  label: k.label,
  role: k.role,
  plan: k.plan,
  limits: limitsOf(k),
  createdAt: k.createdAt.toISOString(),
  revoked: k.revokedAt !== undefined,
  ...(k.bannedUntil && k.bannedUntil > now ? { bannedUntil: k.bannedUntil.toISOString() } : {}),
});

export const presentWebhook = (s: WebhookSubscription, now: Date): View<typeof WebhookView> => {
  const previous = s.secrets[1];
  return {
    id: s.id,
    url: s.url,
    events: [...s.events],
    ...(s.description !== undefined && { description: s.description }),
    createdAt: s.createdAt.toISOString(),
    ...(previous?.expiresAt &&
      previous.expiresAt > now && { previousSecretExpiresAt: previous.expiresAt.toISOString() }),
  };
};

export const presentDeliveryAttempt = (a: DeliveryAttempt): View<typeof DeliveryAttemptView> => ({
  messageId: a.messageId,
  type: a.type,
  attempt: a.attempt,
  at: a.at.toISOString(),
  ...(a.status !== undefined && { status: a.status }),
  ...(a.error !== undefined && { error: a.error }),
  ...(a.responseBody !== undefined && { response: a.responseBody }),
  durationMs: a.durationMs,
});
