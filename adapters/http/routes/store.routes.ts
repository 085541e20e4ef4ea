import { orderJson } from "../presenters.ts";
import { readJsonBody } from "../json-body.ts";
import { json, noContent } from "../json.ts";
import { created, pageResponse, pathParams, queryOf, type Route } from "../route.ts";
import { idParam, InventoryListQuery, InventoryUpdate, NewOrder, OrderListQuery, OrderUpdate } from "../schemas.ts";
import type { UseCases } from "../use-cases.ts";
import { parseOrReject } from "../validation.ts";

const orderId = idParam("orderId");
const petId = idParam("petId");

export const storeRoutes = (uc: UseCases): Route[] => [
  {
    method: "POST",
    path: "/store/orders",
    operationId: "placeOrder",
    access: { permission: "orders:place" },
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
    handle: async (event) => {
      const q = parseOrReject(InventoryListQuery, queryOf(event), "query");
      const page = await uc.listInventory.execute({ limit: q.limit ?? 20, after: q.after, statuses: q.status });
      return pageResponse(event, page, (item) => item);
    },
  },
  {
    method: "GET",
    path: "/store/inventory/:petId",
    operationId: "getInventoryItem",
    access: { permission: "inventory:read" },
    handle: async (event) => {
      const { petId: id } = parseOrReject(petId, pathParams(event), "path");
      return json(await uc.getInventoryItem.execute(id));
    },
  },
  {
    method: "PUT",
    path: "/store/inventory/:petId",
    operationId: "setInventory",
    access: { permission: "inventory:write" },
    handle: async (event) => {
      const { petId: id } = parseOrReject(petId, pathParams(event), "path");
      const { quantity } = await readJsonBody(event, InventoryUpdate);
      return json(await uc.setInventory.execute(id, quantity));
    },
  },
];
