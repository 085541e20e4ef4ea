/**
 * The store round trips of the main use cases on MongoDB, counted with the driver's command monitoring: the figures
 * docs/consistency.md gives. The documents, indexes and commands themselves: mongo-adapters.test.ts.
 */
import type { MongoClient } from "mongodb";
import { BSON, type CommandSucceededEvent } from "mongodb";
import { beforeEach, describe, expect, it } from "vitest";
import { NodeSecrets } from "../../adapters/crypto/node-secrets.ts";
import { CreateApiKey } from "../../core/access/create-api-key.ts";
import type { Actor } from "../../core/access/permissions.ts";
import { CreateCategory } from "../../core/categories/create-category.ts";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import { ListOrders } from "../../core/orders/list-orders.ts";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import { FlushMarkDrops } from "../../core/orders/flush-mark-drops.ts";
import { MARK_DROP_WAIT_MS, MarkDrops } from "../../core/orders/mark-drops.ts";
import type { Order } from "../../core/orders/order.ts";
import { StockHints } from "../../core/orders/stock-hints.ts";
import { UpdateOrder } from "../../core/orders/update-order.ts";
import { CreatePet } from "../../core/pets/create-pet.ts";
import { SetInventory } from "../../core/inventory/set-inventory.ts";
import { DeletePet } from "../../core/pets/delete-pet.ts";
import { GetInventoryItem } from "../../core/inventory/get-inventory-item.ts";
import { GetPet } from "../../core/pets/get-pet.ts";
import { ListPets } from "../../core/pets/list-pets.ts";
import { AdmitRequest } from "../../core/rate-limiting/admit-request.ts";
import type { Stores } from "../../core/stores.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { describeMongo, type FreshMongoDatabase, watchedMongoPerTest } from "../support/mongo.ts";

const staff: Actor = { keyId: 1, role: "staff" };

