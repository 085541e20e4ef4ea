import type { Actor } from "../access/permissions.ts";
import { notedId, type IdempotentAttempt } from "../idempotency/run-idempotently.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import { markOf, type PetRecord } from "../pets/pet-record.ts";
import {
  foreseeReserve,
  postReservationSeeing,
  reserveSeeing,
  voidReservation,
  type PetSight,
  type ReserveOutcome,
} from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { NewOrder, Order } from "./order.ts";
import { abandonedOrder, orderOf, type OrderRecord } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";
import type { MarkDrops } from "./mark-drops.ts";
import { StockHints } from "./stock-hints.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  ids: IdAllocator;
  clock: Clock;
}

interface Placing {
  input: NewOrder;
  actor: Actor;
  attempt: IdempotentAttempt | undefined;
}

// The names: docs/consistency.md#resuming-a-placing-and-a-refused-insert
interface Resumed {
  answer?: OrderRecord | undefined;
  takeOver?: number | undefined;
  /** Read to decide. */
  pet?: PetRecord | undefined;
}

interface Reservation {
  outcome: "reserved" | "already-held";
  nonce: string | undefined;
}

const refusal = (outcome: Exclude<ReserveOutcome, "reserved" | "already-held">, order: NewOrder): DomainError =>
  ({
    "unknown-pet": new DomainError("unknown_pet", `Pet ${order.petId} does not exist`),
    "not-available": new DomainError("pet_not_available", `Pet ${order.petId} is not available`),
    "insufficient-stock": new DomainError(
      "insufficient_stock",
      `Pet ${order.petId} has fewer than ${order.quantity} units in stock`,
    ),
  })[outcome];

const answers = (order: OrderRecord, { input, actor }: Placing): boolean =>
  order.state !== "abandoned" &&
  order.placedBy === actor.keyId &&
  order.petId === input.petId &&
  order.quantity === input.quantity;

const owns = (order: OrderRecord, nonce: string | undefined): boolean =>
  order.state !== "abandoned" && nonce !== undefined && order.reservation === nonce;

// Steps and crash points: docs/consistency.md#multi-step-writes-and-their-crash-points ("place order").
export class PlaceOrder {
  readonly #ports: Ports;
  readonly #hints: StockHints;
  /** The instance's, when it flushes them (bootstrap): a post then waits to ride on its next reservation of the pet. */
  readonly #drops: MarkDrops | undefined;
  /** Nonces: a random prefix per instance and a counter, unique without a random draw per attempt. */
  readonly #noncePrefix = `${crypto.randomUUID().slice(0, 13)}.`;
  #attempts = 0;
  constructor(ports: Ports, hints = new StockHints(), drops?: MarkDrops) {
    this.#ports = ports;
    this.#hints = hints;
    this.#drops = drops;
  }

