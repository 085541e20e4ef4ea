import type { Actor } from "../access/permissions.ts";
import { notedId, type IdempotentAttempt } from "../idempotency/run-idempotently.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import { markOf, type PetRecord } from "../pets/pet-record.ts";
import {
  foreseeReserve,
  keepReservation,
  reserveSeeing,
  undoReservation,
  type ReserveOutcome,
} from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { NewOrder, Order } from "./order.ts";
import { abandonedOrder, orderOf, type OrderRecord } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";
import { StockHints } from "./stock-hints.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  ids: IdAllocator;
  clock: Clock;
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

// Crash points and retries under a key: docs/consistency.md#multi-step-writes-and-their-crash-points ("place order").
export class PlaceOrder {
  readonly #ports: Ports;
  readonly #hints: StockHints;
  /** Nonces: a random prefix per instance and a counter, unique without a random draw per attempt. */
  readonly #noncePrefix = `${crypto.randomUUID().slice(0, 13)}.`;
  #attempts = 0;
  constructor(ports: Ports, hints = new StockHints()) {
    this.#ports = ports;
    this.#hints = hints;
  }

  async execute(input: NewOrder, actor: Actor, attempt?: IdempotentAttempt): Promise<Order> {
    const { orders, pets, ids, clock } = this.#ports;
    const noted = notedId(attempt, "orderId");
    const found = noted === undefined ? undefined : await orders.ofId(noted);
    if (found && this.#isPlacedAs(found, input, actor)) return orderOf(found);
    let earlier: number | undefined;
    let seen: PetRecord | undefined;
    if (noted !== undefined && found === undefined) {
      // A lost attempt's reservation under the noted id (its mark) is taken over under that id. Without one, the id
      // may have been an order since deleted (a relayed cancellation): it is burnt, so that no attempt of this key,
      // however late, writes an order under it again, and this one goes on under a new id.
      seen = await pets.ofId(input.petId);
      if (markOf(seen, noted, "reserve")) earlier = noted;
      else if (!(await orders.insert(abandonedOrder(noted, input.petId, input.quantity, clock.now())))) {
        const placed = await orders.ofId(noted);
        if (placed && this.#isPlacedAs(placed, input, actor)) return orderOf(placed);
      }
    }
    let expectedStock = this.#hints.stockOf(input.petId);
    // Under an earlier attempt's id, units may be held already: only the reservation can tell.
    if (
      earlier === undefined &&
      (seen !== undefined || expectedStock === undefined || expectedStock < input.quantity)
    ) {
      // Refuses early, writing nothing; the reservation decides.
      seen ??= await pets.ofId(input.petId);
      this.#hints.saw(input.petId, seen);
      const foreseen = foreseeReserve(seen, input.quantity);
      if (foreseen) throw refusal(foreseen, input);
      expectedStock = seen?.stock;
    }
    const id = earlier ?? (await ids.next("orders"));
    if (attempt) await attempt.note({ orderId: id });
    const nonce = this.#noncePrefix + (this.#attempts++).toString(36);
    const { outcome, pet } = await reserveSeeing(pets, clock, input.petId, id, input.quantity, nonce, expectedStock);
    this.#hints.saw(input.petId, pet);
    if (outcome !== "reserved" && outcome !== "already-held") throw refusal(outcome, input);
    const owned = outcome === "reserved" ? nonce : markOf(pet, id, "reserve")?.nonce;
    const at = clock.now();
    const order: OrderRecord = {
      id,
      petId: input.petId,
      quantity: input.quantity,
      shipDate: input.shipDate,
      placedBy: actor.keyId,
      state: "open",
      revision: 1,
      createdAt: at,
      reservation: owned,
    };
    if (await orders.insert(order, [stampEvent(at, "order.placed", orderData(order, false))])) {
      if (owned !== undefined) await keepReservation(pets, order.petId, id, owned);
      return orderOf(order);
    }
    // Taken by this very insert (a driver's retry of a write that had applied), by another attempt under the same
    // key, or by recovery's tombstone. An order owning the reservation this attempt holds is this request's.
    const placed = await orders.ofId(id);
    const ours =
      placed !== undefined && placed.state !== "abandoned" && owned !== undefined && placed.reservation === owned;
    if (outcome === "reserved" && !ours) await undoReservation(pets, clock, order.petId, id, order.quantity, nonce);
    if (placed && (ours || (attempt && this.#isPlacedAs(placed, input, actor)))) {
      if (ours && owned !== undefined) await keepReservation(pets, order.petId, id, owned);
      return orderOf(placed);
    }
    throw new DomainError("service_unavailable", "The order took too long to place and was undone; place it again", 1);
  }

  #isPlacedAs(order: OrderRecord, input: NewOrder, actor: Actor): boolean {
    return (
      order.state !== "abandoned" &&
      order.placedBy === actor.keyId &&
      order.petId === input.petId &&
      order.quantity === input.quantity
    );
  }
}
