import { describe, expect, it } from "vitest";
import type { EventType } from "../../core/events/domain-event.ts";
import type { Mark, PetRecord } from "../../core/pets/pet-record.ts";
import { applySettlement, reserveSeeing, stockSetting, voidReservation } from "../../core/pets/stock-writes.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { aPet, at } from "./mothers.ts";

type Write = "reserve" | "release" | "undo" | "consume" | "set";
type Seen = Pick<PetRecord, "stock" | "status" | "pendingCause">;
/** An event as [type, its data without the pet id]. */
type Event = [EventType, object];

/** One row: a write of `units` (set: the quantity) on a pet in `before`, and what it leaves. */
interface Row {
  write: Write;
  units: number;
  before: Partial<PetRecord>;
  applied: boolean;
  after: Seen;
  events: Event[];
}

const ORDER = 10;
const available = { status: "available", pendingCause: undefined } as const;
const soldOut = { status: "pending", pendingCause: "sold-out" } as const;
const held = { status: "pending", pendingCause: "hold" } as const;
const sold = { status: "sold", pendingCause: undefined } as const;
/** The one open order, of `units`, that the settlements and the undo act on. */
const holding = (units: number, others = 0) => ({ holdCount: 1 + others, heldUnits: units * (1 + others) });

const taken = (units: number): Event => ["inventory.changed", { delta: -units }];
const back = (units: number): Event => ["inventory.changed", { delta: units }];
const setTo = (quantity: number): Event => ["inventory.changed", { quantity }];
const status = (from: PetRecord["status"], to: PetRecord["status"]): Event => ["pet.status_changed", { from, to }];

// prettier-ignore
const rows: Row[] = [
  // Reserve: refused below `units`, the last units sell the pet out, one more leaves it available.
  ...[1, 3].flatMap((units): Row[] => [
    { write: "reserve", units, before: { stock: units - 1 }, applied: false, after: { stock: units - 1, ...available }, events: [] },
    { write: "reserve", units, before: { stock: units }, applied: true, after: { stock: 0, ...soldOut }, events: [taken(units), status("available", "pending")] },
    { write: "reserve", units, before: { stock: units + 1 }, applied: true, after: { stock: 1, ...available }, events: [taken(units)] },
  ]),
  // Units back (a cancellation, or a reservation undone): stock above 0 again ends a sold out, never a staff hold.
  ...(["release", "undo"] as const).flatMap((write): Row[] => [
    { write, units: 1, before: { stock: 0, ...soldOut, ...holding(1) }, applied: true, after: { stock: 1, ...available }, events: [back(1), status("pending", "available")] },
    { write, units: 1, before: { stock: 0, ...held, ...holding(1) }, applied: true, after: { stock: 1, ...held }, events: [back(1)] },
    { write, units: 1, before: { stock: 1, ...holding(1) }, applied: true, after: { stock: 2, ...available }, events: [back(1)] },
    { write, units: 1, before: { stock: 2, ...holding(1) }, applied: true, after: { stock: 3, ...available }, events: [back(1)] },
  ]),
  // Consume (a completion): the last order holding a sold-out pet sells it.
  { write: "consume", units: 1, before: { stock: 0, ...soldOut, ...holding(1) }, applied: true, after: { stock: 0, ...sold }, events: [status("pending", "sold")] },
  { write: "consume", units: 1, before: { stock: 0, ...soldOut, ...holding(1, 1) }, applied: true, after: { stock: 0, ...soldOut }, events: [] },
  { write: "consume", units: 1, before: { stock: 0, ...held, ...holding(1) }, applied: true, after: { stock: 0, ...held }, events: [] },
  { write: "consume", units: 1, before: { stock: 1, ...holding(1) }, applied: true, after: { stock: 1, ...available }, events: [] },
  { write: "consume", units: 1, before: { stock: 2, ...holding(1) }, applied: true, after: { stock: 2, ...available }, events: [] },
  // Set: above 0, a sold or sold-out pet is available again; at 0 nothing changes status, nor does a staff hold end.
  { write: "set", units: 0, before: { stock: 0, ...soldOut, ...holding(1) }, applied: true, after: { stock: 0, ...soldOut }, events: [setTo(0)] },
  { write: "set", units: 1, before: { stock: 0, ...soldOut, ...holding(1) }, applied: true, after: { stock: 1, ...available }, events: [setTo(1), status("pending", "available")] },
  { write: "set", units: 0, before: { stock: 0, ...sold }, applied: true, after: { stock: 0, ...sold }, events: [setTo(0)] },
  { write: "set", units: 1, before: { stock: 0, ...sold }, applied: true, after: { stock: 1, ...available }, events: [setTo(1), status("sold", "available")] },
  { write: "set", units: 1, before: { stock: 0, ...held }, applied: true, after: { stock: 1, ...held }, events: [setTo(1)] },
  { write: "set", units: 0, before: { stock: 1 }, applied: true, after: { stock: 0, ...available }, events: [setTo(0)] },
  { write: "set", units: 2, before: { stock: 1 }, applied: true, after: { stock: 2, ...available }, events: [setTo(2)] },
];

const describeRow = (r: Row): string =>
  `${r.write} ${r.units} on a pet ${r.before.status ?? "available"}${r.before.pendingCause ? `/${r.before.pendingCause}` : ""} ` +
  `at stock ${r.before.stock} (${r.before.holdCount ?? 0} holding)`;

/**
 * Core's stock rule (core/pets/stock-rule.ts) as each store applies it: each stock write at a stock of units − 1,
 * units and units + 1, and in each state that decides a status (sold out, held by staff, sold).
 */
export const stockRuleContract = (harness: ContractHarness): void => {
  describe(`Stock rule contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const reserveMark: Mark = {
      orderId: ORDER,
      kind: "reserve",
      units: 1,
      since: at("2026-11-21T11:59:00.000Z"),
      nonce: "n10",
    };

    const run = async (r: Row): Promise<boolean> => {
      const pets = stores().pets;
      const order = { id: ORDER, petId: 1, quantity: r.units };
      switch (r.write) {
        case "reserve":
          return (await reserveSeeing(pets, clock, 1, ORDER, r.units, "n10")).outcome === "reserved";
        case "release":
        case "consume":
          return (await applySettlement(pets, clock, r.write, order, 0)).outcome === "applied";
        case "undo":
          return voidReservation(pets, clock, 1, ORDER, r.units, "n10");
        case "set":
          return (await pets.setStock(stockSetting(clock, 1, r.units))).applied;
      }
    };

    it.each(rows.map((r) => [describeRow(r), r] as const))("%s", async (_, r) => {
      const marks = r.write === "undo" ? [{ ...reserveMark, units: r.units }] : [];
      await stores().pets.insert(aPet({ id: 1, ...r.before, marks }));

      expect(await run(r)).toBe(r.applied);
      const pet = await stores().pets.ofId(1);
      expect({ stock: pet?.stock, status: pet?.status, pendingCause: pet?.pendingCause }).toEqual(r.after);
      const events = (await stores().outbox.pending(100))
        .map((e): Event => {
          const { petId, ...data } = e.data as { petId: number };
          expect(petId).toBe(1);
          return [e.type, data];
        })
        .sort(([a], [b]) => a.localeCompare(b));
      expect(events).toEqual(r.events);
    });
  });
};