  async execute(input: NewOrder, actor: Actor, attempt?: IdempotentAttempt): Promise<Order> {
    const placing: Placing = { input, actor, attempt };
    const { answer, takeOver, pet } = await this.#resumeNotedAttempt(placing);
    if (answer) return orderOf(answer);
    // Under a taken-over id, units may be held already: only the reservation can tell.
    const seen = takeOver === undefined ? await this.#foreseeRefusal(input, pet) : pet;
    const id = takeOver ?? (await this.#ports.ids.next("orders"));
    if (attempt) await attempt.note({ orderId: id });
    const reservation = await this.#reserve(input, id, seen);
    const order = this.#openOrder(placing, id, reservation.nonce);
    const placed = stampEvent(order.createdAt, "order.placed", orderData(order, false));
    if (!(await this.#ports.orders.insert(order, [placed])))
      return orderOf(await this.#insertRefused(placing, order, reservation));
    await this.#postReservation(order);
    return orderOf(order);
  }

  // Burnt unless taken over: it may be an order's since deleted, and no attempt of the key writes there again.
  async #resumeNotedAttempt(placing: Placing): Promise<Resumed> {
    const { orders, pets, clock } = this.#ports;
    const { input } = placing;
    const noted = notedId(placing.attempt, "orderId");
    if (noted === undefined) return {};
    const there = await orders.ofId(noted);
    if (there) return answers(there, placing) ? { answer: there } : {};
    const pet = await pets.ofId(input.petId);
    if (markOf(pet, noted, "reserve")) return { takeOver: noted };
    if (await orders.insert(abandonedOrder(noted, input.petId, input.quantity, clock.now()))) return { pet };
    const placed = await orders.ofId(noted);
    return placed && answers(placed, placing) ? { answer: placed } : { pet };
  }

  /** Skipped on a hint of enough stock. What the reservation expects of the pet. */
  async #foreseeRefusal(input: NewOrder, pet: PetRecord | undefined): Promise<PetSight | undefined> {
    const hinted = this.#hints.sightOf(input.petId);
    if (pet === undefined && hinted !== undefined && hinted.stock >= input.quantity) return hinted;
    pet ??= await this.#ports.pets.ofId(input.petId);
    this.#hints.saw(input.petId, pet);
    const refused = foreseeReserve(pet, input.quantity);
    if (refused) throw refusal(refused, input);
    return pet;
  }

  async #reserve(input: NewOrder, id: number, seen: PetSight | undefined): Promise<Reservation> {
    const { pets, clock } = this.#ports;
    const nonce = this.#noncePrefix + (this.#attempts++).toString(36);
    const drops = this.#drops?.take(input.petId) ?? [];
    let reserved;
    try {
      reserved = await reserveSeeing(pets, clock, input.petId, id, input.quantity, nonce, seen, drops);
    } catch (error) {
      // Applied or not, unknown: each drop is conditional, so a second try is refused or drops what is left.
      this.#drops?.giveBack(input.petId, drops, clock.now());
      throw error;
    }
    const { outcome, pet, undropped } = reserved;
    this.#drops?.giveBack(input.petId, undropped, clock.now());
    this.#hints.saw(input.petId, pet);
    if (outcome === "reserved") return { outcome, nonce };
    if (outcome === "already-held") return { outcome, nonce: markOf(pet, id, "reserve")?.nonce };
    throw refusal(outcome, input);
  }

  #openOrder({ input, actor }: Placing, id: number, reservation: string | undefined): OrderRecord {
    return {
      id,
      petId: input.petId,
      quantity: input.quantity,
      shipDate: input.shipDate,
      placedBy: actor.keyId,
      state: "open",
      revision: 1,
      createdAt: this.#ports.clock.now(),
      reservation,
    };
  }

  // Keeping moves the fence: the pet it answers is this instance's next sight of it. Left to ride when it can.
  async #postReservation(order: OrderRecord): Promise<void> {
    if (order.reservation === undefined) return;
    const drop = { orderId: order.id, kind: "reserve", nonce: order.reservation } as const;
    if (this.#drops?.defer(order.petId, drop, this.#ports.clock.now())) return;
    const pet = await postReservationSeeing(this.#ports.pets, order.petId, order.id, order.reservation);
    this.#hints.saw(order.petId, pet);
  }

  // Taken by this very insert (a driver's retry), another attempt of the key, or recovery's tombstone.
  async #insertRefused(placing: Placing, order: OrderRecord, reservation: Reservation): Promise<OrderRecord> {
    const { orders, pets, clock } = this.#ports;
    const there = await orders.ofId(order.id);
    if (there && owns(there, order.reservation)) {
      await this.#postReservation(order);
      return there;
    }
    if (reservation.outcome === "reserved")
      await voidReservation(pets, clock, order.petId, order.id, order.quantity, reservation.nonce);
    if (there && placing.attempt && answers(there, placing)) return there;
    throw new DomainError("service_unavailable", "The order took too long to place and was undone; place it again", 1);
  }
}
