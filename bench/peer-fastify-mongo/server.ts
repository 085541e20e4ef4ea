/**
 * The benchmark's MongoDB peer: what a team writes on Fastify 5 and the official `mongodb` driver in an afternoon
 * (keys, limits, log line, schemas and Error shape shared with the Map peer, bench/peer-fastify/common.ts). Pets (with
 * their stock) and orders are documents; an order is a conditional `$inc` of the pet's stock, a counter for its id and
 * an insert (3 commands); a cancellation is a `findOneAndDelete` and an `$inc` (2). A refusal costs one more read, to
 * tell which refusal it is.
 * Run by bench/mongo-part.ts as a child process: MONGODB_URL and MONGODB_DB (a database of its own, seeded at start
 * when empty) besides the Map peer's PORT, BENCH_SEEDED_PETS, BENCH_SEEDED_STOCK and BENCH_PEER_KEYS.
 */
import { MongoClient } from "mongodb";
import {
  cancelOrderSchema,
  createPeerApp,
  listen,
  nextPageLink,
  petSchemas,
  petsSchema,
  placeOrderSchema,
  refuse,
  seededPets,
  seededStock,
  type OrderBody,
  type Pet,
  type PetsQuery,
} from "../peer-fastify/common.ts";

interface PetDocument {
  _id: number;
  name: string;
  categoryId: number;
  status: Pet["status"];
  stock: number;
}
interface OrderDocument {
  _id: number;
  petId: number;
  quantity: number;
  shipDate?: string;
  complete: boolean;
  placedBy: string;
}

const client = new MongoClient(process.env.MONGODB_URL ?? "mongodb://127.0.0.1:27017/");
await client.connect();
const db = client.db(process.env.MONGODB_DB ?? "peer");
const pets = db.collection<PetDocument>("pets");
const orders = db.collection<OrderDocument>("orders");
const counters = db.collection<{ _id: string; value: number }>("counters");
if ((await pets.estimatedDocumentCount()) === 0)
  await pets.insertMany(
    Array.from({ length: seededPets }, (_, i) => ({
      _id: i + 1,
      name: `Rex ${i + 1}`,
      categoryId: 1,
      status: "available" as const,
      stock: seededStock,
    })),
  );

const shown = { projection: { stock: 0 } } as const;
const asPet = ({ _id, name, categoryId, status }: Omit<PetDocument, "stock">): Pet => ({
  id: _id,
  name,
  categoryId,
  status,
});

const app = await createPeerApp();

app.get<{ Querystring: PetsQuery }>("/pets", { schema: petsSchema }, async (request, reply) => {
  const { ids, limit, after = 0 } = request.query;
  if (ids !== undefined) {
    const wanted = ids.split(",").map(Number);
    const found = new Map<number, Pet>();
    for (const doc of await pets.find({ _id: { $in: wanted } }, shown).toArray()) found.set(doc._id, asPet(doc));
    return wanted.flatMap((one) => found.get(one) ?? []);
  }
  const page = (
    await pets
      .find({ _id: { $gt: after } }, shown)
      .sort({ _id: 1 })
      .limit(limit)
      .toArray()
  ).map(asPet);
  const link = nextPageLink(limit, page);
  if (link) reply.header("link", link);
  return page;
});

app.get<{ Params: { petId: number } }>("/pets/:petId", { schema: petSchemas }, async (request, reply) => {
  const found = await pets.findOne({ _id: request.params.petId }, shown);
  return found ? asPet(found) : refuse(reply, 404, "not_found", "No such pet");
});

app.post<{ Body: OrderBody }>("/store/orders", { schema: placeOrderSchema }, async (request, reply) => {
  const { petId, quantity, shipDate } = request.body;
  const taken = await pets.findOneAndUpdate(
    { _id: petId, stock: { $gte: quantity } },
    { $inc: { stock: -quantity } },
    { projection: { _id: 1 } },
  );
  if (!taken) {
    const pet = await pets.findOne({ _id: petId }, { projection: { stock: 1 } });
    return pet
      ? refuse(reply, 409, "insufficient_stock", `Only ${pet.stock} in stock`)
      : refuse(reply, 422, "unknown_pet", "No such pet");
  }
  const counter = await counters.findOneAndUpdate(
    { _id: "orders" },
    { $inc: { value: 1 } },
    { upsert: true, returnDocument: "after" },
  );
  const placed: OrderDocument = {
    _id: counter!.value,
    petId,
    quantity,
    ...(shipDate === undefined ? {} : { shipDate }),
    complete: false,
    placedBy: request.caller.id,
  };
  await orders.insertOne(placed);
  const { _id, placedBy: _, ...rest } = placed;
  return reply
    .code(201)
    .header("location", `/store/orders/${_id}`)
    .send({ id: _id, ...rest });
});

app.delete<{ Params: { orderId: number } }>(
  "/store/orders/:orderId",
  { schema: cancelOrderSchema },
  async (request, reply) => {
    const { orderId } = request.params;
    const own = request.caller.role === "customer" ? { placedBy: request.caller.id } : {};
    const removed = await orders.findOneAndDelete({ _id: orderId, complete: false, ...own });
    if (!removed) {
      const found = await orders.findOne({ _id: orderId, ...own }, { projection: { complete: 1 } });
      return found
        ? refuse(reply, 409, "order_completed", "The order is complete")
        : refuse(reply, 404, "not_found", "No such order");
    }
    await pets.updateOne({ _id: removed.petId }, { $inc: { stock: removed.quantity } });
    return reply.code(204).send();
  },
);

await listen(app, () => client.close());
