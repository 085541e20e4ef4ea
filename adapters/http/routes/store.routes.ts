import { z } from "zod";
import { presentInventoryItem, presentOrder, presentPlacedOrder } from "../presenters.ts";
import type { InventoryItem } from "../../../core/inventory/inventory-item.ts";
import type { Order } from "../../../core/orders/order.ts";
import { entityTag } from "../conditional.ts";
import { created, paged, route, tagged } from "../route.ts";
import { HttpProblem } from "../problem.ts";
import { petQueryOf } from "./pet-query.ts";
import {
  InventoryBody,
  InventoryItemView,
  InventoryListQuery,
  OrderBody,
  OrderChangesBody,
  OrderIdParam,
  OrderListQuery,
  OrderReadQuery,
  OrderView,
  PetIdParam,
  ReadOrderView,
} from "../schemas.ts";

const versionedOrder = { letter: "o", idParam: "orderId" };
const versionedItem = { letter: "i", idParam: "petId" };
const taggedOrder = (o: Order) => tagged(presentOrder(o), entityTag("o", o.id, o.revision));
const placementAsked = (expand: string | undefined): boolean => expand === "placement";
/** An inventory item is the pet's stock: it carries the pet's revision. */
const taggedItem = (i: InventoryItem) => tagged(presentInventoryItem(i), entityTag("i", i.petId, i.revision));

