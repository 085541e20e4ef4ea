/**
 * The benchmark's baseline: bare h3 on the same server stack (srvx on node:http), doing each route's own work —
 * zod over the same input, a Map for the store, JSON out — and nothing else (no keys, limits, logging, headers).
 * BENCH_SEEDED_PETS pets, each with BENCH_SEEDED_STOCK units.
 * Run by bench/run.ts as a child process: PORT in the environment, control over IPC.
 */
import { H3, serve } from "h3";
import { z } from "zod";
import { answerControl } from "./server-control.ts";

const int64 = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const idString = z
  .string()
  .regex(/^[1-9]\d{0,15}$/)
  .transform(Number);
const NewPet = z.strictObject({
  name: z.string().min(1).max(100),
  categoryId: int64,
  status: z.enum(["available", "pending", "sold"]).optional(),
});
const NewOrder = z.strictObject({
  petId: int64,
  quantity: z.number().int().min(1).max(1000),
  shipDate: z.iso.datetime({ offset: true }).optional(),
});
const PetListQuery = z.strictObject({
  ids: z
    .string()
    .transform((s) => s.split(","))
    .pipe(z.array(idString).max(100))
    .optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
});

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: "available" | "pending" | "sold";
}
const seeded = Number(process.env.BENCH_SEEDED_PETS ?? 1);
const seededStock = Number(process.env.BENCH_SEEDED_STOCK ?? 1_000_000);
const pets = new Map<number, Pet>();
const stock = new Map<number, number>();
for (let id = 1; id <= seeded; id++) {
  pets.set(id, { id, name: `Rex ${id}`, categoryId: 1, status: "available" });
  stock.set(id, seededStock);
}
let nextPetId = seeded + 1;
let nextOrderId = 1;
interface Order {
  id: number;
  petId: number;
  quantity: number;
  shipDate: string | undefined;
  status: "placed";
  complete: boolean;
}
/** Kept, as the service keeps them: an order placed can be read back. */
const orders = new Map<number, Order>();

const firstPets = (n: number): Pet[] => {
  const page: Pet[] = [];
  for (const pet of pets.values()) {
    if (page.length === n) break;
    page.push(pet);
  }
  return page;
};
const petsAfter = (after: number, limit: number): Pet[] => {
  const page: Pet[] = [];
  for (let id = after + 1; id < nextPetId && page.length < limit; id++) {
    const pet = pets.get(id);
    if (pet) page.push(pet);
  }
  return page;
};

const app = new H3();
app.get("/pets", (event) => {
  const q = PetListQuery.parse(Object.fromEntries(event.url.searchParams));
  return q.ids ? q.ids.flatMap((id) => pets.get(id) ?? []) : petsAfter(q.after, q.limit);
});
app.get("/pets/:petId", (event) => {
  const pet = pets.get(idString.parse(event.context.params?.petId));
  if (!pet) throw new Error("not found");
  return pet;
});
app.get("/store/inventory", () =>
  firstPets(20).map((pet) => ({ petId: pet.id, quantity: stock.get(pet.id) ?? 0, status: pet.status })),
);
app.post("/store/orders", async (event) => {
  const input = NewOrder.parse(await event.req.json());
  stock.set(input.petId, (stock.get(input.petId) ?? 0) - input.quantity);
  const order: Order = {
    id: nextOrderId++,
    petId: input.petId,
    quantity: input.quantity,
    shipDate: input.shipDate,
    status: "placed",
    complete: false,
  };
  orders.set(order.id, order);
  event.res.status = 201;
  return order;
});
app.delete("/store/orders/:orderId", (event) => {
  const order = orders.get(idString.parse(event.context.params?.orderId));
  if (!order) throw new Error("not found");
  orders.delete(order.id);
  stock.set(order.petId, (stock.get(order.petId) ?? 0) + order.quantity);
  return new Response(null, { status: 204 });
});
app.post("/pets", async (event) => {
  const input = NewPet.parse(await event.req.json());
  const pet: Pet = {
    id: nextPetId++,
    name: input.name,
    categoryId: input.categoryId,
    status: input.status ?? "available",
  };
  pets.set(pet.id, pet);
  event.res.status = 201;
  return pet;
});

const server = serve(app, {
  port: Number(process.env.PORT),
  hostname: "127.0.0.1",
  silent: true,
  gracefulShutdown: false,
});
await server.ready();
answerControl(() => server.close(true));
