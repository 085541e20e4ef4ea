import { describe, expect, it } from "vitest";
import type { Mark, PetRecord } from "../../core/pets/pet-record.ts";
import type {
  Consequence,
  Edit,
  Pets,
  PetWrite,
  Reservation,
  Settlement,
  StatusChange,
  StockSetting,
} from "../../core/pets/pets.port.ts";
import {
  applySettlement,
  clearSettleMark,
  keepReservation,
  MAX_STOCK,
  reserveSeeing,
  stockSetting,
  undoReservation,
} from "../../core/pets/stock-writes.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { aPet, at, everything } from "./mothers.ts";

export const petsContract = (harness: ContractHarness): void => {
  describe(`Pets contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const pets = () => stores().pets;
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const idsOf = (list: { id: number }[]) => list.map((p) => p.id);
    const since = at("2026-11-21T11:59:59.321Z");
    const eventTypes = async () => (await stores().outbox.pending(1000)).map((e) => e.type);
    /** The ids of the events written, sorted: which consequences the store chose. */
    const eventIds = async () => (await stores().outbox.pending(1000)).map((e) => e.id).sort();
    const mark = (orderId: number, kind: Mark["kind"], units = 1, nonce?: string): Mark => ({
      orderId,
      kind,
      units,
      since,
      ...(nonce && { nonce }),
    });
    const reserve = async (petId: number, orderId: number, units: number, nonce = `n${orderId}`) =>
      (await reserveSeeing(pets(), clock, petId, orderId, units, nonce)).outcome;
    const order = (id: number, quantity: number, petId = 1) => ({ id, petId, quantity });

    it("gives back what was inserted, marks, fences and dates included, and undefined for an unknown id", async () => {
      const pet = aPet({
        id: 7,
        name: "Rex",
        categoryId: 3,
        status: "pending",
        pendingCause: "sold-out",
        revision: 4,
        stock: 2,
        holdCount: 2,
        heldUnits: 6,
        marks: [mark(3, "reserve", 1, "abc"), mark(3, "settle", 1), mark(11, "settle", 5)],
        fences: { 3: 2, 11: 1 },
      });
      const provisional = aPet({
        id: 8,
        lifecycle: "creating",
        movingTo: 9,
        provisionalSince: since,
        pendingCause: "hold",
        status: "pending",
      });
      await pets().insert(pet);
      await pets().insert(provisional);

      expect(await pets().ofId(7)).toEqual(pet);
      expect(await pets().ofId(8)).toEqual(provisional);
      expect(await pets().ofId(9)).toBeUndefined();
    });

    it("refuses a second insert of the same id", async () => {
      await pets().insert(aPet({ id: 1 }));
      await expect(pets().insert(aPet({ id: 1, name: "Other" }))).rejects.toThrow();
      expect((await pets().ofId(1))?.name).toBe("Rex");
    });

    it("stores and returns copies", async () => {
      const inserted = aPet({
        id: 1,
        marks: [mark(1, "reserve", 1, "x")],
        fences: { 1: 1 },
        provisionalSince: since,
        movingTo: 2,
      });
      await pets().insert(inserted);
      inserted.marks[0]!.units = 9;
      const read = await pets().ofId(1);
      read!.marks.push(mark(2, "settle"));
      read!.provisionalSince!.setUTCFullYear(2000);
      (read!.fences as Record<number, number>)[1] = 5;
      (await pets().ofId(1))!.marks[0]!.since.setUTCFullYear(2001);
      const listed = await pets().list({ limit: 10 });
      listed[0]!.stock = 99;

      expect(await pets().ofId(1)).toEqual(
        aPet({ id: 1, marks: [mark(1, "reserve", 1, "x")], fences: { 1: 1 }, provisionalSince: since, movingTo: 2 }),
      );
    });

    describe("list", () => {
      it("shows visible pets only, ascending id, with after and limit", async () => {
        for (const id of [4, 2, 5, 1, 3]) await pets().insert(aPet({ id }));
        await pets().insert(aPet({ id: 6, lifecycle: "creating", provisionalSince: since }));
        await pets().insert(aPet({ id: 7, lifecycle: "deleting", provisionalSince: since }));
        await pets().insert(aPet({ id: 8, movingTo: 2, provisionalSince: since }));

        expect(idsOf(await pets().list({ limit: 2 }))).toEqual([1, 2]);
        expect(idsOf(await pets().list({ limit: 2, after: 2 }))).toEqual([3, 4]);
        expect(idsOf(await pets().list({ limit: 5, after: 4 }))).toEqual([5, 8]);
      });

      it("filters by statuses, category and ids, alone and together", async () => {
        await pets().insert(aPet({ id: 1, categoryId: 10, status: "available" }));
        await pets().insert(aPet({ id: 2, categoryId: 10, status: "sold" }));
        await pets().insert(aPet({ id: 3, categoryId: 20, status: "available" }));
        await pets().insert(aPet({ id: 4, categoryId: 10, status: "pending" }));
        await pets().insert(aPet({ id: 5, categoryId: 10, status: "available" }));

        expect(idsOf(await pets().list({ ...everything, statuses: ["pending"] }))).toEqual([4]);
        expect(idsOf(await pets().list({ ...everything, statuses: ["sold", "available"] }))).toEqual([1, 2, 3, 5]);
        expect(idsOf(await pets().list({ ...everything, categoryId: 10 }))).toEqual([1, 2, 4, 5]);
        expect(idsOf(await pets().list({ ...everything, ids: [4, 2, 99] }))).toEqual([2, 4]);
        const query = { categoryId: 10, statuses: ["available"] as const, ids: [1, 2, 3, 4, 5] };
        expect(idsOf(await pets().list({ ...query, limit: 1 }))).toEqual([1]);
        expect(idsOf(await pets().list({ ...query, limit: 2, after: 1 }))).toEqual([5]);
      });
    });

    describe("list by name and in other orders", () => {
      const names = ["rex", "Rexa", "REX", "bella", "Ébène", "rexy", "Max", "Rèx", "𝒳avier", "\uFFFDend"];
      const insertNamed = async () => {
        for (const [i, name] of names.entries()) await pets().insert(aPet({ id: i + 1, name }));
        await pets().insert(aPet({ id: 20, name: "Rex hidden", lifecycle: "creating", provisionalSince: since }));
      };

      it("matches a name prefix ignoring case, in any order, provisional pets never", async () => {
        await insertNamed();

        expect(idsOf(await pets().list({ ...everything, namePrefix: "rex" }))).toEqual([1, 2, 3, 6]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "rexa" }))).toEqual([2]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "é" }))).toEqual([5]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "𝒳" }))).toEqual([9]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "zzz" }))).toEqual([]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "rex", sort: "-id" }))).toEqual([6, 3, 2, 1]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "rex", sort: "name" }))).toEqual([1, 3, 2, 6]);
      });

      it("orders by name key then id, code point order, and pages after (name key, id)", async () => {
        await insertNamed();
        const byName = [4, 7, 1, 3, 2, 6, 8, 5, 10, 9];

        expect(idsOf(await pets().list({ ...everything, sort: "name" }))).toEqual(byName);
        const pages: number[][] = [];
        let cursor: { after?: number; afterName?: string } = {};
        for (;;) {
          const page = await pets().list({ limit: 3, sort: "name", ...cursor });
          if (page.length === 0) break;
          pages.push(idsOf(page));
          const last = page.at(-1)!;
          cursor = { after: last.id, afterName: last.name.toLowerCase() };
        }
        expect(pages.flat()).toEqual(byName);
        expect(pages[0]).toEqual([4, 7, 1]);
      });

      it("pages in descending id order below `after`", async () => {
        for (const id of [1, 2, 3, 4, 5]) await pets().insert(aPet({ id }));

        expect(idsOf(await pets().list({ limit: 2, sort: "-id" }))).toEqual([5, 4]);
        expect(idsOf(await pets().list({ limit: 2, sort: "-id", after: 4 }))).toEqual([3, 2]);
        expect(idsOf(await pets().list({ limit: 5, sort: "-id", after: 2 }))).toEqual([1]);
        expect(idsOf(await pets().list({ limit: 5, sort: "-id", ids: [1, 3, 5], after: 5 }))).toEqual([3, 1]);
      });

      it("keeps the name key with a rename: the pet is found by its new name only", async () => {
        await pets().insert(aPet({ id: 1, name: "Rex" }));
        await pets().edit({ petId: 1, fields: { name: "Bella" }, checkedStatus: "available", events: [] });

        expect(idsOf(await pets().list({ ...everything, namePrefix: "rex" }))).toEqual([]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "bel" }))).toEqual([1]);
      });
    });

    describe("named writes: each checks its facts and changes the pet in one step, or changes nothing", () => {
      const none = { events: [] } as const;
      /** A consequence that names itself: the event says which case the store chose. */
      const tagged = (tag: string, status?: StatusChange): Consequence => ({
        ...(status && { status }),
        events: [{ id: `evt_${tag}`, type: "inventory.changed", occurredAt: since, data: { petId: 1, delta: 0 } }],
      });
      const available: StatusChange = { to: "available", cause: undefined };
      const reservation = (overrides: Partial<Reservation> = {}): Reservation => ({
        petId: 1,
        orderId: 10,
        units: 2,
        nonce: "n10",
        at: since,
        unitsLeft: tagged("left"),
        lastUnits: tagged("last", { to: "pending", cause: "sold-out" }),
        ...overrides,
      });
      const back = { fromSoldOut: tagged("soldout", available), otherwise: tagged("otherwise") };
      const settlement = (
        how: "release" | "consume",
        overrides: { orderId?: number; units?: number; fence?: number } = {},
      ): Settlement => {
        const base = { petId: 1, orderId: 10, units: 1, at: since, fence: 0, ...overrides };
        return how === "release"
          ? { ...base, how, ...back }
          : {
              ...base,
              how,
              lastOfSoldOut: tagged("sold", { to: "sold", cause: undefined }),
              otherwise: tagged("otherwise"),
            };
      };
      const setting = (overrides: Partial<StockSetting> = {}): StockSetting => ({
        petId: 1,
        quantity: 5,
        heldAtMost: 10,
        otherwise: tagged("otherwise"),
        restock: { fromSold: tagged("sold", available), fromSoldOut: tagged("soldout", available) },
        ...overrides,
      });
      const edit = (overrides: Partial<Edit> = {}): Edit => ({
        petId: 1,
        fields: { name: "Max" },
        checkedStatus: "available",
        ...none,
        ...overrides,
      });
      const later = at("2026-11-21T11:59:59.322Z");

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
          "reserve: another order's mark, or this order's settle mark",
          { stock: 3, marks: [mark(9, "reserve", 1, "x"), mark(10, "settle")] },
          (p) => p.reserve(reservation()),
          true,
        ],
        [
          "keep: its nonce",
          { marks: [mark(10, "reserve", 2, "n10")] },
          (p) => p.keepReservation({ petId: 1, orderId: 10, nonce: "n10" }),
          true,
        ],
        [
          "keep: another nonce",
          { marks: [mark(10, "reserve", 2, "n10")] },
          (p) => p.keepReservation({ petId: 1, orderId: 10, nonce: "n11" }),
          false,
        ],
        [
          "keep: a settle mark only",
          { marks: [mark(10, "settle")] },
          (p) => p.keepReservation({ petId: 1, orderId: 10, nonce: "n10" }),
          false,
        ],
        [
          "undo: its nonce",
          { marks: [mark(10, "reserve", 2, "n10")], holdCount: 1, heldUnits: 2 },
          (p) => p.undoReservation({ petId: 1, orderId: 10, nonce: "n10", units: 2, ...back }),
          true,
        ],
        [
          "undo: any nonce",
          { marks: [mark(10, "reserve", 2, "n10")], holdCount: 1, heldUnits: 2 },
          (p) => p.undoReservation({ petId: 1, orderId: 10, nonce: undefined, units: 2, ...back }),
          true,
        ],
        [
          "undo: another nonce",
          { marks: [mark(10, "reserve", 2, "n10")], holdCount: 1, heldUnits: 2 },
          (p) => p.undoReservation({ petId: 1, orderId: 10, nonce: "x", units: 2, ...back }),
          false,
        ],
        [
          "undo: no mark",
          { holdCount: 1, heldUnits: 2 },
          (p) => p.undoReservation({ petId: 1, orderId: 10, nonce: undefined, units: 2, ...back }),
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
          pets().keepReservation({ petId: 1, orderId: 10, nonce: "n10" }),
          pets().undoReservation({ petId: 1, orderId: 10, nonce: undefined, units: 1, ...back }),
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

      it("reserve takes the units, counts the hold and leaves this attempt's mark; the last units get their own consequence", async () => {
        await pets().insert(aPet({ id: 1, stock: 5, holdCount: 1, heldUnits: 4 }));

        expect((await pets().reserve(reservation({ lastUnitsFirst: true }))).pet).toEqual(
          aPet({ id: 1, stock: 3, holdCount: 2, heldUnits: 6, marks: [mark(10, "reserve", 2, "n10")], revision: 2 }),
        );
        expect((await pets().reserve(reservation({ orderId: 11, units: 3, nonce: "n11" }))).pet).toEqual(
          aPet({
            id: 1,
            stock: 0,
            status: "pending",
            pendingCause: "sold-out",
            holdCount: 3,
            heldUnits: 9,
            marks: [mark(10, "reserve", 2, "n10"), mark(11, "reserve", 3, "n11")],
            revision: 3,
          }),
        );
        expect(await eventIds()).toEqual(["evt_last", "evt_left"]);
        expect(idsOf(await pets().withMarks(everything))).toEqual([1]);
      });

      it("keep drops the reserve mark only; undo also returns its units, with the consequence as the pet sold out or not", async () => {
        const marks = [mark(10, "reserve", 2, "n10"), mark(11, "reserve", 1, "n11")];
        await pets().insert(
          aPet({ id: 1, stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 3, heldUnits: 4, marks }),
        );
        await pets().insert(
          aPet({
            id: 2,
            stock: 1,
            status: "pending",
            pendingCause: "hold",
            holdCount: 1,
            heldUnits: 2,
            marks: [mark(10, "reserve", 2, "n10")],
          }),
        );

        expect((await pets().keepReservation({ petId: 1, orderId: 11, nonce: "n11" })).pet).toEqual(
          aPet({
            id: 1,
            stock: 0,
            status: "pending",
            pendingCause: "sold-out",
            holdCount: 3,
            heldUnits: 4,
            marks: [marks[0]!],
            revision: 2,
          }),
        );
        expect((await pets().undoReservation({ petId: 1, orderId: 10, nonce: "n10", units: 2, ...back })).pet).toEqual(
          aPet({ id: 1, stock: 2, status: "available", holdCount: 2, heldUnits: 2, revision: 3 }),
        );
        expect(
          (await pets().undoReservation({ petId: 2, orderId: 10, nonce: undefined, units: 2, ...back })).pet,
        ).toEqual(
          aPet({ id: 2, stock: 3, status: "pending", pendingCause: "hold", holdCount: 0, heldUnits: 0, revision: 2 }),
        );
        expect(await eventIds()).toEqual(["evt_otherwise", "evt_soldout"]);
        expect(idsOf(await pets().withMarks(everything))).toEqual([]);
      });

      it("a settlement leaves a settle mark and takes the units out of the holds; a release returns them", async () => {
        await pets().insert(
          aPet({
            id: 1,
            stock: 0,
            status: "pending",
            pendingCause: "sold-out",
            holdCount: 2,
            heldUnits: 5,
            fences: { 3: 1 },
          }),
        );

        expect((await pets().applySettlement(settlement("release", { orderId: 3, units: 2, fence: 1 }))).pet).toEqual(
          aPet({
            id: 1,
            stock: 2,
            status: "available",
            holdCount: 1,
            heldUnits: 3,
            marks: [mark(3, "settle", 2)],
            fences: { 3: 1 },
            revision: 2,
          }),
        );
        expect((await pets().applySettlement(settlement("consume", { orderId: 4, units: 3 }))).pet).toEqual(
          aPet({
            id: 1,
            stock: 2,
            status: "available",
            holdCount: 0,
            heldUnits: 0,
            marks: [mark(3, "settle", 2), mark(4, "settle", 3)],
            fences: { 3: 1 },
            revision: 3,
          }),
        );
        expect(await eventIds()).toEqual(["evt_otherwise", "evt_soldout"]);
      });

      it.each<[string, string, Partial<PetRecord>]>([
        [
          "sold out, stock 0, its only holding order",
          "evt_sold",
          { pendingCause: "sold-out", status: "pending", holdCount: 1, heldUnits: 1 },
        ],
        [
          "sold out, another order holding units",
          "evt_otherwise",
          { pendingCause: "sold-out", status: "pending", holdCount: 2, heldUnits: 2 },
        ],
        [
          "sold out, yet units in stock",
          "evt_otherwise",
          { pendingCause: "sold-out", status: "pending", holdCount: 1, heldUnits: 1, stock: 1 },
        ],
        ["on a staff hold", "evt_otherwise", { pendingCause: "hold", status: "pending", holdCount: 1, heldUnits: 1 }],
        ["available", "evt_otherwise", { holdCount: 1, heldUnits: 1 }],
      ])("a consumption of a pet %s has the consequence %s", async (_, tag, overrides) => {
        await pets().insert(aPet({ id: 1, ...overrides }));

        const { pet } = await pets().applySettlement(settlement("consume"));

        expect(await eventIds()).toEqual([tag]);
        expect(pet).toMatchObject(
          tag === "evt_sold"
            ? { status: "sold", pendingCause: undefined }
            : { status: overrides.status ?? "available" },
        );
      });

      it("clearing a settle mark moves the fence of its bucket (order ids 32 apart share one) and nothing else", async () => {
        await pets().insert(
          aPet({ id: 1, marks: [mark(8, "reserve", 1, "n8"), mark(8, "settle")], fences: { 8: 2, 9: 1 } }),
        );

        expect((await pets().clearSettleMark({ petId: 1, orderId: 8 })).pet).toEqual(
          aPet({ id: 1, marks: [mark(8, "reserve", 1, "n8")], fences: { 8: 3, 9: 1 }, revision: 2 }),
        );
        await pets().applySettlement(settlement("release", { orderId: 40, fence: 3 }));
        await pets().clearSettleMark({ petId: 1, orderId: 40 });
        expect(await pets().ofId(1)).toMatchObject({ marks: [mark(8, "reserve", 1, "n8")], fences: { 8: 4, 9: 1 } });
      });

      it.each<[string, string, Partial<PetRecord>, Partial<StockSetting>, Partial<PetRecord>]>([
        ["a sold pet", "evt_sold", { status: "sold" }, {}, { status: "available" }],
        [
          "a sold-out pet",
          "evt_soldout",
          { status: "pending", pendingCause: "sold-out" },
          {},
          { status: "available", pendingCause: undefined },
        ],
        [
          "a held pet",
          "evt_otherwise",
          { status: "pending", pendingCause: "hold" },
          {},
          { status: "pending", pendingCause: "hold" },
        ],
        ["an available pet", "evt_otherwise", {}, {}, { status: "available" }],
        [
          "a sold pet, no restock given",
          "evt_otherwise",
          { status: "sold" },
          { restock: undefined },
          { status: "sold" },
        ],
        [
          "a sold-out pet, no restock given",
          "evt_otherwise",
          { status: "pending", pendingCause: "sold-out" },
          { restock: undefined },
          { status: "pending", pendingCause: "sold-out" },
        ],
      ])("set stock on %s has the consequence %s", async (_, tag, overrides, given, expected) => {
        await pets().insert(aPet({ id: 1, ...overrides }));

        expect((await pets().setStock(setting(given))).pet).toMatchObject({ stock: 5, revision: 2, ...expected });
        expect(await eventIds()).toEqual([tag]);
      });

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

    describe("stock moves (core/pets/stock-writes.ts over this port)", () => {
      it("reserve takes units and marks the reservation; the last unit makes the pet pending, sold out, in the same write", async () => {
        await pets().insert(aPet({ id: 1, stock: 3 }));

        expect(await reserve(1, 10, 2)).toBe("reserved");
        expect(await pets().ofId(1)).toMatchObject({
          stock: 1,
          status: "available",
          holdCount: 1,
          heldUnits: 2,
          marks: [{ orderId: 10, kind: "reserve", units: 2, nonce: "n10" }],
          revision: 2,
        });
        expect(await reserve(1, 11, 1)).toBe("reserved");
        expect(await pets().ofId(1)).toMatchObject({
          stock: 0,
          status: "pending",
          pendingCause: "sold-out",
          holdCount: 2,
          heldUnits: 3,
          revision: 3,
        });
        expect(await eventTypes()).toEqual(["inventory.changed", "inventory.changed", "pet.status_changed"]);
      });

      it("reserve is idempotent by order id while its mark is there, and explains every refusal", async () => {
        await pets().insert(aPet({ id: 1, stock: 3 }));
        await pets().insert(aPet({ id: 2, stock: 3, status: "pending", pendingCause: "hold" }));
        await pets().insert(aPet({ id: 3, stock: 3, lifecycle: "deleting", provisionalSince: since }));
        await pets().insert(aPet({ id: 4, stock: 3, lifecycle: "creating", provisionalSince: since }));
        await reserve(1, 10, 1);

        expect(await reserve(1, 10, 1, "other attempt")).toBe("already-held");
        expect(await reserve(1, 11, 3)).toBe("insufficient-stock");
        expect(await reserve(2, 12, 1)).toBe("not-available");
        expect(await reserve(3, 13, 1)).toBe("unknown-pet");
        expect(await reserve(4, 14, 1)).toBe("unknown-pet");
        expect(await reserve(5, 15, 1)).toBe("unknown-pet");
        expect(await pets().ofId(1)).toMatchObject({
          stock: 2,
          holdCount: 1,
          marks: [{ orderId: 10, nonce: "n10" }],
          revision: 2,
        });
        expect((await pets().ofId(2))?.revision).toBe(1);
      });

      it("reserve is atomic: 200 concurrent single-unit orders for 50 in stock, exactly 50 held, pending once", async () => {
        await pets().insert(aPet({ id: 1, stock: 50 }));

        const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => reserve(1, 100 + i, 1)));

        expect(outcomes.filter((o) => o === "reserved")).toHaveLength(50);
        expect(outcomes.every((o) => ["reserved", "insufficient-stock", "not-available"].includes(o))).toBe(true);
        expect(await pets().ofId(1)).toMatchObject({
          stock: 0,
          status: "pending",
          holdCount: 50,
          heldUnits: 50,
          revision: 51,
        });
        expect((await eventTypes()).filter((t) => t === "pet.status_changed")).toHaveLength(1);
      });

      it("a kept reservation loses its mark only for its own attempt's nonce; an undone one gives its units back once", async () => {
        await pets().insert(aPet({ id: 1, stock: 2 }));
        await reserve(1, 10, 2);

        expect(await keepReservation(pets(), 1, 10, "someone else")).toBe(false);
        expect(await undoReservation(pets(), clock, 1, 10, 2, "someone else")).toBe(false);
        expect(await undoReservation(pets(), clock, 1, 10, 2, "n10")).toBe(true);
        expect(await undoReservation(pets(), clock, 1, 10, 2, "n10")).toBe(false);
        expect(await pets().ofId(1)).toMatchObject({
          stock: 2,
          status: "available",
          pendingCause: undefined,
          holdCount: 0,
          heldUnits: 0,
          marks: [],
        });

        await reserve(1, 11, 1);
        expect(await keepReservation(pets(), 1, 11, "n11")).toBe(true);
        expect(await keepReservation(pets(), 1, 11, "n11")).toBe(false);
        expect(await pets().ofId(1)).toMatchObject({ stock: 1, holdCount: 1, heldUnits: 1, marks: [] });
      });

      it("a release applies once while its fence holds, leaves a settle mark, and a sold-out pet is available again", async () => {
        await pets().insert(
          aPet({ id: 1, stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 2, heldUnits: 3 }),
        );

        expect((await applySettlement(pets(), clock, "release", order(10, 2), 1)).outcome).toBe("fence-moved");
        expect((await applySettlement(pets(), clock, "release", order(10, 2), 0)).outcome).toBe("applied");
        expect((await applySettlement(pets(), clock, "release", order(10, 2), 0)).outcome).toBe("applied");
        expect(await pets().ofId(1)).toMatchObject({
          stock: 2,
          status: "available",
          pendingCause: undefined,
          holdCount: 1,
          heldUnits: 1,
          marks: [{ orderId: 10, kind: "settle" }],
        });
        expect((await applySettlement(pets(), clock, "release", order(10, 2, 9), 0)).outcome).toBe("no-pet");

        await clearSettleMark(pets(), 1, 10);
        // The mark is gone, and with it the fence the late actor read: it cannot apply a second time.
        expect((await applySettlement(pets(), clock, "release", order(10, 2), 0)).outcome).toBe("fence-moved");
        expect(await pets().ofId(1)).toMatchObject({ stock: 2, holdCount: 1, marks: [], fences: { 10: 1 } });
      });

      it("a release keeps a staff hold, and a consumption of the last holding order at stock 0 makes a sold-out pet sold", async () => {
        await pets().insert(
          aPet({ id: 1, stock: 0, status: "pending", pendingCause: "hold", holdCount: 1, heldUnits: 1 }),
        );
        await pets().insert(
          aPet({ id: 2, stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 2, heldUnits: 3 }),
        );

        await applySettlement(pets(), clock, "release", order(10, 1, 1), 0);
        expect(await pets().ofId(1)).toMatchObject({ stock: 1, status: "pending", pendingCause: "hold", holdCount: 0 });

        await applySettlement(pets(), clock, "consume", order(11, 1, 2), 0);
        expect(await pets().ofId(2)).toMatchObject({
          stock: 0,
          status: "pending",
          pendingCause: "sold-out",
          holdCount: 1,
          heldUnits: 2,
        });
        await applySettlement(pets(), clock, "consume", order(12, 2, 2), 0);
        expect(await pets().ofId(2)).toMatchObject({
          stock: 0,
          status: "sold",
          pendingCause: undefined,
          holdCount: 0,
          heldUnits: 0,
        });
        expect((await eventTypes()).filter((t) => t === "pet.status_changed")).toHaveLength(1);
      });

      it("concurrent settlements of many orders count every unit, each once", async () => {
        await pets().insert(
          aPet({ id: 1, stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 30, heldUnits: 60 }),
        );
        const orders = Array.from({ length: 30 }, (_, i) => order(i + 1, 2));

        const results = await Promise.all(
          [...orders, ...orders].map((o) => applySettlement(pets(), clock, "release", o, 0)),
        );

        expect(results.every((r) => r.outcome === "applied")).toBe(true);
        expect(await pets().ofId(1)).toMatchObject({ stock: 60, status: "available", holdCount: 0, heldUnits: 0 });
        expect((await pets().ofId(1))?.marks).toHaveLength(30);
      });

      it("set stock: above 0 a sold or sold-out pet is available again, a staff hold stays; revision and limit checked", async () => {
        await pets().insert(aPet({ id: 1, status: "sold" }));
        await pets().insert(aPet({ id: 2, status: "pending", pendingCause: "hold", revision: 3 }));
        await pets().insert(aPet({ id: 3, status: "pending", pendingCause: "sold-out", holdCount: 1, heldUnits: 4 }));

        expect((await pets().setStock(stockSetting(clock, 1, 0))).pet).toMatchObject({ stock: 0, status: "sold" });
        expect((await pets().setStock(stockSetting(clock, 1, 4))).pet).toMatchObject({ stock: 4, status: "available" });
        expect((await pets().setStock(stockSetting(clock, 2, 4, 2))).applied).toBe(false);
        expect((await pets().setStock(stockSetting(clock, 2, 4, 3))).pet).toMatchObject({
          stock: 4,
          status: "pending",
          pendingCause: "hold",
          revision: 4,
        });
        expect((await pets().setStock(stockSetting(clock, 3, MAX_STOCK - 3))).applied).toBe(false);
        expect((await pets().setStock(stockSetting(clock, 3, MAX_STOCK - 4))).pet).toMatchObject({
          stock: MAX_STOCK - 4,
          status: "available",
          pendingCause: undefined,
        });
      });
    });

    it("tells whether any pet, provisional or moving in, names a category", async () => {
      await pets().insert(aPet({ id: 1, categoryId: 10 }));
      await pets().insert(aPet({ id: 2, categoryId: 20, lifecycle: "creating", provisionalSince: since }));
      await pets().insert(aPet({ id: 3, categoryId: 10, movingTo: 30, provisionalSince: since }));

      expect(await pets().anyNaming(10)).toBe(true);
      expect(await pets().anyNaming(20)).toBe(true);
      expect(await pets().anyNaming(30)).toBe(true);
      expect(await pets().anyNaming(40)).toBe(false);
    });

    it("lists recovery's work: provisional pets and pets with marks, ascending id, paged", async () => {
      await pets().insert(aPet({ id: 1, holdCount: 5, heldUnits: 5 }));
      await pets().insert(aPet({ id: 2, lifecycle: "creating", provisionalSince: since }));
      await pets().insert(aPet({ id: 3, movingTo: 5, provisionalSince: since, marks: [mark(1, "reserve", 1, "a")] }));
      await pets().insert(aPet({ id: 4, lifecycle: "deleting", provisionalSince: since }));
      await pets().insert(aPet({ id: 5, marks: [mark(2, "settle")] }));

      expect(idsOf(await pets().provisional(everything))).toEqual([2, 3, 4]);
      expect(idsOf(await pets().provisional({ limit: 2 }))).toEqual([2, 3]);
      expect(idsOf(await pets().provisional({ limit: 2, after: 3 }))).toEqual([4]);
      expect(idsOf(await pets().withMarks(everything))).toEqual([3, 5]);
      expect(idsOf(await pets().withMarks({ limit: 1, after: 3 }))).toEqual([5]);
    });
  });
};
