import { z } from "zod";
import { inventoryJson, orderJson } from "../presenters.ts";
import { readJsonBody } from "../json-body.ts";
import { json, noContent } from "../json.ts";
import { created, pageResponse, pathParams, queryOf, type Route } from "../route.ts";
import {
  idParam,
  InventoryItem,
  InventoryListQuery,
  InventoryUpdate,
  NewOrder,
  Order,
  OrderListQuery,
  OrderUpdate,
} from "../schemas.ts";
import type { UseCases } from "../use-cases.ts";
import { parseOrReject } from "../validation.ts";
import { IdempotencyHeaders, idempotencyErrors } from "../idempotency-docs.ts";

const orderId = idParam("orderId", "Identifier of the order");
const petId = idParam("petId", "Identifier of the pet");
const Orders = z.array(Order);
const InventoryItems = z.array(InventoryItem);

export const storeRoutes = (uc: UseCases): Route[] => [
  {
    method: "POST",
    path: "/store/orders",
    operationId: "placeOrder",
    idempotent: true,
    access: { permission: "orders:place" },
    docs: {
      tag: "Store",
      summary: "Place an order",
      description:
        "Reserves the stock at once: the pet must be `available` with at least `quantity` units in stock. An order that takes the last unit puts the pet in `pending`.",
      body: NewOrder,
      success: { status: 201, description: "The order, open (`complete: false`).", body: Order, headers: ["Location"] },
      headers: IdempotencyHeaders,
      errors: ["pet_not_available", "insufficient_stock", "unknown_pet", ...idempotencyErrors],
    },
    handle: async (event, actor) => {
      const order = await uc.placeOrder.execute(await readJsonBody(event, NewOrder), actor);
      return created(orderJson(order), `/store/orders/${order.id}`);
    },
  },
  {
    method: "GET",
    path: "/store/orders",
    operationId: "listOrders",
    access: { permission: "orders:read-own" },
    docs: {
      tag: "Store",
      summary: "List orders",
      description: "A customer sees its own orders; staff and admins see every order.",
      query: OrderListQuery,
      success: { status: 200, description: "A page of orders, in ascending id order.", body: Orders, headers: ["Link"] },
      hideTryItPanel: true,
    },
    handle: async (event, actor) => {
      const q = parseOrReject(OrderListQuery, queryOf(event), "query");
      const page = await uc.listOrders.execute(
        { limit: q.limit ?? 20, after: q.after, complete: q.complete, petId: q.petId },
        actor,
      );
      return pageResponse(event, page, orderJson);
    },
  },
  {
    method: "GET",
    path: "/store/orders/:orderId",
    operationId: "getOrder",
    access: { permission: "orders:read-own" },
    docs: {
      tag: "Store",
      summary: "Get an order",
      description: "A customer asking for another key's order gets 404.",
      path: orderId,
      success: { status: 200, description: "The order.", body: Order },
    },
    handle: async (event, actor) => {
      const { orderId: id } = parseOrReject(orderId, pathParams(event), "path");
      return json(orderJson(await uc.getOrder.execute(id, actor)));
    },
  },
  {
    method: "PATCH",
    path: "/store/orders/:orderId",
    operationId: "updateOrder",
    access: { permission: "orders:complete" },
    docs: {
      tag: "Store",
      summary: "Complete an order or change its ship date",
      description:
        "`complete: true` completes the order and sets `shipDate` to now if it has none; when the last open order of a pet with no stock left completes, the pet is `sold`. A completed order never changes again.",
      path: orderId,
      body: OrderUpdate,
      success: { status: 200, description: "The order, updated.", body: Order },
      errors: ["order_completed"],
      stability: "experimental",
    },
    handle: async (event, actor) => {
      const { orderId: id } = parseOrReject(orderId, pathParams(event), "path");
      return json(orderJson(await uc.updateOrder.execute(id, await readJsonBody(event, OrderUpdate), actor)));
    },
  },
  {
    method: "DELETE",
    path: "/store/orders/:orderId",
    operationId: "cancelOrder",
    access: { permission: "orders:cancel-own" },
    docs: {
      tag: "Store",
      summary: "Cancel an order",
      description: "Cancels an open order and returns its quantity to stock. A customer may cancel its own orders only.",
      path: orderId,
      success: { status: 204, description: "Cancelled." },
      errors: ["order_completed"],
    },
    handle: async (event, actor) => {
      const { orderId: id } = parseOrReject(orderId, pathParams(event), "path");
      await uc.cancelOrder.execute(id, actor);
      return noContent();
    },
  },
  {
    method: "GET",
    path: "/store/inventory",
    operationId: "listInventory",
    access: { permission: "inventory:read" },
    docs: {
      tag: "Store",
      summary: "List the inventory",
      description: "One item per pet, in ascending pet id order.",
      query: InventoryListQuery,
      success: { status: 200, description: "A page of inventory items.", body: InventoryItems, headers: ["Link"] },
    },
    handle: async (event) => {
      const q = parseOrReject(InventoryListQuery, queryOf(event), "query");
      const page = await uc.listInventory.execute({ limit: q.limit ?? 20, after: q.after, statuses: q.status });
      return pageResponse(event, page, inventoryJson);
    },
  },
  {
    method: "GET",
    path: "/store/inventory/:petId",
    operationId: "getInventoryItem",
    access: { permission: "inventory:read" },
    docs: {
      tag: "Store",
      summary: "Get a pet's stock",
      path: petId,
      success: { status: 200, description: "The inventory item.", body: InventoryItem },
    },
    handle: async (event) => {
      const { petId: id } = parseOrReject(petId, pathParams(event), "path");
      return json(inventoryJson(await uc.getInventoryItem.execute(id)));
    },
  },
  {
    method: "PUT",
    path: "/store/inventory/:petId",
    operationId: "setInventory",
    access: { permission: "inventory:write" },
    docs: {
      tag: "Store",
      summary: "Set a pet's stock",
      description: "Sets the stock count. Restocking a `sold` pet (quantity above 0) makes it `available` again.",
      path: petId,
      body: InventoryUpdate,
      success: { status: 200, description: "The inventory item, updated.", body: InventoryItem },
      stability: "beta",
    },
    handle: async (event) => {
      const { petId: id } = parseOrReject(petId, pathParams(event), "path");
      const { quantity } = await readJsonBody(event, InventoryUpdate);
      return json(inventoryJson(await uc.setInventory.execute(id, quantity)));
    },
  },
];
