import { describe, expect, it } from "vitest";
import { StockHints } from "../../core/orders/stock-hints.ts";
import { aPet } from "../contracts/mothers.ts";
import type { PetRecord } from "../../core/pets/pet-record.ts";

const pet = (id: number, change: Partial<PetRecord> = {}): PetRecord => aPet({ id, stock: 4, ...change });

describe("StockHints", () => {
  it("keeps the stock of a pet seen orderable, and drops it when the pet is seen otherwise", () => {
    const hints = new StockHints();
    hints.saw(1, pet(1));
    expect(hints.stockOf(1)).toBe(4);

    for (const unorderable of [
      undefined,
      pet(1, { stock: 0 }),
      pet(1, { status: "pending" }),
      pet(1, { lifecycle: "deleting" }),
    ]) {
      hints.saw(1, pet(1));
      hints.saw(1, unorderable);
      expect(hints.stockOf(1)).toBeUndefined();
    }
  });

  it("forgets the pets seen longest ago beyond its capacity", () => {
    const hints = new StockHints(2);
    hints.saw(1, pet(1));
    hints.saw(2, pet(2));
    hints.saw(1, pet(1, { stock: 3 }));
    hints.saw(3, pet(3));

    expect([hints.stockOf(1), hints.stockOf(2), hints.stockOf(3)]).toEqual([3, undefined, 4]);
  });

  it("holds at most its capacity, whatever it sees, and keeps a pet seen again current", () => {
    const hints = new StockHints(10);
    for (let id = 1; id <= 1_000; id++) hints.saw(id, pet(id, { stock: id }));
    const remembered = Array.from({ length: 1_000 }, (_, i) => hints.stockOf(i + 1)).filter((s) => s !== undefined);
    expect(remembered.length).toBeLessThanOrEqual(10);
    expect(remembered).toContain(1_000);

    hints.saw(995, pet(995, { stock: 2 }));
    for (let id = 1_001; id <= 1_004; id++) hints.saw(id, pet(id));
    expect(hints.stockOf(995)).toBe(2);
    hints.saw(995, pet(995, { status: "sold" }));
    expect(hints.stockOf(995)).toBeUndefined();
  });
});
