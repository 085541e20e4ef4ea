import type { Actor } from "../../core/access/permissions.ts";
import { CreateCategory } from "../../core/categories/create-category.ts";
import { DeleteCategory } from "../../core/categories/delete-category.ts";
import type { RecordedResponse } from "../../core/idempotency/idempotency-records.port.ts";
import { RunIdempotently } from "../../core/idempotency/run-idempotently.ts";
import { SetInventory } from "../../core/inventory/set-inventory.ts";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import { FlushMarkDrops } from "../../core/orders/flush-mark-drops.ts";
import { MarkDrops } from "../../core/orders/mark-drops.ts";
import { StockHints } from "../../core/orders/stock-hints.ts";
import { UpdateOrder } from "../../core/orders/update-order.ts";
import { CreatePet } from "../../core/pets/create-pet.ts";
import { DeletePet } from "../../core/pets/delete-pet.ts";
import type { PetStatus } from "../../core/pets/pet.ts";
import { UpdatePet } from "../../core/pets/update-pet.ts";
import { RecoverInterruptedWrites } from "../../core/recovery/recover-interrupted-writes.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import type { Stores } from "../../core/stores.ts";
import { RelayEvents } from "../../core/webhooks/relay-events.ts";
import { context, GRACE_MS, type Engine, type Instance } from "./engine.ts";
import type { Random } from "./random.ts";

const RECOVERY_INTERVAL_MS = 10_000;
const staff: Actor = { keyId: 1, role: "staff" };

/** The use cases of one instance: its own caches (stock hints, marks left to drop, nonce prefix), as a process has. */
export const useCasesOn = (stores: Stores, engine: Engine) => {
  const ports = { ...stores, clock: engine.clock };
  const hints = new StockHints();
  const drops = new MarkDrops();
  return {
    stores,
    createCategory: new CreateCategory(ports),
    createPet: new CreatePet(ports),
    updatePet: new UpdatePet(ports),
    deletePet: new DeletePet(ports),
    deleteCategory: new DeleteCategory(ports),
    setInventory: new SetInventory(ports),
    placeOrder: new PlaceOrder(ports, hints, drops),
    updateOrder: new UpdateOrder(ports, hints, drops),
    cancelOrder: new CancelOrder(ports, hints, drops),
    flushDrops: new FlushMarkDrops(ports, hints, drops),
    recover: new RecoverInterruptedWrites(ports, GRACE_MS),
    relay: new RelayEvents({
      events: stores.outbox,
      eventLog: stores.eventLog,
      webhooks: stores.webhooks,
      webhookMessages: stores.webhookMessages,
      clock: engine.clock,
    }),
    runIdempotently: new RunIdempotently({ records: stores.idempotency, clock: engine.clock }),
  };
};
export type UseCases = ReturnType<typeof useCasesOn>;

/** What clients were told: the checks hold the store to it. */
export interface Ledger {
  /** Orders acknowledged (201) to a placer. */
  placed: Map<number, { actor: string; petId: number; quantity: number }>;
  /** Attempts answered 503 "undone, place it again". */
  undone: Set<number>;
  /** Orders someone tried to cancel (acknowledged or not): they may be gone. */
  cancelTried: Set<number>;
  cancelled: Set<number>;
  completed: Set<number>;
  stockSet: { petId: number; quantity: number }[];
  deletedPets: Set<number>;
  deletedCategories: Set<number>;
}

export const emptyLedger = (): Ledger => ({
  placed: new Map(),
  undone: new Set(),
  cancelTried: new Set(),
  cancelled: new Set(),
  completed: new Set(),
  stockSet: [],
  deletedPets: new Set(),
  deletedCategories: new Set(),
});

type Outcome<T> = { kind: "ok"; value: T } | { kind: "error"; error: unknown } | { kind: "crashed" };

const describe = (outcome: Outcome<unknown>): string => {
  if (outcome.kind === "crashed") return "instance crashed";
  if (outcome.kind === "ok") return "ok";
  const e = outcome.error;
  return e instanceof DomainError ? e.code : e instanceof Error ? `${e.name}` : String(e);
};

