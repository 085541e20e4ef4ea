import type { Mark } from "../../core/pets/pet-record.ts";
import type {
  Consequence,
  Edit,
  Reservation,
  Settlement,
  StatusChange,
  StockSetting,
} from "../../core/pets/pets.port.ts";
import { stockCases, withLikely } from "../../core/pets/stock-rule.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { at } from "./mothers.ts";

/** What the pet contracts share: the dates of marks and moves, and the writes they build. */

export const since = at("2026-11-21T11:59:59.321Z");
/** A millisecond after `since`: a later move or creation. */
export const later = at("2026-11-21T11:59:59.322Z");

export const idsOf = (list: { id: number }[]) => list.map((p) => p.id);

export const mark = (orderId: number, kind: Mark["kind"], units = 1, nonce?: string): Mark => ({
  orderId,
  kind,
  units,
  since,
  ...(nonce && { nonce }),
});

/** For a pet contract's `describe`: fresh stores per test, their pets, and the events the writes left in the outbox. */
export const petStoresPerTest = (harness: ContractHarness) => {
  const stores = freshStoresPerTest(harness);
  const pending = async () => stores().outbox.pending(1000);
  return {
    pets: () => stores().pets,
    eventTypes: async () => (await pending()).map((e) => e.type),
    /** The ids of the events written, sorted: which consequences the store chose. */
    eventIds: async () => (await pending()).map((e) => e.id).sort(),
  };
};

export const none = { events: [] } as const;
/** A consequence that names itself: the event says which case the store chose. */
export const tagged = (tag: string, status?: StatusChange): Consequence => ({
  ...(status && { status }),
  events: [{ id: `evt_${tag}`, type: "inventory.changed", occurredAt: since, data: { petId: 1, delta: 0 } }],
});
export const available: StatusChange = { to: "available", cause: undefined };
/** `expectedStock`: the stock core saw, which picks the case tried first. */
export const reservation = (
  overrides: Partial<Omit<Reservation, "cases" | "likely">> & { expectedStock?: number } = {},
): Reservation => {
  const { expectedStock, ...rest } = overrides;
  const units = rest.units ?? 2;
  const cases = stockCases.reserve(units, tagged("left"), tagged("last", { to: "pending", cause: "sold-out" }));
  return {
    petId: 1,
    orderId: 10,
    units,
    nonce: "n10",
    at: since,
    fence: 0,
    ...rest,
    ...withLikely(cases, expectedStock === undefined ? undefined : { stock: expectedStock }),
  };
};
export const back = { cases: stockCases.unitsBack(tagged("soldout", available), tagged("otherwise")) };
export const settlement = (
  how: "release" | "consume",
  overrides: { orderId?: number; units?: number; fence?: number } = {},
): Settlement => {
  const base = { petId: 1, orderId: 10, units: 1, at: since, fence: 0, ...overrides };
  return how === "release"
    ? { ...base, how, ...back }
    : {
        ...base,
        how,
        cases: stockCases.consume(tagged("sold", { to: "sold", cause: undefined }), tagged("otherwise")),
      };
};
type Restock = { fromSold: Consequence; fromSoldOut: Consequence };
/** `restock` undefined: a setting that restocks nothing (the last case only). */
export const setting = (
  overrides: Partial<Omit<StockSetting, "cases" | "likely">> & { restock?: Restock | undefined } = {},
): StockSetting => {
  const defaults: Restock = { fromSold: tagged("sold", available), fromSoldOut: tagged("soldout", available) };
  const { restock = "restock" in overrides ? undefined : defaults, ...rest } = overrides;
  const quantity = rest.quantity ?? 5;
  const cases = stockCases.setStock(quantity, tagged("otherwise"), restock);
  return { petId: 1, quantity, heldAtMost: 10, ...rest, cases, likely: cases.length - 1 };
};
export const edit = (overrides: Partial<Edit> = {}): Edit => ({
  petId: 1,
  fields: { name: "Max" },
  checkedStatus: "available",
  ...none,
  ...overrides,
});
