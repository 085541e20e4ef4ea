/**
 * The benchmark's peer: the service a team would write instead, on Fastify 5 with the usual plugins, doing the
 * benched routes' work. An API key is checked by its SHA-256 hash against the keys it was started with; each key is
 * rate limited by @fastify/rate-limit (with its headers); each request writes one pino line (Fastify's logger at info)
 * to stdout; JSON schemas validate every input (Fastify's Ajv) and serialise every answer. Pets, stock and orders
 * live in Maps. Errors answer the service's Error shape.
 * Run by bench/run.ts as a child process: PORT, BENCH_SEEDED_PETS, BENCH_SEEDED_STOCK and BENCH_PEER_KEYS (JSON:
 * `{ customer: string[], staff: string }`) in the environment, control over IPC.
 */
import { createHash } from "node:crypto";
import rateLimit from "@fastify/rate-limit";
import Fastify, { LogController, type FastifyReply } from "fastify";
import { answerControl } from "../server-control.ts";

interface Caller {
  id: string;
  role: "customer" | "staff";
}
declare module "fastify" {
  interface FastifyRequest {
    caller: Caller;
  }
}

const sha256 = (secret: string) => createHash("sha256").update(secret).digest("hex");
const given = JSON.parse(process.env.BENCH_PEER_KEYS ?? "{}") as { customer?: string[]; staff?: string };
/** Callers by the hash of their key: the keys themselves are not kept. */
const callers = new Map<string, Caller>();
given.customer?.forEach((key, i) => callers.set(sha256(key), { id: `customer-${i}`, role: "customer" }));
if (given.staff) callers.set(sha256(given.staff), { id: "staff", role: "staff" });

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: "available" | "pending" | "sold";
}
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
const seededPets = Number(process.env.BENCH_SEEDED_PETS ?? 1);
const seededStock = Number(process.env.BENCH_SEEDED_STOCK ?? 1_000_000);
for (let id = 1; id <= seededPets; id++) {
  pets.set(id, { id, name: `Rex ${id}`, categoryId: 1, status: "available" });
  stock.set(id, seededStock);
}
let nextPetId = seededPets + 1;
let nextOrderId = 1;

const refuse = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.code(status).send({ code, message, status });

const app = Fastify({
  logger: { level: "info" },
  // One line per request, written when it is answered (below), instead of Fastify's two.
  logController: new LogController({ disableRequestLogging: true }),
  // Unknown properties are refused, as the service refuses them, rather than dropped.
  ajv: { customOptions: { removeAdditional: false } },
});

app.decorateRequest("caller", null as unknown as Caller);
app.addHook("onRequest", async (request, reply) => {
  const presented = request.headers["x-api-key"];
  const caller = typeof presented === "string" ? callers.get(sha256(presented)) : undefined;
  if (!caller) return refuse(reply, 401, "unauthorized", "A valid API key is needed");
  request.caller = caller;
});
await app.register(rateLimit, {
  max: 1_000_000_000,
  timeWindow: 60_000,
  keyGenerator: (request) => request.caller.id,
});
app.addHook("onResponse", async (request, reply) => {
  request.log.info(
    {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: reply.elapsedTime,
      key: request.caller?.id,
    },
    "request",
  );
});
app.setErrorHandler((error: { validation?: unknown; statusCode?: number; message: string }, _request, reply) => {
  if (error.validation) return refuse(reply, 400, "validation_failed", error.message);
  if (error.statusCode === 429) return refuse(reply, 429, "rate_limited", error.message);
  if (error.statusCode && error.statusCode < 500) return refuse(reply, error.statusCode, "bad_request", error.message);
  reply.log.error(error);
  return refuse(reply, 500, "internal", "Something went wrong");
});

const id = { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;
const pet = {
  type: "object",
  properties: {
    id: { type: "integer" },
    name: { type: "string" },
    categoryId: { type: "integer" },
    status: { type: "string" },
  },
  required: ["id", "name", "categoryId", "status"],
} as const;
const order = {
  type: "object",
  properties: {
    id: { type: "integer" },
    petId: { type: "integer" },
    quantity: { type: "integer" },
    shipDate: { type: "string" },
    complete: { type: "boolean" },
  },
  required: ["id", "petId", "quantity", "complete"],
} as const;
const error = {
  type: "object",
  properties: { code: { type: "string" }, message: { type: "string" }, status: { type: "integer" } },
} as const;
const errors = { "4xx": error };

app.get<{ Querystring: { ids?: string; limit: number; after?: number } }>(
  "/pets",
  {
    schema: {
      querystring: {
        type: "object",
        additionalProperties: false,
        properties: {
          ids: { type: "string", pattern: "^[1-9][0-9]{0,15}(,[1-9][0-9]{0,15}){0,99}$" },
          limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
          after: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        },
      },
      response: { 200: { type: "array", items: pet }, ...errors },
    },
  },
  async (request, reply) => {
    const { ids, limit, after = 0 } = request.query;
    if (ids !== undefined) return ids.split(",").flatMap((one) => pets.get(Number(one)) ?? []);
    const page: Pet[] = [];
    for (let petId = after + 1; petId < nextPetId && page.length < limit; petId++) {
      const found = pets.get(petId);
      if (found) page.push(found);
    }
    if (page.length === limit) reply.header("link", `</pets?limit=${limit}&after=${page.at(-1)!.id}>; rel="next"`);
    return page;
  },
);

app.get<{ Params: { petId: number } }>(
  "/pets/:petId",
  {
    schema: {
      params: { type: "object", properties: { petId: id }, required: ["petId"] },
      response: { 200: pet, ...errors },
    },
  },
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
      response: { 201: pet, ...errors },
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

app.post<{ Body: { petId: number; quantity: number; shipDate?: string } }>(
  "/store/orders",
  {
    schema: {
      body: {
        type: "object",
        additionalProperties: false,
        properties: {
          petId: id,
          quantity: { type: "integer", minimum: 1, maximum: 1000 },
          shipDate: { type: "string", format: "date-time" },
        },
        required: ["petId", "quantity"],
      },
      response: { 201: order, ...errors },
    },
  },
  async (request, reply) => {
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
  },
);

app.delete<{ Params: { orderId: number } }>(
  "/store/orders/:orderId",
  { schema: { params: { type: "object", properties: { orderId: id }, required: ["orderId"] }, response: errors } },
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

await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
answerControl(() => app.close());