describeMongo("MongoDB adapters, seen from the server", () => {
  const server = watchedMongoPerTest("mongo-round-trips");
  let mongo: FreshMongoDatabase;
  let monitored: MongoClient;
  let stores: Stores;
  beforeEach(() => ({ mongo, monitored, stores } = server.current()));
  const { commandsOf } = server;

  describe("round trips of the main use cases", () => {
    const clock = new ManualClock("2100-01-01T12:00:30.000Z");

    const givenPetInStock = async (units: number) => {
      const category = await new CreateCategory(stores).execute({ name: `Category ${Math.random()}` });
      const pet = await new CreatePet({ ...stores, clock }).execute({ name: "Rex", categoryId: category.id });
      await new SetInventory({ ...stores, clock }).execute(pet.id, units);
      return pet;
    };

    it("create pet: category check, provisional pet, category check after it, confirmation; the id from the instance's block", async () => {
      const category = await new CreateCategory(stores).execute({ name: "Dogs" });
      const create = () => new CreatePet({ ...stores, clock }).execute({ name: "Rex", categoryId: category.id });
      const creating = ["insert pets", "find categories", "findAndModify pets"];

      expect(await commandsOf(create)).toEqual(["find categories", "findAndModify counters", ...creating]);
      expect(await commandsOf(create)).toEqual(["find categories", ...creating]);
    });

    it("get pet, list pets and an inventory item: one find each", async () => {
      const pet = await givenPetInStock(1);

      expect(await commandsOf(() => new GetPet(stores.pets).execute(pet.id))).toEqual(["find pets"]);
      expect(await commandsOf(() => new ListPets(stores.pets).execute({ limit: 20, statuses: ["available"] }))).toEqual(
        ["find pets"],
      );
      expect(await commandsOf(() => new GetInventoryItem(stores.pets).execute(pet.id))).toEqual(["find pets"]);
    });

    it("list orders: one find, by pet, of one state, or every order", async () => {
      const list = (query: Parameters<ListOrders["execute"]>[0]) => () =>
        new ListOrders(stores.orders).execute(query, staff);

      expect(await commandsOf(list({ limit: 20, petId: 1 }))).toEqual(["find orders"]);
      expect(await commandsOf(list({ limit: 20, complete: false }))).toEqual(["find orders"]);
      expect(await commandsOf(list({ limit: 20 }))).toEqual(["find orders"]);
    });

    it("set inventory: one conditional write, at the revision given (If-Match) or read first", async () => {
      const pet = await givenPetInStock(1);
      const revision = (await stores.pets.ofId(pet.id))!.revision;

      expect(await commandsOf(() => new SetInventory({ ...stores, clock }).execute(pet.id, 5, revision))).toEqual([
        "findAndModify pets",
      ]);
      expect(await commandsOf(() => new SetInventory({ ...stores, clock }).execute(pet.id, 6))).toEqual([
        "find pets", // the revision its write is conditional on: a late copy of it is refused
        "findAndModify pets",
      ]);
    });

    it("place order: reservation (stock, mark and status in one write), the order, the mark dropped; the pet is read first only when this instance has not seen it in stock, the id comes from a block", async () => {
      const pet = await givenPetInStock(3);
      const place = new PlaceOrder({ ...stores, clock });
      const order = () => place.execute({ petId: pet.id, quantity: 1 }, staff);
      const placing = ["findAndModify pets", "insert orders", "findAndModify pets"];

      // The first order of this instance takes a block of ids.
      expect(await commandsOf(order)).toEqual(["find pets", "findAndModify counters", ...placing]);
      expect(await commandsOf(order)).toEqual(placing);
      // The last unit: the hint shows exactly the units asked, so the last-unit variant is tried first.
      expect(await commandsOf(order)).toEqual(placing);
      expect(await stores.pets.ofId(pet.id)).toMatchObject({ stock: 0, status: "pending" });
    });

    it("place order refused: one read, nothing written, whether or not this instance has seen the pet", async () => {
      const pet = await givenPetInStock(1);
      const place = new PlaceOrder({ ...stores, clock });
      const refused = () => place.execute({ petId: pet.id, quantity: 2 }, staff).catch(() => undefined);

      expect(await commandsOf(refused)).toEqual(["find pets"]);
      expect(await commandsOf(refused)).toEqual(["find pets"]);
      await place.execute({ petId: pet.id, quantity: 1 }, staff);
      expect(
        await commandsOf(() => place.execute({ petId: pet.id, quantity: 1 }, staff).catch(() => undefined)),
      ).toEqual(["find pets"]);
    });

    it("place order refused on a stale hint (another instance took the stock): the reservation fails and explains itself", async () => {
      const pet = await givenPetInStock(2);
      const here = new PlaceOrder({ ...stores, clock });
      await here.execute({ petId: pet.id, quantity: 1 }, staff);
      await new PlaceOrder({ ...stores, clock }).execute({ petId: pet.id, quantity: 1 }, staff);

      let refusal: unknown;
      const refuse = async () =>
        (refusal = await here.execute({ petId: pet.id, quantity: 1 }, staff).catch((error: unknown) => error));
      expect(await commandsOf(refuse)).toEqual(["findAndModify pets", "findAndModify pets", "find pets"]);
      const fresh = await new PlaceOrder({ ...stores, clock })
        .execute({ petId: pet.id, quantity: 1 }, staff)
        .catch((error: unknown) => error);
      expect(refusal).toMatchObject({ code: "pet_not_available" });
      const seenByClient = (error: unknown) => ({ ...(error as object), message: (error as Error).message });
      expect(seenByClient(refusal), "the same refusal as after a read").toEqual(seenByClient(fresh));
      expect(await stores.pets.ofId(pet.id)).toMatchObject({ stock: 0, status: "pending", holdCount: 2, marks: [] });
      expect(
        await commandsOf(() => here.execute({ petId: pet.id, quantity: 1 }, staff).catch(() => undefined)),
      ).toEqual(["find pets"]);
    });

    it("cancel order: order, fence, cancellation, release (status included, its likely case first), settled, mark dropped", async () => {
      const pet = await givenPetInStock(2);
      const place = new PlaceOrder({ ...stores, clock });
      const first = await place.execute({ petId: pet.id, quantity: 1 }, staff);
      const last = await place.execute({ petId: pet.id, quantity: 1 }, staff);
      const cancel = new CancelOrder({ ...stores, clock });

      const settled = ["update orders", "findAndModify pets"];
      // From sold out, then not: the fence's read shows which release case applies, and that one is tried first.
      expect(await commandsOf(() => cancel.execute(last.id, staff))).toEqual([
        "find orders",
        "find pets",
        "findAndModify orders",
        "findAndModify pets",
        ...settled,
      ]);
      // The first cancellation left this instance a sight of the pet: the second takes its fence from it.
      expect(await commandsOf(() => cancel.execute(first.id, staff))).toEqual([
        "find orders",
        "findAndModify orders",
        "findAndModify pets",
        ...settled,
      ]);
      expect(await stores.pets.ofId(pet.id)).toMatchObject({ stock: 2, status: "available", holdCount: 0 });
    });

    it("complete order: order, fence, completion, consumption (status included, its likely case first), settled, mark dropped", async () => {
      const pet = await givenPetInStock(2);
      const place = new PlaceOrder({ ...stores, clock });
      const first = await place.execute({ petId: pet.id, quantity: 1 }, staff);
      const last = await place.execute({ petId: pet.id, quantity: 1 }, staff);
      const complete = (id: number) => new UpdateOrder({ ...stores, clock }).execute(id, { complete: true }, staff);

      const settled = ["update orders", "findAndModify pets"];
      expect(await commandsOf(() => complete(first.id))).toEqual([
        "find orders",
        "find pets",
        "findAndModify orders",
        "findAndModify pets",
        ...settled,
      ]);
      expect(await commandsOf(() => complete(last.id))).toEqual([
        "find orders",
        "find pets",
        "findAndModify orders",
        "findAndModify pets",
        ...settled,
      ]);
    });

    it("with the instance's mark drops, as the service runs: an order takes 2 commands and the next one on the pet drops its mark; a cancellation 4, its post still waiting or not; one flush write per pet for what no write took along", async () => {
      const pet = await givenPetInStock(5);
      const [hints, drops] = [new StockHints(), new MarkDrops()];
      const place = new PlaceOrder({ ...stores, clock }, hints, drops);
      const cancel = new CancelOrder({ ...stores, clock }, hints, drops);
      const flush = new FlushMarkDrops({ ...stores, clock }, hints, drops);
      const order = async () => (placed = await place.execute({ petId: pet.id, quantity: 1 }, staff));
      let placed: Order | undefined;
      const placing = ["findAndModify pets", "insert orders"];
      const marks = async () => (await stores.pets.ofId(pet.id))!.marks.map((m) => `${m.kind} ${m.orderId}`);

      expect(await commandsOf(order)).toEqual(["find pets", "findAndModify counters", ...placing]);
      const first = placed!;
      expect(await marks()).toEqual([`reserve ${first.id}`]);
      expect(await commandsOf(order)).toEqual(placing);
      const second = placed!;
      // The second reservation took the first's post along.
      expect(await marks()).toEqual([`reserve ${second.id}`]);
      expect(await commandsOf(() => cancel.execute(first.id, staff))).toEqual([
        "find orders",
        "findAndModify orders",
        "findAndModify pets",
        "update orders",
      ]);
      expect(await marks()).toEqual([`settle ${first.id}`, `reserve ${second.id}`]);
      // A cancellation of an order whose post still waits: the settlement keeps the reservation in its own write.
      expect(await commandsOf(() => cancel.execute(second.id, staff))).toEqual([
        "find orders",
        "findAndModify orders",
        "findAndModify pets",
        "update orders",
      ]);
      expect(await marks()).toEqual([`settle ${first.id}`, `settle ${second.id}`]);
      expect(await commandsOf(() => flush.execute())).toEqual([]);
      clock.advance(MARK_DROP_WAIT_MS);
      expect(await commandsOf(() => flush.execute())).toEqual(["findAndModify pets"]);
      expect(await stores.pets.ofId(pet.id)).toMatchObject({ marks: [], stock: 5, holdCount: 0, heldUnits: 0 });
      // The flush left this instance a sight of the pet with its fences moved: the next order is not refused.
      expect(await commandsOf(order)).toEqual(placing);
    });

    it("cancel and complete on the instance that saw the pet in stock: its fence from the hint, no pet read", async () => {
      const pet = await givenPetInStock(5);
      const hints = new StockHints();
      const place = new PlaceOrder({ ...stores, clock }, hints);
      const [first, second, third] = [
        await place.execute({ petId: pet.id, quantity: 1 }, staff),
        await place.execute({ petId: pet.id, quantity: 1 }, staff),
        await place.execute({ petId: pet.id, quantity: 1 }, staff),
      ];
      const cancel = new CancelOrder({ ...stores, clock }, hints);
      const complete = new UpdateOrder({ ...stores, clock }, hints);
      const hinted = [
        "find orders",
        "findAndModify orders",
        "findAndModify pets",
        "update orders",
        "findAndModify pets",
      ];

      expect(await commandsOf(() => cancel.execute(first!.id, staff))).toEqual(hinted);
      expect(await commandsOf(() => complete.execute(second!.id, { complete: true }, staff))).toEqual(hinted);
      // A hint from before the third order's fence moved: both release cases are refused and the pet read, the order
      // read again, the release applied.
      hints.saw(pet.id, { ...(await stores.pets.ofId(pet.id))!, fences: {} });
      expect(await commandsOf(() => cancel.execute(third!.id, staff))).toEqual([
        "find orders",
        "findAndModify orders",
        "findAndModify pets",
        "findAndModify pets",
        "find pets",
        "find orders",
        "findAndModify pets",
        "update orders",
        "findAndModify pets",
      ]);
      expect(await stores.pets.ofId(pet.id)).toMatchObject({ stock: 4, holdCount: 0, heldUnits: 0, marks: [] });
    });

    it("conditional writes answer the pet or order without its pending events", async () => {
      const pet = await givenPetInStock(2);
      const place = new PlaceOrder({ ...stores, clock });
      const order = await place.execute({ petId: pet.id, quantity: 1 }, staff);
      // Nothing relays here: the pet and the order keep their events pending.
      const written: BSON.Document[] = [];
      const onReply = (event: CommandSucceededEvent) => {
        const value =
          event.commandName === "findAndModify" ? (event.reply as { value: BSON.Document | null }).value : null;
        // Pets and orders carry a revision; the id counters do not.
        if (value && "revision" in value) written.push(value);
      };
      monitored.on("commandSucceeded", onReply);
      try {
        await new SetInventory({ ...stores, clock }).execute(pet.id, 5);
        await new UpdateOrder({ ...stores, clock }).execute(order.id, { complete: true }, staff);
      } finally {
        monitored.off("commandSucceeded", onReply);
      }
      expect(written.length).toBeGreaterThanOrEqual(2);
      for (const value of written) expect(Object.keys(value)).not.toContain("outbox");
      const stored = await mongo.db.collection<{ _id: number; outbox: unknown[] }>("pets").findOne({ _id: pet.id });
      expect(stored!.outbox.length).toBeGreaterThan(0);
    });

    it("a pet's document does not grow with its open orders: with 232 it is the size it was with 32 (its 32 fences in use)", async () => {
      const pet = await givenPetInStock(1_000);
      const place = new PlaceOrder({ ...stores, clock });
      const pets = mongo.db.collection<{ _id: number }>("pets");
      // The outbox is left out: nothing relays here, and the relay's own bound is tested with the outbox.
      const size = async () =>
        BSON.calculateObjectSize((await pets.findOne({ _id: pet.id }, { projection: { outbox: 0, eventsSince: 0 } }))!);
      for (let i = 0; i < 32; i++) await place.execute({ petId: pet.id, quantity: 1 }, staff);
      const withEveryFence = await size();

      for (let i = 0; i < 200; i++) await place.execute({ petId: pet.id, quantity: 1 }, staff);

      expect(await size()).toBe(withEveryFence);
      expect(await stores.pets.ofId(pet.id)).toMatchObject({ stock: 768, holdCount: 232, heldUnits: 232, marks: [] });
    });

    it("delete pet: read, conditional deleting, its orders and the pet (left as gone tombstones, which keep the events not yet relayed)", async () => {
      const relayed = await givenPetInStock(2);
      const events = await stores.outbox.pending(100);
      await stores.outbox.acknowledge(events.map((e) => e.id));
      const unrelayed = await givenPetInStock(2);
      const pending = (await stores.outbox.pending(100)).map((e) => e.id);
      const deleting = [
        "find pets", // open orders refuse here, writing nothing; else the revision deleting is conditional on
        "findAndModify pets",
        "update orders", // each left as its gone tombstone, with its pending events
        "update pets", // the pet left as its gone tombstone, with its pending events
      ];

      expect(await commandsOf(() => new DeletePet({ ...stores, clock }).execute(relayed.id))).toEqual(deleting);
      expect(await commandsOf(() => new DeletePet({ ...stores, clock }).execute(unrelayed.id))).toEqual(deleting);
      expect(pending).not.toEqual([]);
      expect((await stores.outbox.pending(100)).map((e) => e.id)).toEqual(pending);
    });

    it("admission of a request: the key look-up; counted locally from shares taken now and then (6 writes for 100 requests)", async () => {
      const secrets = new NodeSecrets();
      const { secret } = await new CreateApiKey({ ...stores, secrets, clock }).execute({
        label: "shop",
        role: "customer",
        plan: "pro",
      });
      const admit = new AdmitRequest({ ...stores, secrets, clock }, { strikes: 10, seconds: 900 });
      const request = { secret, address: "10.0.0.1", keyRequired: true };
      expect(await commandsOf(() => admit.execute(request))).toEqual(["find api_keys", "insert rate_windows"]);

      const commands = await commandsOf(async () => {
        for (let i = 0; i < 100; i++) expect((await admit.execute(request)).refusal).toBeUndefined();
      });
      // Shares of 2, 4, 8, 16, 32 and 64 units of both windows: 0.06 round trips a request for the counting.
      expect(commands.filter((command) => command !== "find api_keys")).toEqual(
        Array.from({ length: 6 }, () => "findAndModify rate_windows"),
      );
      expect(commands.filter((command) => command === "find api_keys")).toHaveLength(100);
    });
  });
});
