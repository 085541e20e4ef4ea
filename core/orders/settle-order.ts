import { fenceOf, markOf, type PetRecord } from "../pets/pet-record.ts";
import type { Pets } from "../pets/pets.port.ts";
import type { StockState } from "../pets/stock-rule.ts";
import { applySettlement, clearSettleMark } from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { OrderRecord } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";
import type { MarkDrops } from "./mark-drops.ts";
import type { StockHints } from "./stock-hints.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  clock: Clock;
}

export interface PetSide {
  fence: number;
  /** As seen with the fence: which case of the settlement is likely. */
  pet: StockState | undefined;
  /** The order's reserve mark still on the pet, when the pet was read. */
  reserveMark?: string | undefined;
}

/**
 * `seen` must be read before the order was last seen settling: docs/consistency.md#marks-and-fences. The pet as the
 * last write left it, when this call finished the settlement. With `drops` (the instance's), the settle mark is left
 * for a later write to drop.
 */
export const settleOrder = async (
  { orders, pets, clock }: Ports,
  order: OrderRecord,
  seen: PetSide,
  drops?: MarkDrops,
): Promise<PetRecord | undefined> => {
  // Left on a deleted order, its reserve mark would look like a dead placing's and be undone: the settlement keeps
  // it in the same write. A post this instance left waiting is that mark, unless a write took it along since.
  const waiting = drops?.takeOf(order.petId, order.id, "reserve");
  const ownMark = waiting?.kind === "reserve" ? waiting.nonce : seen.reserveMark;
  const how = order.state === "cancelled" ? "release" : "consume";
  let settled: PetRecord | undefined;
  let keeping = ownMark !== undefined && ownMark === order.reservation ? ownMark : undefined;
  for (let { fence, pet: sight } = seen; ;) {
    const { outcome, pet } = await applySettlement(pets, clock, how, order, fence, sight, keeping);
    settled = pet;
    if (outcome === "applied" || outcome === "no-pet") break;
    // Refused: the fence moved, or the order's own reserve mark is there (not seen: the fence came from a hint), or
    // one kept along went meanwhile. Tried again at the pet's fence, keeping the mark along while it is there.
    keeping = outcome === "reserve-marked" ? order.reservation : undefined;
    fence = fenceOf(pet, order.id);
    sight = pet;
    if (!(await orders.ofId(order.id))?.settling) return undefined;
  }
  await orders.settled(order.id);
  if (drops?.defer(order.petId, { orderId: order.id, kind: "settle" }, clock.now())) return settled;
  return clearSettleMark(pets, order.petId, order.id);
};

export const readPetSide = async (pets: Pets, petId: number, orderId: number): Promise<PetSide> => {
  const pet = await pets.ofId(petId);
  return { fence: fenceOf(pet, orderId), pet, reserveMark: markOf(pet, orderId, "reserve")?.nonce };
};

/**
 * The fence from this instance's last sight of the pet when it has one (a fence read any time before the decisive
 * write will do: a stale one is refused and costs another try), else from a read.
 */
export const petSideSeen = async (pets: Pets, hints: StockHints, petId: number, orderId: number): Promise<PetSide> => {
  const sight = hints.sightOf(petId);
  if (!sight) return readPetSide(pets, petId, orderId);
  // Seen orderable: available, so neither a sold-out release nor the last sale is likely.
  return { fence: fenceOf(sight, orderId), pet: { stock: sight.stock, status: "available" } };
};
