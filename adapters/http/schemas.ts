/**
 * Wire shapes: request schemas (`…Body`, `…Param`, `…Query`) and response schemas (`…View`). The single source
 * for request parsing and for the OpenAPI document; `.meta({ id })` gives the seed's component names.
 */
import { z } from "zod";
import { roles } from "../../core/access/permissions.ts";
import { plans } from "../../core/access/api-key.ts";
import { rateWindows, windowNames } from "../../core/rate-limiting/windows.ts";
import { petStatuses } from "../../core/pets/pet.ts";
import { petSorts } from "../../core/pets/pets.port.ts";
import { orderSorts } from "../../core/orders/orders.port.ts";
import { webhookEventTypes } from "../../core/webhooks/webhook-event.ts";
import { DomainError } from "../../core/shared/domain-error.ts";

/** The order states a listing may ask for (cancelled orders are never listed). */
const orderStates = ["open", "complete"] as const;

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/**
 * An int64 in a JSON body. The JSON reader (json-numbers.ts) already refused any integer beyond ±(2^53-1),
 * which a double cannot hold exactly, so what arrives here is exact.
 */
export const int64 = z
  .number()
  .refine(Number.isInteger, "Expected an integer")
  .refine((n) => n >= -(2 ** 63) && n <= 2 ** 63, "Expected an int64 (between -2^63 and 2^63-1)")
  .meta({ type: "integer", format: "int64" });

/** What every server-assigned id promises (docs/api.md#http-semantics). */
const assignedId = int64.meta({
  description:
    "Unique identifier assigned on creation: positive and never reused. Ids increase within one service instance; with several instances sharing a store each takes ids in blocks, so ids are not ordered in time across instances (and some are skipped). Paging by `after` is exact: it goes by id.",
});

const int64Text = z
  .string()
  // abort: the range check below calls BigInt, which throws on anything but digits.
  .regex(/^-?\d{1,19}$/, { message: "Expected an integer", abort: true })
  .refine((s) => {
    const n = BigInt(s);
    return n >= INT64_MIN && n <= INT64_MAX;
  }, "Expected an int64 (between -2^63 and 2^63-1)");

/**
 * An int64 in a query string, checked exactly. Ids are assigned from 1 upward and never reach 2^53, so one beyond
 * ±(2^53-1) lies beyond every id: it becomes ±Infinity, which compares exactly where a rounded double would not.
 */
export const int64String = int64Text
  .transform((s) => {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : n > 0 ? Infinity : -Infinity;
  })
  .meta({ type: "integer", format: "int64" });

/**
 * An int64 id in a path, in its one decimal spelling: a leading zero (`02`, `-0`) would make `/pets/02` an alias of
 * `/pets/2` (a second URL per resource for caches and logs). One beyond ±(2^53-1) is a valid int64 that names nothing
 * (404), quoted as sent.
 */
const int64PathId = z
  .string()
  .regex(/^(?:0|-?[1-9]\d*)$/, { message: "Expected an integer without leading zeros", abort: true })
  .pipe(int64Text)
  .transform((s) => {
    const n = Number(s);
    if (Number.isSafeInteger(n)) return n;
    throw new DomainError("not_found", `Nothing has id ${s}: ids are assigned from 1 upward and stay below 2^53`);
  })
  .meta({ type: "integer", format: "int64" });

/**
 * A list parameter: comma-separated (`ids=1,2`, the documented form) or repeated (`ids=1&ids=2`, what generators that
 * ignore `explode: false` send), or both; the repeated values read as if joined with commas.
 */
const commaList = <T extends z.ZodType<unknown, string>>(item: T, max: number) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((s) => (typeof s === "string" ? s : s.join(",")).split(","))
    .pipe(z.array(item).min(1).max(max));

const listDescription = (what: string, name: string, example: string) =>
  `${what} (comma-separated, \`${name}=${example.replaceAll("&", ",")}\`; the repeated form \`${name}=${example.replaceAll("&", `&${name}=`)}\` is accepted too)`;

