/**
 * The benchmark's peer: the service a team would write instead, on Fastify 5 with the usual plugins, doing the
 * benched routes' work (keys, limits, log line, schemas and Error shape in bench/peer-fastify/common.ts). Pets, stock
 * and orders live in Maps.
 * Run by bench/run.ts as a child process: PORT, BENCH_SEEDED_PETS, BENCH_SEEDED_STOCK and BENCH_PEER_KEYS (JSON:
 * `{ customer: string[], staff: string }`) in the environment, control over IPC.
 */
import {
  cancelOrderSchema,
  createPeerApp,
  errors,
  id,
  listen,
  nextPageLink,
  petSchema,
  petSchemas,
  petsSchema,
  placeOrderSchema,
  refuse,
  seededPets,
  seededStock,
  type OrderBody,
  type Pet,
  type PetsQuery,
} from "./common.ts";

interface Order {
  id: number;
  petId: number;
  quantity: number;
  shipDate?: string;
  complete: boolean;
  placedBy: string;
}
const pets = new Map<number, Pet>();
const stock = new Map<number, number>();
const orders = new Map<number, Order>();
for (let id = 1; id <= seededPets; id++) {
  pets.set(id, { id, name: `Rex ${id}`, categoryId: 1, status: "available" });
  stock.set(id, seededStock);
}
let nextPetId = seededPets + 1;
let nextOrderId = 1;

const app = await createPeerApp();

app.get<{ Querystring: PetsQuery }>("/pets", { schema: petsSchema }, async (request, reply) => {
  const { ids, limit, after = 0 } = request.query;
  if (ids !== undefined) return ids.split(",").flatMap((one) => pets.get(Number(one)) ?? []);
  const page: Pet[] = [];
  for (let petId = after + 1; petId < nextPetId && page.length < limit; petId++) {
    const found = pets.get(petId);
    if (found) page.push(found);
  }
  const link = nextPageLink(limit, page);
  if (link) reply.header("link", link);
  return page;
});

app.get<{ Params: { petId: number } }>(
  "/pets/:petId",
  { schema: petSchemas },
  async (request, reply) => pets.get(request.params.petId) ?? refuse(reply, 404, "not_found", "No such pet"),
);

app.post<{ Body: { name: string; categoryId: number; status?: Pet["status"] } }>(
  "/pets",
  {
    schema: {
      body: {
        type: "object",
        additionalProperties: false,
        properties: {
          name: { type: "string", minLength: 1, maxLength: 100 },
          categoryId: id,
          status: { type: "string", enum: ["available", "pending", "sold"] },
        },
        required: ["name", "categoryId"],
      },
      response: { 201: petSchema, ...errors },
    },
  },
  async (request, reply) => {
    if (request.caller.role !== "staff") return refuse(reply, 403, "forbidden", "Staff only");
    const created: Pet = {
      id: nextPetId++,
      name: request.body.name,
      categoryId: request.body.categoryId,
      status: request.body.status ?? "available",
    };
    pets.set(created.id, created);
    stock.set(created.id, 0);
    return reply.code(201).header("location", `/pets/${created.id}`).send(created);
  },
);

app.get(
  "/store/inventory",
  {
    schema: {
      response: {
        200: {
          type: "array",
          items: {
            type: "object",
            properties: { petId: { type: "integer" }, quantity: { type: "integer" }, status: { type: "string" } },
          },
        },
      },
    },
  },
  async () => {
    const page = [];
    for (const listed of pets.values()) {
      if (page.length === 20) break;
      page.push({ petId: listed.id, quantity: stock.get(listed.id) ?? 0, status: listed.status });
    }
    return page;
  },
);

app.post<{ Body: OrderBody }>("/store/orders", { schema: placeOrderSchema }, async (request, reply) => {
  const { petId, quantity, shipDate } = request.body;
  if (!pets.has(petId)) return refuse(reply, 422, "unknown_pet", "No such pet");
  const units = stock.get(petId) ?? 0;
  if (units < quantity) return refuse(reply, 409, "insufficient_stock", `Only ${units} in stock`);
  stock.set(petId, units - quantity);
  const placed: Order = {
    id: nextOrderId++,
    petId,
    quantity,
    ...(shipDate === undefined ? {} : { shipDate }),
    complete: false,
    placedBy: request.caller.id,
  };
  orders.set(placed.id, placed);
  return reply.code(201).header("location", `/store/orders/${placed.id}`).send(placed);
});

app.delete<{ Params: { orderId: number } }>(
  "/store/orders/:orderId",
  { schema: cancelOrderSchema },
  async (request, reply) => {
    const found = orders.get(request.params.orderId);
    if (!found || (request.caller.role === "customer" && found.placedBy !== request.caller.id))
      return refuse(reply, 404, "not_found", "No such order");
    if (found.complete) return refuse(reply, 409, "order_completed", "The order is complete");
    orders.delete(found.id);
    stock.set(found.petId, (stock.get(found.petId) ?? 0) + found.quantity);
    return reply.code(204).send();
  },
);

await listen(app);
