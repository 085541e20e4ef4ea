/**
 * What both Fastify peers share (bench/peer-fastify/server.ts on Maps, bench/peer-fastify-mongo/server.ts on MongoDB):
 * the app with its key check, rate limit, log line and error shape, and the routes' JSON schemas. An API key is
 * checked by its SHA-256 hash against the keys the peer was started with; each key is rate limited by
 * @fastify/rate-limit (with its headers); each request writes one pino line (Fastify's logger at info) to stdout; JSON
 * schemas validate every input (Fastify's Ajv) and serialise every answer. Errors answer the service's Error shape.
 * Both run as child processes of the bench: PORT, BENCH_SEEDED_PETS, BENCH_SEEDED_STOCK and BENCH_PEER_KEYS (JSON:
 * `{ customer: string[], staff: string }`) in the environment, control over IPC.
 */
import { createHash } from "node:crypto";
import rateLimit from "@fastify/rate-limit";
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from "fastify";
import { answerControl } from "../server-control.ts";

export interface Caller {
  id: string;
  role: "customer" | "staff";
}
declare module "fastify" {
  interface FastifyRequest {
    caller: Caller;
  }
}

export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: "available" | "pending" | "sold";
}

export const seededPets = Number(process.env.BENCH_SEEDED_PETS ?? 1);
export const seededStock = Number(process.env.BENCH_SEEDED_STOCK ?? 1_000_000);

const sha256 = (secret: string) => createHash("sha256").update(secret).digest("hex");

export const refuse = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.code(status).send({ code, message, status });

/** The app before its routes: keys, rate limit, one log line a request, the Error shape. */
export const createPeerApp = async (): Promise<FastifyInstance> => {
  const given = JSON.parse(process.env.BENCH_PEER_KEYS ?? "{}") as { customer?: string[]; staff?: string };
  /** Callers by the hash of their key: the keys themselves are not kept. */
  const callers = new Map<string, Caller>();
  given.customer?.forEach((key, i) => callers.set(sha256(key), { id: `customer-${i}`, role: "customer" }));
  if (given.staff) callers.set(sha256(given.staff), { id: "staff", role: "staff" });

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
    if (error.statusCode && error.statusCode < 500)
      return refuse(reply, error.statusCode, "bad_request", error.message);
    reply.log.error(error);
    return refuse(reply, 500, "internal", "Something went wrong");
  });
  return app;
};

/** Listens on PORT and answers the bench's control messages; `closing` runs after the app has closed. */
export const listen = async (app: FastifyInstance, closing: () => Promise<void> = async () => {}) => {
  await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
  answerControl(async () => {
    await app.close();
    await closing();
  });
};

export const id = { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;
export const petSchema = {
  type: "object",
  properties: {
    id: { type: "integer" },
    name: { type: "string" },
    categoryId: { type: "integer" },
    status: { type: "string" },
  },
  required: ["id", "name", "categoryId", "status"],
} as const;
const orderSchema = {
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
export const errors = { "4xx": error };

export type PetsQuery = { ids?: string; limit: number; after?: number };
/** GET /pets: by ids (up to 100) or a page after an id. */
export const petsSchema = {
  querystring: {
    type: "object",
    additionalProperties: false,
    properties: {
      ids: { type: "string", pattern: "^[1-9][0-9]{0,15}(,[1-9][0-9]{0,15}){0,99}$" },
      limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
      after: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    },
  },
  response: { 200: { type: "array", items: petSchema }, ...errors },
};
export const petSchemas = {
  params: { type: "object", properties: { petId: id }, required: ["petId"] },
  response: { 200: petSchema, ...errors },
};
/** The `Link` to the page after a full one. */
export const nextPageLink = (limit: number, page: readonly Pet[]) =>
  page.length === limit ? `</pets?limit=${limit}&after=${page.at(-1)!.id}>; rel="next"` : undefined;

export type OrderBody = { petId: number; quantity: number; shipDate?: string };
export const placeOrderSchema = {
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
  response: { 201: orderSchema, ...errors },
};
export const cancelOrderSchema = {
  params: { type: "object", properties: { orderId: id }, required: ["orderId"] },
  response: errors,
};