/** The API's one statement of the stock rule (core/pets/stock-rule.ts); the operations that move stock point here. */
export const PetStatus = z.enum(petStatuses).meta({
  id: "PetStatus",
  description:
    "Status of the pet. It follows the stock: an order that takes the last unit makes an `available` pet `pending` " +
    "(sold out); stock above 0 again (an order cancelled, or the inventory set above 0) makes a sold-out or `sold` " +
    "pet `available`; completing the last open order of a sold-out pet makes it `sold`. Staff may put an " +
    "`available` pet on hold (`pending`) and release it; stock never ends a hold.",
});

/**
 * Free text is stored as sent, so it must be well-formed Unicode: a JSON escape can carry a lone surrogate
 * ("\ud800"), which has no UTF-8 form, and MongoDB would silently keep U+FFFD instead.
 */
const wellFormed = [(s: string) => s.isWellFormed(), "Expected well-formed Unicode text (no lone surrogates)"] as const;

/** Lengths count characters (code points), as PRODUCT.md and JSON Schema's maxLength do, not UTF-16 units. */
const text = (min: number, max: number) =>
  z
    .string()
    .trim()
    .refine(...wellFormed)
    .refine((s) => {
      let length = 0;
      for (const _ of s) length++;
      return length >= min && length <= max;
    }, `Expected ${min} to ${max} characters after trimming`)
    .meta({ minLength: min, maxLength: max });

const name = text(1, 100);

/** RFC 3339 date-time with an offset; answered in UTC. */
export const dateTime = z
  .string()
  .pipe(z.iso.datetime({ offset: true }))
  .transform((s) => new Date(s))
  .refine((d) => !Number.isNaN(d.getTime()), "Expected a real date-time")
  .meta({ type: "string", format: "date-time" });

export const PetBody = z
  .strictObject({
    name: name.meta({ description: "The animal's name" }),
    categoryId: int64.meta({ description: "Identifier of the category the animal belongs to" }),
    status: PetStatus.optional(),
  })
  .meta({ id: "NewPet" });

export const PetView = z
  .object({
    id: assignedId,
    name: z.string(),
    categoryId: int64,
    status: PetStatus,
  })
  .meta({ id: "Pet" });

export const PetListView = z.array(PetView).meta({ id: "Pets" });

export const CategoryBody = z
  .strictObject({
    name: name.meta({ description: "Category name (for example a kind of animal)" }),
    description: text(0, 500).optional().meta({ description: "Short description of the category" }),
  })
  .meta({ id: "NewCategory" });

export const CategoryView = z
  .object({
    id: assignedId,
    name: z.string(),
    description: z.string().optional(),
  })
  .meta({ id: "Category" });

export const OrderBody = z
  .strictObject({
    petId: int64.meta({ description: "Identifier of the animal in the order" }),
    quantity: z.number().int().min(1).max(1000).meta({ description: "Number of units ordered", format: "int32" }),
    shipDate: dateTime.optional().meta({ description: "Expected ship date, RFC 3339 with an offset" }),
  })
  .meta({ id: "NewOrder" });

export const OrderChangesBody = z
  .strictObject({
    complete: z.literal(true).optional().meta({ description: "Set to true to complete the order (staff)" }),
    shipDate: dateTime.optional(),
  })
  .meta({ id: "OrderUpdate" });

export const OrderView = z
  .object({
    id: assignedId.optional(),
    petId: int64.optional(),
    quantity: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .meta({ format: "int32", description: "Number of units ordered" }),
    shipDate: z.string().optional().meta({ format: "date-time", description: "Expected or actual ship date (UTC)" }),
    complete: z.boolean().optional(),
  })
  .meta({ id: "Order" });

export const OrderPlacementView = z
  .object({
    at: z.string().meta({ format: "date-time", description: "When the order was placed (UTC)" }),
    by: z
      .object({
        id: int64.meta({ description: "The API key it was placed with: what `placedBy` and `GET /me` name" }),
        label: z.string().optional().meta({ description: "The key's label; absent if the key no longer exists" }),
      })
      .meta({ id: "OrderPlacer", description: "The key that placed an order" }),
  })
  .meta({ id: "OrderPlacement", description: "Who placed the order and when: answered with `expand=placement`" });

