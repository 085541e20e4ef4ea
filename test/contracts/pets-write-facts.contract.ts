import { describe, expect, it } from "vitest";
import type { PetRecord } from "../../core/pets/pet-record.ts";
import type { Pets, PetWrite } from "../../core/pets/pets.port.ts";
import type { ContractHarness } from "./harness.ts";
import { aPet } from "./mothers.ts";
import {
  back,
  edit,
  later,
  mark,
  petStoresPerTest,
  reservation,
  setting,
  settlement,
  since,
} from "./pets-contract-kit.ts";

/** Every fact each named write of the pet port checks, held and not, and every write on a missing pet. */
export const petWriteFactsContract = (harness: ContractHarness): void => {
  describe(`Pets contract (${harness.name})`, () => {
    const { pets, eventTypes } = petStoresPerTest(harness);

    describe("named writes: each checks its facts and changes the pet in one step, or changes nothing", () => {
      /** [case, the pet, the write, whether it applies]: every fact each write checks, held and not. */
      const facts: Array<[string, Partial<PetRecord>, (p: Pets) => Promise<PetWrite>, boolean]> = [
        ["reserve: available with units left", { stock: 3 }, (p) => p.reserve(reservation()), true],
        ["reserve: the last units", { stock: 2 }, (p) => p.reserve(reservation()), true],
        ["reserve: too few units", { stock: 1 }, (p) => p.reserve(reservation()), false],
        [
          "reserve: not available",
          { stock: 3, status: "pending", pendingCause: "hold" },
          (p) => p.reserve(reservation()),
          false,
        ],
        [
          "reserve: being created",
          { stock: 3, lifecycle: "creating", provisionalSince: since },
          (p) => p.reserve(reservation()),
          false,
        ],
        [
          "reserve: being deleted",
          { stock: 3, lifecycle: "deleting", provisionalSince: since },
          (p) => p.reserve(reservation()),
          false,
        ],
        [
          "reserve: the order's reserve mark is there",
          { stock: 3, marks: [mark(10, "reserve", 2, "other")] },
          (p) => p.reserve(reservation()),
          false,
        ],
        [
          "reserve: the fence of the order's bucket as seen",
          { stock: 3, fences: { 10: 2, 11: 5 } },
          (p) => p.reserve(reservation({ fence: 2 })),
          true,
        ],
        [
          "reserve: the fence moved since it was seen (a reservation of the bucket kept or undone)",
          { stock: 3, fences: { 10: 2 } },
          (p) => p.reserve(reservation({ fence: 1 })),
          false,
        ],
        [
          "reserve: moved by an order of the same bucket",
          { stock: 3, fences: { 10: 1 } },
          (p) => p.reserve(reservation({ orderId: 42 })),
          false,
        ],
        [
          "reserve: another order's mark, or this order's settle mark",
          { stock: 3, marks: [mark(9, "reserve", 1, "x"), mark(10, "settle")] },
          (p) => p.reserve(reservation()),
          true,
        ],
        [
          "keep: its nonce",
          { marks: [mark(10, "reserve", 2, "n10")] },
          (p) => p.postReservation({ petId: 1, orderId: 10, nonce: "n10" }),
          true,
        ],
        [
          "keep: another nonce",
          { marks: [mark(10, "reserve", 2, "n10")] },
          (p) => p.postReservation({ petId: 1, orderId: 10, nonce: "n11" }),
          false,
        ],
        [
          "keep: a settle mark only",
          { marks: [mark(10, "settle")] },
          (p) => p.postReservation({ petId: 1, orderId: 10, nonce: "n10" }),
          false,
        ],
        [
          "undo: its nonce",
          { marks: [mark(10, "reserve", 2, "n10")], holdCount: 1, heldUnits: 2 },
          (p) => p.voidReservation({ petId: 1, orderId: 10, nonce: "n10", units: 2, ...back }),
          true,
        ],
        [
          "undo: any nonce",
          { marks: [mark(10, "reserve", 2, "n10")], holdCount: 1, heldUnits: 2 },
          (p) => p.voidReservation({ petId: 1, orderId: 10, nonce: undefined, units: 2, ...back }),
          true,
        ],
        [
          "undo: another nonce",
          { marks: [mark(10, "reserve", 2, "n10")], holdCount: 1, heldUnits: 2 },
          (p) => p.voidReservation({ petId: 1, orderId: 10, nonce: "x", units: 2, ...back }),
          false,
        ],
        [
          "undo: no mark",
          { holdCount: 1, heldUnits: 2 },
          (p) => p.voidReservation({ petId: 1, orderId: 10, nonce: undefined, units: 2, ...back }),
          false,
        ],
        [
          "settle: the fence as read",
          { holdCount: 1, heldUnits: 1, fences: { 10: 2 } },
          (p) => p.applySettlement(settlement("release", { fence: 2 })),
          true,
        ],
        [
          "settle: the fence never moved",
          { holdCount: 1, heldUnits: 1, fences: { 11: 2 } },
          (p) => p.applySettlement(settlement("consume")),
          true,
        ],
        [
          "settle: the fence moved",
          { holdCount: 1, heldUnits: 1, fences: { 10: 2 } },
          (p) => p.applySettlement(settlement("release", { fence: 1 })),
          false,
        ],
        [
          "settle: moved by an order of the same bucket",
          { holdCount: 1, heldUnits: 1, fences: { 10: 1 } },
          (p) => p.applySettlement(settlement("consume", { orderId: 42 })),
          false,
        ],
        [
          "settle: its settle mark is there",
          { holdCount: 1, heldUnits: 1, marks: [mark(10, "settle")] },
          (p) => p.applySettlement(settlement("release")),
          false,
        ],
        [
          "clear: the settle mark",
          { marks: [mark(10, "settle")] },
          (p) => p.clearSettleMark({ petId: 1, orderId: 10 }),
          true,
        ],
        [
          "clear: a reserve mark only",
          { marks: [mark(10, "reserve", 1, "n")] },
          (p) => p.clearSettleMark({ petId: 1, orderId: 10 }),
          false,
        ],
        ["set stock: within the limit", { heldUnits: 10, holdCount: 1 }, (p) => p.setStock(setting()), true],
        ["set stock: over the limit", { heldUnits: 11, holdCount: 1 }, (p) => p.setStock(setting()), false],
        ["set stock: of its revision", { revision: 3 }, (p) => p.setStock(setting({ expectedRevision: 3 })), true],
        ["set stock: of another revision", { revision: 3 }, (p) => p.setStock(setting({ expectedRevision: 2 })), false],
        [
          "set stock: being created",
          { lifecycle: "creating", provisionalSince: since },
          (p) => p.setStock(setting()),
          false,
        ],
        [
          "edit: the status it was checked against",
          { status: "sold" },
          (p) => p.edit(edit({ checkedStatus: "sold" })),
          true,
        ],
        ["edit: another status", { status: "sold" }, (p) => p.edit(edit()), false],
        ["edit: of its revision", { revision: 3 }, (p) => p.edit(edit({ expectedRevision: 3 })), true],
        ["edit: of another revision", { revision: 3 }, (p) => p.edit(edit({ expectedRevision: 4 })), false],
        ["edit: being deleted", { lifecycle: "deleting", provisionalSince: since }, (p) => p.edit(edit()), false],
        [
          "begin move: of its revision",
          { revision: 3 },
          (p) => p.beginMove({ petId: 1, to: 5, since, expectedRevision: 3 }),
          true,
        ],
        [
          "begin move: of another revision",
          { revision: 3 },
          (p) => p.beginMove({ petId: 1, to: 5, since, expectedRevision: 2 }),
          false,
        ],
        [
          "begin move: being created",
          { lifecycle: "creating", provisionalSince: since },
          (p) => p.beginMove({ petId: 1, to: 5, since, expectedRevision: 1 }),
          false,
        ],
        [
          "finish move: its move",
          { movingTo: 5, provisionalSince: since },
          (p) => p.finishMove({ ...edit(), to: 5, since }),
          true,
        ],
        [
          "finish move: a later move",
          { movingTo: 5, provisionalSince: later },
          (p) => p.finishMove({ ...edit(), to: 5, since }),
          false,
        ],
        [
          "finish move: another target",
          { movingTo: 6, provisionalSince: since },
          (p) => p.finishMove({ ...edit(), to: 5, since }),
          false,
        ],
        [
          "finish move: another status",
          { movingTo: 5, provisionalSince: since, status: "sold" },
          (p) => p.finishMove({ ...edit(), to: 5, since }),
          false,
        ],
        [
          "undo move: its move",
          { movingTo: 5, provisionalSince: since },
          (p) => p.undoMove({ petId: 1, to: 5, since }),
          true,
        ],
        [
          "undo move: a later move",
          { movingTo: 5, provisionalSince: later },
          (p) => p.undoMove({ petId: 1, to: 5, since }),
          false,
        ],
        ["undo move: none", {}, (p) => p.undoMove({ petId: 1, to: 5, since }), false],
        [
          "finish creating: being created",
          { lifecycle: "creating", provisionalSince: since },
          (p) => p.finishCreating(1),
          true,
        ],
        ["finish creating: visible", {}, (p) => p.finishCreating(1), false],
        [
          "finish creating: being deleted",
          { lifecycle: "deleting", provisionalSince: since },
          (p) => p.finishCreating(1),
          false,
        ],
        ["begin deleting: no units held", { stock: 3 }, (p) => p.beginDeleting({ petId: 1, since }), true],
        [
          "begin deleting: units held",
          { holdCount: 1, heldUnits: 1 },
          (p) => p.beginDeleting({ petId: 1, since }),
          false,
        ],
        [
          "begin deleting: of its revision",
          { revision: 2 },
          (p) => p.beginDeleting({ petId: 1, since, expectedRevision: 2 }),
          true,
        ],
        [
          "begin deleting: of another revision",
          { revision: 2 },
          (p) => p.beginDeleting({ petId: 1, since, expectedRevision: 1 }),
          false,
        ],
        [
          "begin deleting: being deleted",
          { lifecycle: "deleting", provisionalSince: since },
          (p) => p.beginDeleting({ petId: 1, since }),
          false,
        ],
      ];
      it.each(facts)("%s", async (_, overrides, write, applies) => {
        const pet = aPet({ id: 1, ...overrides });
        await pets().insert(pet);

        const result = await write(pets());

        expect(result.applied).toBe(applies);
        if (applies) {
          expect(result.pet?.revision).toBe(pet.revision + 1);
          expect(await pets().ofId(1)).toEqual(result.pet);
        } else {
          expect(result.pet).toEqual(pet);
          expect(await pets().ofId(1)).toEqual(pet);
          expect(await eventTypes()).toEqual([]);
        }
      });

      it("refuses every write on a missing pet, answering no pet", async () => {
        const writes = [
          pets().reserve(reservation()),
          pets().postReservation({ petId: 1, orderId: 10, nonce: "n10" }),
          pets().voidReservation({ petId: 1, orderId: 10, nonce: undefined, units: 1, ...back }),
          pets().applySettlement(settlement("release")),
          pets().clearSettleMark({ petId: 1, orderId: 10 }),
          pets().setStock(setting()),
          pets().edit(edit()),
          pets().beginMove({ petId: 1, to: 5, since, expectedRevision: 1 }),
          pets().finishMove({ ...edit(), to: 5, since }),
          pets().undoMove({ petId: 1, to: 5, since }),
          pets().finishCreating(1),
          pets().beginDeleting({ petId: 1, since }),
        ];
        expect(await Promise.all(writes)).toEqual(writes.map(() => ({ applied: false, pet: undefined })));
        expect(await pets().removeCreating(1)).toBe(false);
        expect(await pets().removeDeleting(1)).toBe(false);
      });
    });
  });
};