/** Retryable, as a client sees it: a 503 of any kind, a dropped connection, a key still in progress. */
const retryable = (outcome: Outcome<unknown>): boolean =>
  outcome.kind === "crashed" ||
  (outcome.kind === "error" &&
    (!(outcome.error instanceof DomainError) ||
      outcome.error.code === "service_unavailable" ||
      outcome.error.code === "idempotency_request_in_progress" ||
      outcome.error.code === "concurrent_update"));

interface Live {
  instance: Instance;
  uc: UseCases;
  /** The start-up recovery pass: a process serves once it is done. */
  ready: Promise<unknown>;
}

/**
 * Clients and background loops over two instances. Each client runs a few operations with retries; each instance
 * runs recovery at start-up and every interval, and relays events, while any client is still at work.
 */
export class Workload {
  readonly ledger = emptyLedger();
  readonly #engine: Engine;
  readonly #random: Random;
  readonly #live = new Map<string, Live>();
  #attempts = 0;
  #clientsLeft = 0;
  #pets: number[] = [];
  #categories: number[] = [];

  readonly #relaySeconds: number;

  constructor(engine: Engine, pets: number[], categories: number[], relaySeconds: number) {
    this.#relaySeconds = relaySeconds;
    this.#engine = engine;
    this.#random = engine.random;
    this.#pets = pets;
    this.#categories = categories;
    engine.onCrash = (dead) => this.#start(dead.name, dead.generation + 1);
  }

  /** Two instances, `clients` clients spread over them. */
  begin(clients: number): void {
    // Counted first: the instances' loops run while clients are left.
    this.#clientsLeft = clients;
    this.#start("A", 1);
    this.#start("B", 1);
    for (let i = 0; i < clients; i++) {
      const name = `c${i}`;
      const customer: Actor = { keyId: 10 + i, role: "customer" };
      void this.#client(name, customer);
    }
  }