/** The seed's Order with what `expand=placement` adds; the default answer stays the seed's shape. */
export const PlacedOrderView = OrderView.extend({ placement: OrderPlacementView }).meta({ id: "PlacedOrder" });

/** An order as a read answers it: the seed's shape, or with `expand=placement` that shape and its placement. */
export const ReadOrderView = z.union([OrderView, PlacedOrderView]);

export const InventoryItemView = z
  .object({
    petId: int64.meta({ description: "Identifier of the animal the entry tracks" }),
    quantity: z.number().int().min(0).max(1_000_000).meta({ format: "int32", description: "Current stock count" }),
    status: PetStatus,
  })
  .meta({ id: "InventoryItem" });

export const InventoryBody = z
  .strictObject({
    quantity: z.number().int().min(0).max(1_000_000).meta({ description: "The new stock count", format: "int32" }),
  })
  .meta({ id: "InventoryUpdate" });

export const ErrorView = z
  .object({
    code: z.string().meta({ description: "Machine-readable error code" }),
    message: z.string().meta({ description: "Human-readable description" }),
    status: z.number().int().min(400).max(599).meta({ description: "The HTTP status code", format: "int32" }),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: "Error" });

// --- Admin -------------------------------------------------------------------------------------------------

const RateLimitsBody = z
  .strictObject(
    Object.fromEntries(
      windowNames.map((name) => [
        rateWindows[name].limitField,
        z.number().int().min(1).max(rateWindows[name].maxLimit),
      ]),
    ) as Record<(typeof rateWindows)[keyof typeof rateWindows]["limitField"], z.ZodNumber>,
  )
  .meta({ id: "RateLimits" });

const perWindow = <T extends z.ZodType>(field: (name: string) => string, schema: (name: string) => T) =>
  Object.fromEntries(windowNames.map((name) => [field(name), schema(name)])) as Record<string, T>;

export const ApiKeyBody = z
  .strictObject({
    label: name,
    role: z.enum(roles),
    plan: z.enum(plans),
    limits: RateLimitsBody.optional(),
  })
  .meta({ id: "NewApiKey" });

export const ApiKeyChangesBody = z
  .strictObject({
    label: name.optional(),
    role: z.enum(roles).optional(),
    plan: z.enum(plans).optional(),
    limits: RateLimitsBody.optional(),
  })
  .meta({ id: "ApiKeyUpdate" });

export const ApiKeyView = z
  .object({
    id: assignedId,
    label: z.string(),
    role: z.enum(roles),
    plan: z.enum(plans),
    limits: RateLimitsBody,
    createdAt: z.string().meta({ format: "date-time" }),
    revoked: z.boolean(),
    bannedUntil: z.string().optional().meta({ format: "date-time" }),
  })
  .meta({ id: "ApiKey" });

export const IssuedApiKeyView = ApiKeyView.extend({
  key: z.string().meta({ description: "The secret: shown only in this response" }),
}).meta({ id: "IssuedApiKey" });

// --- Parameters --------------------------------------------------------------------------------------------

/** Paging, declared once: `limit` 1-100 (default 20) and `after`. */
export const PAGE_SIZE = { default: 20, max: 100 } as const;

const limit = z
  .string()
  .regex(/^\d{1,3}$/, `Expected an integer from 1 to ${PAGE_SIZE.max}`)
  .transform(Number)
  .pipe(z.number().min(1).max(PAGE_SIZE.max))
  .default(PAGE_SIZE.default)
  // Documented as what it is on the wire once parsed: an integer 1-100.
  .meta({
    description: `Page size, 1-${PAGE_SIZE.max} (default ${PAGE_SIZE.default})`,
    type: "integer",
    format: "int32",
    minimum: 1,
    maximum: PAGE_SIZE.max,
    default: PAGE_SIZE.default,
  });
const after = int64String.optional().meta({ description: "Return only items with an id greater than this" });
const paging = { limit, after };