export const storeRoutes = [
  route({
    method: "POST",
    path: "/store/orders",
    operationId: "placeOrder",
    tag: "Store",
    summary: "Place an order",
    description:
      "Reserves the stock at once: the pet must be `available` with at least `quantity` units in stock. The pet's status follows its stock (`PetStatus`).",
    access: "orders:place",
    idempotent: true,
    input: { body: OrderBody },
    output: {
      status: 201,
      description: "The order, open (`complete: false`).",
      body: OrderView,
      headers: ["Location"],
    },
    errors: ["pet_not_available", "insufficient_stock", "unknown_pet"],
    handle: async ({ body, attempt }, actor, { useCases }) => {
      const order = await useCases.placeOrder.execute(body, actor, attempt);
      return created(presentOrder(order), `/store/orders/${order.id}`);
    },
  }),
  route({
    method: "GET",
    path: "/store/orders",
    operationId: "listOrders",
    tag: "Store",
    summary: "List orders",
    description:
      "A customer sees its own orders; staff and admins see every order, or one key's with `placedBy`. Filter by `state` (or `complete`) and `petId`; `sort=-id` lists the highest ids first (the newest first on one instance: ids are not ordered in time across instances). " +
      "`expand=placement` adds to each order when it was placed and the key that placed it, with the key's label (`PlacedOrder`).",
    access: "orders:read-own",
    input: { query: OrderListQuery },
    output: {
      status: 200,
      description: "A page of orders, in ascending id order.",
      body: z.array(ReadOrderView),
      headers: ["Link"],
    },
    hideTryItPanel: {
      reason:
        "The product's interface description turns the try-out panel off here (`x-hideTryItPanel`); the operation works " +
        'like every other list. Call it with a client or curl: `curl -H "X-API-Key: $KEY" localhost:8080/store/orders`.',
    },
    handle: async ({ query }, actor, { useCases }) => {
      const byState = query.state === undefined ? undefined : query.state === "complete";
      if (byState !== undefined && query.complete !== undefined && byState !== query.complete) {
        throw new HttpProblem("validation_failed", "The request query is not valid", {
          details: [
            { path: "query.state", message: `\`state=${query.state}\` contradicts \`complete=${query.complete}\`` },
          ],
        });
      }
      const { limit, after, petId, placedBy, sort } = query;
      const page = await useCases.listOrders.execute(
        { limit, after, petId, placedBy, sort, complete: byState ?? query.complete },
        actor,
      );
      if (!placementAsked(query.expand)) return paged(page, presentOrder);
      return paged({ ...page, items: await useCases.describePlacements.execute(page.items) }, presentPlacedOrder);
    },
  }),
  route({
    method: "GET",
    path: "/store/orders/{orderId}",
    operationId: "getOrder",
    tag: "Store",
    summary: "Get an order",
    description:
      "A customer asking for another key's order gets 404. `expand=placement` adds when it was placed and the key that placed it (`PlacedOrder`); " +
      "that answer has no `ETag`, since the key's label can change while the order does not.",
    access: "orders:read-own",
    input: { path: OrderIdParam, query: OrderReadQuery },
    output: { status: 200, description: "The order.", body: ReadOrderView },
    versioned: { ...versionedOrder, untaggedWith: "expand" },
    handle: async ({ path, query }, actor, { useCases }) => {
      const order = await useCases.getOrder.execute(path.orderId, actor);
      if (!placementAsked(query.expand)) return taggedOrder(order);
      const [placed] = await useCases.describePlacements.execute([order]);
      return presentPlacedOrder(placed!);
    },
  }),
  route({
    method: "PATCH",
    path: "/store/orders/{orderId}",
    operationId: "updateOrder",
    tag: "Store",
    summary: "Complete an order or change its ship date",
    description:
      "`complete: true` completes the order and sets `shipDate` to now if it has none; when the last open order of a pet with no stock left completes, the pet is `sold`. A completed order never changes again.",
    access: "orders:complete",
    input: { path: OrderIdParam, body: OrderChangesBody },
    output: { status: 200, description: "The order, updated.", body: OrderView },
    errors: ["order_completed"],
    stability: "experimental",
    versioned: versionedOrder,
    handle: async ({ path, body, expectedRevision }, actor, { useCases }) =>
      taggedOrder(await useCases.updateOrder.execute(path.orderId, body, actor, expectedRevision)),
  }),
  route({
    method: "DELETE",
    path: "/store/orders/{orderId}",
    operationId: "cancelOrder",
    tag: "Store",
    summary: "Cancel an order",
    description: "Cancels an open order and returns its quantity to stock. A customer may cancel its own orders only.",
    access: "orders:cancel-own",
    input: { path: OrderIdParam },
    output: { status: 204, description: "Cancelled." },
    errors: ["order_completed"],
    versioned: versionedOrder,
    handle: ({ path, expectedRevision }, actor, { useCases }) =>
      useCases.cancelOrder.execute(path.orderId, actor, expectedRevision),
  }),
  route({
    method: "GET",
    path: "/store/inventory",
    operationId: "listInventory",
    tag: "Store",
    summary: "List the inventory",
    description:
      "One item per pet, in ascending pet id order (or as `sort` says), filtered by status, category or the start of the pet's name, as `GET /pets` lists the pets.",
    access: "inventory:read",
    input: { query: InventoryListQuery },
    output: {
      status: 200,
      description: "A page of inventory items.",
      body: z.array(InventoryItemView),
      headers: ["Link"],
    },
    handle: async ({ query }, _actor, { useCases }) =>
      paged(await useCases.listInventory.execute(petQueryOf(query)), presentInventoryItem),
  }),
  route({
    method: "GET",
    path: "/store/inventory/{petId}",
    operationId: "getInventoryItem",
    tag: "Store",
    summary: "Get a pet's stock",
    access: "inventory:read",
    input: { path: PetIdParam },
    output: { status: 200, description: "The inventory item.", body: InventoryItemView },
    versioned: versionedItem,
    handle: async ({ path }, _actor, { useCases }) => taggedItem(await useCases.getInventoryItem.execute(path.petId)),
  }),
  route({
    method: "PUT",
    path: "/store/inventory/{petId}",
    operationId: "setInventory",
    tag: "Store",
    summary: "Set a pet's stock",
    description:
      "Sets the stock count; the pet's status follows it (`PetStatus`). " +
      "The stock plus the units open orders hold never exceeds 1,000,000: a setting beyond that is refused (409 `stock_limit_exceeded`), " +
      "so a cancellation can always return its units.",
    access: "inventory:write",
    input: { path: PetIdParam, body: InventoryBody },
    errors: ["stock_limit_exceeded"],
    output: { status: 200, description: "The inventory item, updated.", body: InventoryItemView },
    stability: "beta",
    versioned: versionedItem,
    handle: async ({ path, body, expectedRevision }, _actor, { useCases }) =>
      taggedItem(await useCases.setInventory.execute(path.petId, body.quantity, expectedRevision)),
  }),
];