  #start(name: string, generation: number): void {
    const instance = this.#engine.instance(name, generation);
    const uc = useCasesOn(instance.stores, this.#engine);
    const live: Live = { instance, uc, ready: Promise.resolve() };
    this.#live.set(name, live);
    live.ready = this.#background("recovery", async () => {
      const pass = () => uc.recover.execute().catch(() => undefined);
      // A start-up that fails is retried by the next process; here it goes on to recovery, as it would then.
      const first = this.#engine
        .startUp(instance)
        .catch(() => undefined)
        .then(pass);
      void first.then(async () => {
        while (this.#clientsLeft > 0) {
          await this.#engine.sleep(instance, RECOVERY_INTERVAL_MS);
          if (this.#clientsLeft === 0) return;
          await pass();
        }
      });
      return first;
    });
    void this.#background("relay", async () => {
      while (this.#clientsLeft > 0) {
        await this.#engine.sleep(instance, this.#random.between(1, this.#relaySeconds) * 1000);
        if (this.#clientsLeft === 0) return;
        await uc.relay.execute().catch(() => undefined);
      }
    });
    // As bootstrap's loop: every fraction of the wait, any run possibly racing the instance's own reservations.
    void this.#background("drops", async () => {
      while (this.#clientsLeft > 0) {
        await this.#engine.sleep(instance, this.#random.between(1, 8) * 250);
        if (this.#clientsLeft === 0) return;
        await uc.flushDrops.execute().catch(() => undefined);
      }
    });
  }

  #background<T>(actor: string, body: () => Promise<T>): Promise<T> {
    return context.run({ actor, attempt: ++this.#attempts }, body);
  }

  /** One request on an instance: its outcome, or "crashed" when the instance dies first. */
  async #request<T>(actor: string, on: string, op: string, body: (uc: UseCases) => Promise<T>): Promise<Outcome<T>> {
    const live = this.#live.get(on)!;
    const attempt = ++this.#attempts;
    const outcome = await context.run({ actor, attempt }, async (): Promise<Outcome<T>> => {
      const crashed = live.instance.crashed.then((): Outcome<T> => ({ kind: "crashed" }));
      return Promise.race([
        crashed,
        live.ready.then(() =>
          body(live.uc).then(
            (value): Outcome<T> => ({ kind: "ok", value }),
            (error: unknown): Outcome<T> => ({ kind: "error", error }),
          ),
        ),
      ]);
    });
    if (
      outcome.kind === "error" &&
      outcome.error instanceof DomainError &&
      outcome.error.code === "service_unavailable" &&
      outcome.error.message.includes("undone")
    )
      this.ledger.undone.add(attempt);
    this.#engine.note(`${actor} ${op} on ${on} -> ${describe(outcome)}`);
    return outcome;
  }

  #instanceName(): string {
    return this.#random.chance(0.5) ? "A" : "B";
  }

  async #client(name: string, customer: Actor): Promise<void> {
    const mine: number[] = [];
    try {
      const operations = this.#random.between(1, 4);
      for (let i = 0; i < operations; i++) await this.#operation(name, customer, mine);
    } finally {
      this.#clientsLeft -= 1;
    }
  }

  /** Retries a request on any instance while it fails retryably, up to `tries` times, a few simulated seconds apart. */
  async #withRetries<T>(
    name: string,
    op: string,
    tries: number,
    body: (uc: UseCases) => Promise<T>,
    retryOn: (outcome: Outcome<T>) => boolean = retryable,
  ): Promise<Outcome<T>> {
    let outcome: Outcome<T> = { kind: "crashed" };
    for (let i = 0; i < tries; i++) {
      outcome = await this.#request(name, this.#instanceName(), op, body);
      if (!retryOn(outcome)) return outcome;
      await this.#engine.sleep({ alive: true }, this.#random.between(1, 70) * 1000);
    }
    return outcome;
  }

  async #operation(name: string, customer: Actor, mine: number[]): Promise<void> {
    const r = this.#random;
    const pet = () => r.pick(this.#pets);
    const anyOrder = () => r.between(1, Math.max(1, this.#engine.observed.maxId.get("orders") ?? 1));
    const roll = r.int(100);
    if (roll < 40) {
      const petId = pet();
      const quantity = r.between(1, 3);
      const keyed = r.chance(0.5);
      const id = keyed
        ? await this.#placeWithKey(name, customer, petId, quantity)
        : await this.#placeWithoutKey(name, customer, petId, quantity);
      if (id !== undefined) {
        mine.push(id);
        this.ledger.placed.set(id, { actor: name, petId, quantity });
      }
    } else if (roll < 55) {
      const id = mine.length > 0 && r.chance(0.8) ? r.pick(mine) : anyOrder();
      const as = r.chance(0.8) ? customer : staff;
      this.ledger.cancelTried.add(id);
      const outcome = await this.#withRetries(name, `cancel order ${id}`, 3, (uc) => uc.cancelOrder.execute(id, as));
      if (outcome.kind === "ok") this.ledger.cancelled.add(id);
    } else if (roll < 67) {
      const id = mine.length > 0 && r.chance(0.7) ? r.pick(mine) : anyOrder();
      const outcome = await this.#withRetries(name, `complete order ${id}`, 3, (uc) =>
        uc.updateOrder.execute(id, { complete: true }, staff),
      );
      if (outcome.kind === "ok") this.ledger.completed.add(id);
    } else if (roll < 77) {
      const petId = pet();
      const quantity = r.between(0, 5);
      const outcome = await this.#withRetries(name, `set stock of ${petId} to ${quantity}`, 3, (uc) =>
        uc.setInventory.execute(petId, quantity),
      );
      if (outcome.kind === "ok") this.ledger.stockSet.push({ petId, quantity });
    } else if (roll < 83) {
      const petId = pet();
      const status: PetStatus | undefined = r.pick([undefined, "available", "pending", "sold"] as const);
      // As a client would: read the pet, then PUT it back with its category and the status asked.
      await this.#withRetries(name, `edit pet ${petId} (${status ?? "status kept"})`, 2, async (uc) => {
        const current = await uc.stores.pets.ofId(petId);
        if (!current) throw new DomainError("not_found", `Pet ${petId} does not exist`);
        return uc.updatePet.execute(petId, { name: current.name, categoryId: current.categoryId, status });
      });
    } else if (roll < 89) {
      const petId = pet();
      const to = r.pick(this.#categories);
      await this.#withRetries(name, `move pet ${petId} to ${to}`, 2, (uc) =>
        uc.updatePet.execute(petId, { name: `pet ${petId}`, categoryId: to }),
      );
    } else if (roll < 95) {
      // Now and then a pet created first and deleted at once: a late copy of its insert must not bring it back.
      const created = r.chance(0.5) ? await this.#createPet(name) : undefined;
      const petId = created ?? pet();
      const outcome = await this.#withRetries(name, `delete pet ${petId}`, 3, (uc) => uc.deletePet.execute(petId));
      if (outcome.kind === "ok") this.ledger.deletedPets.add(petId);
    } else {
      const categoryId = r.pick(this.#categories);
      const outcome = await this.#withRetries(name, `delete category ${categoryId}`, 3, (uc) =>
        uc.deleteCategory.execute(categoryId),
      );
      if (outcome.kind === "ok") this.ledger.deletedCategories.add(categoryId);
    }
  }

  /** A pet in one of the categories; once created, the workload's other operations pick it too. */
  async #createPet(name: string): Promise<number | undefined> {
    const categoryId = this.#random.pick(this.#categories);
    const outcome = await this.#withRetries(name, `create a pet in category ${categoryId}`, 2, (uc) =>
      uc.createPet.execute({ name: `pet of ${name}`, categoryId }),
    );
    if (outcome.kind !== "ok") return undefined;
    this.#pets.push(outcome.value.id);
    return outcome.value.id;
  }

  async #placeWithoutKey(name: string, customer: Actor, petId: number, quantity: number): Promise<number | undefined> {
    // A client without a key places again only when told the order was undone, or (once in two) after a 503.
    for (let i = 0; i < 3; i++) {
      const outcome = await this.#request(name, this.#instanceName(), `place ${quantity} of pet ${petId}`, (uc) =>
        uc.placeOrder.execute({ petId, quantity }, customer),
      );
      if (outcome.kind === "ok") return outcome.value.id;
      const undone =
        outcome.kind === "error" &&
        outcome.error instanceof DomainError &&
        outcome.error.code === "service_unavailable";
      if (!undone && !(retryable(outcome) && this.#random.chance(0.5))) return undefined;
      await this.#engine.sleep({ alive: true }, this.#random.between(1, 70) * 1000);
    }
    return undefined;
  }

  async #placeWithKey(name: string, customer: Actor, petId: number, quantity: number): Promise<number | undefined> {
    const key = `key-${name}-${++this.#attempts}`;
    const outcome = await this.#withRetries(
      name,
      `place ${quantity} of pet ${petId} (key ${key})`,
      5,
      async (uc): Promise<RecordedResponse> => {
        const { response } = await uc.runIdempotently.execute(
          { scope: `key:${customer.keyId}`, key, fingerprint: `${petId}:${quantity}` },
          async (attempt) => {
            try {
              const order = await uc.placeOrder.execute({ petId, quantity }, customer, attempt);
              return { status: 201, body: String(order.id), headers: {} };
            } catch (error) {
              const status =
                error instanceof DomainError && error.code !== "service_unavailable"
                  ? error.code === "idempotency_request_in_progress"
                    ? 409
                    : 422
                  : 503;
              return { status, body: error instanceof DomainError ? error.code : "store", headers: {} };
            }
          },
          (recorded) => recorded.status < 500,
        );
        if (response.status === 503) throw new DomainError("service_unavailable", `answered 503 ${response.body}`, 1);
        return response;
      },
    );
    return outcome.kind === "ok" && outcome.value.status === 201 ? Number(outcome.value.body) : undefined;
  }
}