const PetSortParam = z.enum(petSorts).optional().meta({
  description:
    "Order of the list: `id` (ascending, the default), `-id` (descending) or `name` (natural order ignoring case, numbers by value: `Hamster 2` before `Hamster 10`; then id). `after` is the id of the previous page's last item in that order; follow `Link`.",
});

export const PetListQuery = z.strictObject({
  ...paging,
  sort: PetSortParam,
  afterName: z
    .string()
    .min(1)
    .max(400)
    .refine(...wellFormed)
    .optional()
    .meta({
      description:
        "With `sort=name`: the previous page's last name, lower-cased, beside its id in `after` (the `Link` header carries both)",
    }),
  name: text(1, 100).optional().meta({ description: "Only pets whose name starts with this text, ignoring case" }),
  status: commaList(PetStatus, 3)
    .optional()
    .meta({ description: listDescription("Only pets with one of these statuses", "status", "available&pending") }),
  categoryId: int64String.optional().meta({ description: "Only pets of this category" }),
  ids: commaList(int64String, 100)
    .optional()
    .meta({
      description: `${listDescription("Only these pets, at most 100 ids", "ids", "1&2")}: the successor of GET /pets/{petId}`,
    }),
});

export const PageQuery = z.strictObject(paging);

/** What `expand` may name: Stripe's idea of opt-in fields, so the default answer keeps the seed's shape. */
const orderExpansions = ["placement"] as const;
const expand = z.enum(orderExpansions).optional().meta({
  description:
    "`placement` adds `placement` to each order: when it was placed and the key that placed it (id and label)",
});

export const OrderReadQuery = z.strictObject({ expand });

export const OrderListQuery = z.strictObject({
  ...paging,
  complete: z
    .enum(["true", "false"])
    .transform((s) => s === "true")
    .optional()
    .meta({ description: "Only completed (true) or open (false) orders" }),
  state: z
    .enum(orderStates)
    .optional()
    .meta({ description: "Only `open` or only `complete` orders (the same as `complete=false` or `complete=true`)" }),
  petId: int64String.optional().meta({ description: "Only orders for this pet" }),
  placedBy: int64String.optional().meta({
    description:
      "Only orders placed with this API key (its id, as `GET /me` shows it). Staff and admins; a customer may name only its own key",
  }),
  sort: z.enum(orderSorts).optional().meta({
    description:
      "`id` (ascending, the default) or `-id` (descending: the newest first on one instance, see the `id` field); `after` follows that order",
  }),
  expand,
});

/** The stock is listed as the pets are, one item per pet: the same search, filters, order and cursor, without `ids`. */
export const InventoryListQuery = PetListQuery.omit({ ids: true });

/** What a route without a query declaration accepts: no parameters at all. */
export const NoQuery = z.strictObject({});

const idParam = <K extends string>(name: K, description: string) =>
  z.strictObject({ [name]: int64PathId.meta({ description }) } as Record<K, typeof int64PathId>);

export const PetIdParam = idParam("petId", "Identifier of the pet");
export const CategoryIdParam = idParam("categoryId", "Identifier of the category");
export const OrderIdParam = idParam("orderId", "Identifier of the order");
export const KeyIdParam = idParam("keyId", "Identifier of the API key");

// --- Webhooks ----------------------------------------------------------------------------------------------

export const WebhookEventType = z
  .enum(webhookEventTypes)
  .meta({ id: "WebhookEventType", description: "A kind of event a subscription receives" });

export const NewWebhookBody = z
  .strictObject({
    url: z.url({ error: "Expected an absolute URL" }).max(2048).meta({
      description: "Where the events are POSTed: http or https, on a public address",
      format: "uri",
      maxLength: 2048,
    }),
    events: z
      .array(WebhookEventType)
      .min(1)
      .max(webhookEventTypes.length)
      .meta({ description: "The events to receive" }),
    description: text(0, 500).optional().meta({ description: "What the subscription is for" }),
  })
  .meta({ id: "NewWebhook" });

