import { describe, expect, it } from "vitest";
import type { PetRecord } from "../../core/pets/pet-record.ts";
import type { ContractHarness } from "./harness.ts";
import { aPet, everything } from "./mothers.ts";
import { available, edit, idsOf, later, none, petStoresPerTest, setting, since, tagged } from "./pets-contract-kit.ts";

/** Edits, category moves, creation and deletion through the pet port's named writes. */
export const petEditsAndMovesContract = (harness: ContractHarness): void => {
  describe(`Pets contract (${harness.name})`, () => {
    const { pets, eventIds } = petStoresPerTest(harness);

    describe("named writes: each checks its facts and changes the pet in one step, or changes nothing", () => {
      it("an edit renames, and changes the status and cause only when given one", async () => {
        await pets().insert(aPet({ id: 1, status: "pending", pendingCause: "sold-out", stock: 0 }));

        expect((await pets().edit(edit({ checkedStatus: "pending", events: tagged("e1").events }))).pet).toEqual(
          aPet({ id: 1, name: "Max", status: "pending", pendingCause: "sold-out", revision: 2 }),
        );
        expect(
          (
            await pets().edit(
              edit({
                fields: { name: "Bo" },
                checkedStatus: "pending",
                status: { to: "pending", cause: "hold" },
                ...none,
              }),
            )
          ).pet,
        ).toEqual(aPet({ id: 1, name: "Bo", status: "pending", pendingCause: "hold", revision: 3 }));
        expect((await pets().edit(edit({ checkedStatus: "pending", status: available }))).pet).toEqual(
          aPet({ id: 1, name: "Max", revision: 4 }),
        );
        expect(await eventIds()).toEqual(["evt_e1"]);
      });

      it("an edit and a finished move replace the fields PUT sets: an optional one they leave out is gone", async () => {
        // A field the entity may gain one day; a store that keeps it must drop it when an edit leaves it out.
        const gained = { nickname: "Rexy" } as Partial<PetRecord>;
        const nicknameOf = (pet: PetRecord | undefined) => (pet as { nickname?: string } | undefined)?.nickname;
        await pets().insert(aPet({ id: 1, ...gained }));
        await pets().insert(aPet({ id: 2, ...gained }));

        const edited = await pets().edit(edit());
        expect(edited.applied).toBe(true);
        expect(nicknameOf(edited.pet)).toBeUndefined();
        expect((await pets().beginMove({ petId: 2, to: 5, since, expectedRevision: 1 })).applied).toBe(true);
        const moved = await pets().finishMove({ ...edit({ petId: 2 }), to: 5, since });
        expect(moved.applied).toBe(true);
        expect(nicknameOf(moved.pet)).toBeUndefined();
        expect((await pets().list({ ids: [1, 2], limit: 2 })).map(nicknameOf)).toEqual([undefined, undefined]);
      });

      it("a move begins, lands with its edit in the new category, or is undone; each counts in the category check", async () => {
        await pets().insert(aPet({ id: 1, categoryId: 2, revision: 3 }));

        expect((await pets().beginMove({ petId: 1, to: 5, since, expectedRevision: 3 })).pet).toEqual(
          aPet({ id: 1, categoryId: 2, movingTo: 5, provisionalSince: since, revision: 4 }),
        );
        expect([
          await pets().anyNaming(2),
          await pets().anyNaming(5),
          idsOf(await pets().provisional(everything)),
        ]).toEqual([true, true, [1]]);
        expect((await pets().undoMove({ petId: 1, to: 5, since })).pet).toEqual(
          aPet({ id: 1, categoryId: 2, revision: 5 }),
        );
        expect([await pets().anyNaming(5), idsOf(await pets().provisional(everything))]).toEqual([false, []]);

        await pets().beginMove({ petId: 1, to: 5, since: later, expectedRevision: 5 });
        const landed = await pets().finishMove({
          ...edit({ status: { to: "pending", cause: "hold" }, events: tagged("moved").events }),
          to: 5,
          since: later,
        });
        expect(landed.pet).toEqual(
          aPet({ id: 1, name: "Max", categoryId: 5, status: "pending", pendingCause: "hold", revision: 7 }),
        );
        expect([
          await pets().anyNaming(2),
          await pets().anyNaming(5),
          idsOf(await pets().provisional(everything)),
        ]).toEqual([false, true, []]);
        expect(await eventIds()).toEqual(["evt_moved"]);
      });

      it("creating and deleting: finish creating makes a pet visible; deleting hides it; each is removed only in its own state", async () => {
        await pets().insert(aPet({ id: 1, lifecycle: "creating", provisionalSince: since }));
        await pets().insert(aPet({ id: 2, lifecycle: "creating", provisionalSince: since }));
        await pets().insert(aPet({ id: 3 }));

        expect((await pets().finishCreating(1)).pet).toEqual(aPet({ id: 1, revision: 2 }));
        expect(await pets().removeCreating(2, later)).toBe(false);
        expect(await pets().removeDeleting(2)).toBe(false);
        expect(await pets().removeCreating(2, since)).toBe(true);
        expect(await pets().ofId(2)).toBeUndefined();

        expect((await pets().beginDeleting({ petId: 3, since })).pet).toEqual(
          aPet({ id: 3, lifecycle: "deleting", provisionalSince: since, revision: 2 }),
        );
        expect(idsOf(await pets().list(everything))).toEqual([1]);
        expect(await pets().removeCreating(3)).toBe(false);
        expect(await pets().removeDeleting(3)).toBe(true);
        expect(await pets().removeDeleting(3)).toBe(false);
        expect(idsOf(await pets().provisional(everything))).toEqual([]);
      });

      it("keeps a removed pet's id taken for good: a late copy of its insert is refused and brings nothing back", async () => {
        await pets().insert(aPet({ id: 1, lifecycle: "creating", provisionalSince: since }));
        await pets().insert(aPet({ id: 2 }));
        await pets().removeCreating(1, since);
        await pets().beginDeleting({ petId: 2, since });
        await pets().removeDeleting(2);

        await expect(pets().insert(aPet({ id: 1, lifecycle: "creating", provisionalSince: since }))).rejects.toThrow();
        await expect(pets().insert(aPet({ id: 2 }))).rejects.toThrow();
        expect([await pets().ofId(1), await pets().ofId(2)]).toEqual([undefined, undefined]);
        expect(idsOf(await pets().list(everything))).toEqual([]);
        expect(idsOf(await pets().provisional(everything))).toEqual([]);
        expect((await pets().finishCreating(1)).applied).toBe(false);
        expect((await pets().setStock(setting({ petId: 2 }))).applied).toBe(false);
      });

      it("lets exactly one of many concurrent writes conditional on one revision win", async () => {
        await pets().insert(aPet({ id: 1 }));

        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            pets().edit(edit({ fields: { name: `Rex ${i}` }, expectedRevision: 1 })),
          ),
        );

        expect(results.filter((r) => r.applied)).toHaveLength(1);
        expect((await pets().ofId(1))?.revision).toBe(2);
      });
    });
  });
};