const webhookFields = {
  id: assignedId,
  url: z.string().meta({ format: "uri" }),
  events: z.array(WebhookEventType),
  description: z.string().optional(),
  createdAt: z.string().meta({ format: "date-time" }),
  previousSecretExpiresAt: z.string().optional().meta({
    format: "date-time",
    description: "After a rotation: until when the previous secret still signs (a second signature)",
  }),
};

export const WebhookView = z.strictObject(webhookFields).meta({ id: "Webhook" });

export const IssuedWebhookView = z
  .strictObject({
    ...webhookFields,
    secret: z.string().meta({ description: "The signing secret (`whsec_` + base64): shown only in this response" }),
  })
  .meta({ id: "IssuedWebhook" });

export const DeliveryAttemptView = z
  .strictObject({
    messageId: z.string().meta({ description: "The `webhook-id` of the message, the same on every attempt" }),
    type: WebhookEventType,
    attempt: z.number().int().min(1).meta({ format: "int32", description: "1 for the first try" }),
    at: z.string().meta({ format: "date-time", description: "When it was sent" }),
    status: z
      .number()
      .int()
      .optional()
      .meta({ format: "int32", description: "The receiver's HTTP status, when it answered" }),
    error: z
      .string()
      .optional()
      .meta({ description: "Why there was no answer: time-out, refused target, connection error" }),
    response: z.string().optional().meta({ description: "The first kilobyte of the receiver's answer" }),
    durationMs: z
      .number()
      .int()
      .min(0)
      .meta({ format: "int32", description: "From sending to the answer or the error" }),
  })
  .meta({ id: "WebhookDeliveryAttempt" });

export const WebhookIdParam = idParam("webhookId", "Identifier of the webhook subscription");

const timestamp = z.string().meta({ format: "date-time", description: "When it happened (UTC)" });
const eventOf = <T extends string, D extends z.ZodType>(type: T, id: string, data: D) =>
  z.strictObject({ type: z.literal(type), timestamp, data }).meta({ id });

const PetStatusChange = z.strictObject({ petId: int64, from: PetStatus, to: PetStatus });
const InventoryChange = z.union([
  z.strictObject({
    petId: int64,
    delta: z.number().int().meta({ format: "int32", description: "Units an order took (negative) or gave back" }),
  }),
  z.strictObject({
    petId: int64,
    quantity: z.number().int().min(0).meta({ format: "int32", description: "The stock staff set" }),
  }),
]);

/** The request bodies webhooks carry, one per event type. */
export const webhookEventBodies = {
  "order.placed": eventOf("order.placed", "OrderPlacedEvent", OrderView),
  "order.completed": eventOf("order.completed", "OrderCompletedEvent", OrderView),
  "order.cancelled": eventOf("order.cancelled", "OrderCancelledEvent", OrderView),
  "pet.status_changed": eventOf("pet.status_changed", "PetStatusChangedEvent", PetStatusChange),
  "inventory.changed": eventOf("inventory.changed", "InventoryChangedEvent", InventoryChange),
} as const;

// --- The caller ---------------------------------------------------------------------------------------------

export const MeView = z
  .object({
    id: int64.meta({ description: "The key's id: what `placedBy` on order lists names" }),
    label: z.string(),
    role: z.enum(roles),
    plan: z.enum(plans),
    limits: z
      .object(
        perWindow(
          (name) => rateWindows[name as keyof typeof rateWindows].limitField,
          () => z.number().int(),
        ),
      )
      .meta({ description: `Requests allowed ${windowNames.map((name) => `per UTC ${name}`).join(" and ")}` }),
    usage: z
      .object({
        ...perWindow(
          (name) => name,
          (name) =>
            z
              .number()
              .int()
              .min(0)
              .meta({ format: "int32", description: `Requests counted in the current UTC ${name}, this one included` }),
        ),
        ...perWindow(
          (name) => `${name}ResetsAt`,
          () => z.string().meta({ format: "date-time" }),
        ),
      })
      .meta({ description: "Today's usage of the plan's limits" }),
    bannedUntil: z.string().optional().meta({ format: "date-time" }),
  })
  .meta({ id: "Me" });
