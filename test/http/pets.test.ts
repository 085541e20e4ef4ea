import { beforeEach, describe, expect, it } from "vitest";
import { expectError, expectValidationFailed } from "../support/http-assertions.ts";
import { createCategory, createPet, placeOrder, setStock, usePetstore } from "../support/http-fixtures.ts";
import { expectedPet, newPet, petBody } from "../support/bodies.ts";
import { PetView } from "../../adapters/http/schemas.ts";

describe("pets", () => {
  const { t, keys: k } = usePetstore({
    given: async () => {
      await createCategory(t, "Dogs");
      await createCategory(t, "Cats");
    },
  });

  const allPets = async () => (await t.client.get("/pets?limit=100", { key: k.staff })).body;

  describe("POST /pets", () => {
    it("creates an available pet with id 1, answers 201 with Location, and gives it an empty inventory item", async () => {
      const res = await t.client.post("/pets", { key: k.staff, body: { name: "  Rex  ", categoryId: 1 } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual(petBody({ id: 1, name: "Rex", categoryId: 1, status: "available" }));
      expect(res.headers.get("location")).toBe("/pets/1");
      expect((await t.client.get(res.headers.get("location")!, { key: k.customer })).body).toEqual(res.body);
      expect((await t.client.get("/store/inventory/1", { key: k.customer })).body).toEqual({
        petId: 1,
        quantity: 0,
        status: "available",
      });
    });

    it("takes an initial status and increasing ids", async () => {
      await createPet(t, { name: "A", categoryId: 1 });
      const res = await t.client.post("/pets", { key: k.staff, body: { name: "B", categoryId: 2, status: "pending" } });
      expect(res.body).toEqual(expectedPet({ id: 2, name: "B", categoryId: 2, status: "pending" }));
      expect(res.headers.get("location")).toBe("/pets/2");
    });

    it("accepts a name of exactly 100 characters", async () => {
      const res = await t.client.post("/pets", { key: k.staff, body: { name: "n".repeat(100), categoryId: 1 } });
      expect(res.status).toBe(201);
      expect(res.body.name).toHaveLength(100);
    });

    it("answers 422 unknown_category and stores nothing", async () => {
      expectError(
        await t.client.post("/pets", { key: k.staff, body: { name: "Rex", categoryId: 99 } }),
        422,
        "unknown_category",
      );
      expect(await allPets()).toEqual([]);
      expect((await t.stores.pets.ofId(1))?.stock).toBeUndefined();
      // The refused request used no id.
      expect((await createPet(t, { categoryId: 1 })).id).toBe(1);
    });

    it.each([
      ["a wrong type", { name: 5, categoryId: 1 }, ["body.name"]],
      ["a missing name", { categoryId: 1 }, ["body.name"]],
      ["a missing categoryId", { name: "Rex" }, ["body.categoryId"]],
      ["an unknown property", { name: "Rex", categoryId: 1, color: "brown" }, ["body"]],
      ["a bad status", { name: "Rex", categoryId: 1, status: "lost" }, ["body.status"]],
      ["a name that is empty after trimming", { name: "   ", categoryId: 1 }, ["body.name"]],
      ["a name of 101 characters", { name: "n".repeat(101), categoryId: 1 }, ["body.name"]],
      ["a fractional categoryId", { name: "Rex", categoryId: 1.5 }, ["body.categoryId"]],
      ["a categoryId as a string", { name: "Rex", categoryId: "1" }, ["body.categoryId"]],
      ["a categoryId outside int64", { name: "Rex", categoryId: 1e20 }, ["body.categoryId"]],
      [
        "several problems at once",
        { name: "", categoryId: "x", status: "lost" },
        ["body.name", "body.categoryId", "body.status"],
      ],
    ])("answers 400 validation_failed for %s and stores nothing", async (_, body, paths) => {
      expectValidationFailed(await t.client.post("/pets", { key: k.staff, body }), ...paths);
      expect(await allPets()).toEqual([]);
    });

    it("names the unknown property in details", async () => {
      const res = await t.client.post("/pets", { key: k.staff, body: { name: "Rex", categoryId: 1, color: "brown" } });
      expectValidationFailed(res);
      expect(res.body.details).toEqual([{ path: "body.color", message: expect.stringContaining("color") }]);
    });
  });

  describe("GET /pets", () => {
    beforeEach(async () => {
      await createPet(t, { name: "Rex", categoryId: 1 }); // 1 available
      await createPet(t, { name: "Tom", categoryId: 2, status: "pending" }); // 2 pending
      await createPet(t, { name: "Bella", categoryId: 1, status: "pending" }); // 3 pending
      await createPet(t, { name: "Luna", categoryId: 2 }); // 4 available
    });
    const ids = async (query: string) => {
      const res = await t.client.get(`/pets${query}`, { key: k.customer });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.map((p: { id: number }) => p.id);
    };

    it("returns a bare array of pets in ascending id order", async () => {
      const res = await t.client.get("/pets", { key: k.customer });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        expectedPet({ id: 1, name: "Rex", categoryId: 1, status: "available" }),
        expectedPet({ id: 2, name: "Tom", categoryId: 2, status: "pending" }),
        expectedPet({ id: 3, name: "Bella", categoryId: 1, status: "pending" }),
        expectedPet({ id: 4, name: "Luna", categoryId: 2, status: "available" }),
      ]);
      expect(res.headers.get("link")).toBeNull();
    });

    it("filters by status (a comma list), categoryId and ids, alone and together", async () => {
      expect(await ids("?status=pending")).toEqual([2, 3]);
      expect(await ids("?status=available,pending")).toEqual([1, 2, 3, 4]);
      expect(await ids("?status=sold")).toEqual([]);
      expect(await ids("?categoryId=2")).toEqual([2, 4]);
      expect(await ids("?categoryId=99")).toEqual([]);
      expect(await ids("?ids=4,1,99")).toEqual([1, 4]);
      expect(await ids("?status=available&categoryId=2")).toEqual([4]);
      expect(await ids("?ids=1,2,3&status=pending&categoryId=1")).toEqual([3]);
    });

    it("accepts an array parameter repeated as well as comma-separated, and both mixed", async () => {
      expect(await ids("?ids=1&ids=2")).toEqual([1, 2]);
      expect(await ids("?ids=4&ids=1,99&ids=3")).toEqual([1, 3, 4]);
      expect(await ids("?status=available&status=pending")).toEqual([1, 2, 3, 4]);
      expect(await ids("?status=pending&ids=1&ids=2&ids=3")).toEqual([2, 3]);
    });

    it("counts a repeated list's items together against its limit", async () => {
      const hundred = Array.from({ length: 100 }, (_, i) => `ids=${i + 1}`).join("&");
      expect(await ids(`?${hundred}`)).toEqual([1, 2, 3, 4]);
      expectValidationFailed(await t.client.get(`/pets?${hundred}&ids=101`, { key: k.customer }), "query.ids");
      expectValidationFailed(
        await t.client.get("/pets?status=sold&status=sold,sold,sold", { key: k.customer }),
        "query.status",
      );
    });

    it("accepts 100 ids and refuses 101", async () => {
      const hundred = Array.from({ length: 100 }, (_, i) => i + 1).join(",");
      expect(await ids(`?ids=${hundred}`)).toEqual([1, 2, 3, 4]);
      expectValidationFailed(await t.client.get(`/pets?ids=${hundred},101`, { key: k.customer }), "query.ids");
    });

    it.each([
      ["status=lost", "query.status"],
      ["status=available,", "query.status"],
      ["categoryId=abc", "query.categoryId"],
      ["categoryId=1.5", "query.categoryId"],
      ["categoryId=9223372036854775808", "query.categoryId"],
      ["ids=1,abc", "query.ids"],
      ["ids=", "query.ids"],
      ["ids=1&ids=", "query.ids"],
      ["ids=1&ids=abc", "query.ids"],
      ["status=available&status=lost", "query.status"],
      ["categoryId=1&categoryId=2", "query.categoryId"],
      ["color=brown", "query"],
    ])("answers 400 validation_failed for ?%s", async (query, path) => {
      expectValidationFailed(await t.client.get(`/pets?${query}`, { key: k.customer }), path);
    });
  });

  describe("PUT /pets/{petId}", () => {
    beforeEach(async () => {
      await createPet(t, { name: "Rex", categoryId: 1 });
    });

    it("replaces name and category, keeps the status when none is sent, and answers the full pet", async () => {
      const res = await t.client.put("/pets/1", { key: k.staff, body: { name: " Max ", categoryId: 2 } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(expectedPet({ id: 1, name: "Max", categoryId: 2, status: "available" }));
      expect(await allPets()).toEqual([res.body]);
    });

    it("lets staff put a pet on hold and release it", async () => {
      const hold = await t.client.put("/pets/1", {
        key: k.staff,
        body: { name: "Rex", categoryId: 1, status: "pending" },
      });
      expect(hold.body).toEqual(expectedPet({ id: 1, name: "Rex", categoryId: 1, status: "pending" }));
      const release = await t.client.put("/pets/1", {
        key: k.staff,
        body: { name: "Rex", categoryId: 1, status: "available" },
      });
      expect(release.body).toEqual(expectedPet({ id: 1, name: "Rex", categoryId: 1, status: "available" }));
      const same = await t.client.put("/pets/1", {
        key: k.staff,
        body: { name: "Rex", categoryId: 1, status: "available" },
      });
      expect(same.status).toBe(200);
    });

    it("answers 404 for a missing pet", async () => {
      expectError(
        await t.client.put("/pets/2", { key: k.staff, body: { name: "Rex", categoryId: 1 } }),
        404,
        "not_found",
      );
      expect(await allPets()).toHaveLength(1);
    });

    it("answers 422 unknown_category and changes nothing", async () => {
      const before = await allPets();
      expect(before).toEqual([expectedPet({ id: 1, name: "Rex", categoryId: 1, status: "available" })]);
      expectError(
        await t.client.put("/pets/1", { key: k.staff, body: { name: "Max", categoryId: 99 } }),
        422,
        "unknown_category",
      );
      expect(await allPets()).toEqual(before);
    });

    it("answers 400 validation_failed for a bad body and changes nothing", async () => {
      const before = await allPets();
      expect(before).toEqual([expectedPet({ id: 1, name: "Rex", categoryId: 1, status: "available" })]);
      expectValidationFailed(await t.client.put("/pets/1", { key: k.staff, body: { name: "Max" } }), "body.categoryId");
      expectValidationFailed(
        await t.client.put("/pets/1", { key: k.staff, body: { name: "Max", categoryId: 1, id: 7 } }),
        "body",
      );
      expect(await allPets()).toEqual(before);
    });

    /** Moves pet 1 to `status` the way the service allows. */
    const bringTo = async (status: string) => {
      if (status === "pending")
        await t.client.put("/pets/1", { key: k.staff, body: { name: "Rex", categoryId: 1, status } });
      if (status === "sold") {
        await setStock(t, 1, 1);
        const order = await placeOrder(t, k.customer, { petId: 1, quantity: 1 });
        expect(
          (await t.client.patch(`/store/orders/${order.id}`, { key: k.staff, body: { complete: true } })).status,
        ).toBe(200);
      }
      expect((await t.client.get("/pets?ids=1", { key: k.staff })).body[0].status).toBe(status);
    };

    it.each([
      ["available", "sold"],
      ["pending", "sold"],
      ["sold", "available"],
      ["sold", "pending"],
    ])("answers 409 invalid_transition for %s → %s and keeps the pet as it was", async (from, to) => {
      await bringTo(from);
      const before = await allPets();
      expect(before).toEqual([expectedPet({ id: 1, name: "Rex", categoryId: 1, status: from })]);
      const res = await t.client.put("/pets/1", { key: k.staff, body: { name: "Renamed", categoryId: 2, status: to } });
      expectError(res, 409, "invalid_transition");
      expect(await allPets()).toEqual(before);
    });
  });

  describe("DELETE /pets/{petId}", () => {
    beforeEach(async () => {
      await createPet(t, { name: "Rex", categoryId: 1 });
      await createPet(t, { name: "Tom", categoryId: 1 });
    });

    it("answers 204 with an empty body and removes the pet and its inventory item", async () => {
      const res = await t.client.delete("/pets/1", { key: k.staff });
      expect(res.status).toBe(204);
      expect(res.body).toBe("");
      expectError(await t.client.get("/pets/1", { key: k.staff }), 404, "not_found");
      expectError(await t.client.get("/store/inventory/1", { key: k.staff }), 404, "not_found");
      expect((await t.stores.pets.ofId(1))?.stock).toBeUndefined();
      expect(await allPets()).toEqual([expectedPet({ id: 2, name: "Tom", categoryId: 1, status: "available" })]);
    });

    it("answers 404 for a missing or already deleted pet", async () => {
      expectError(await t.client.delete("/pets/3", { key: k.staff }), 404, "not_found");
      await t.client.delete("/pets/1", { key: k.staff });
      expectError(await t.client.delete("/pets/1", { key: k.staff }), 404, "not_found");
    });

    it("never reuses the id of a deleted pet", async () => {
      await t.client.delete("/pets/2", { key: k.staff });
      expect((await createPet(t, { name: "New", categoryId: 1 })).id).toBe(3);
    });

    it("answers 409 pet_has_open_orders while an order is open, and deletes once it is cancelled", async () => {
      await setStock(t, 1, 5);
      const order = await placeOrder(t, k.customer, { petId: 1, quantity: 2 });
      expectError(await t.client.delete("/pets/1", { key: k.staff }), 409, "pet_has_open_orders");
      expect(await allPets()).toHaveLength(2);
      expect((await t.stores.pets.ofId(1))?.stock).toBe(3);

      expect((await t.client.delete(`/store/orders/${order.id}`, { key: k.customer })).status).toBe(204);
      expect((await t.client.delete("/pets/1", { key: k.staff })).status).toBe(204);
    });

    it("deletes a pet whose orders are all complete", async () => {
      await setStock(t, 1, 5);
      const order = await placeOrder(t, k.customer, { petId: 1, quantity: 2 });
      await t.client.patch(`/store/orders/${order.id}`, { key: k.staff, body: { complete: true } });
      expect((await t.client.delete("/pets/1", { key: k.staff })).status).toBe(204);
    });
  });

  describe("store-only fields", () => {
    const onWire = (key: string) => Object.hasOwn(PetView.shape, key);

    it("stay out of every pet answer: POST, GET, the list and PUT carry only the wire's fields", async () => {
      const created = await t.client.post("/pets", { key: k.staff, body: newPet({ categoryId: 1 }) });
      await setStock(t, 1, 5);
      await placeOrder(t, k.customer, { petId: 1, quantity: 2 });
      const put = await t.client.put("/pets/1", { key: k.staff, body: newPet({ categoryId: 2, status: "pending" }) });
      // The stored record does have fields the wire must not show, set to something by now.
      const record = (await t.stores.pets.ofId(1))!;
      expect(Object.keys(record).filter((key) => !onWire(key))).toEqual(
        expect.arrayContaining(["revision", "stock", "holdCount", "heldUnits", "pendingCause", "marks", "lifecycle"]),
      );
      const answers = [
        created.body,
        (await t.client.get("/pets/1", { key: k.customer })).body,
        ...(await allPets()),
        put.body,
      ];
      expect(answers).toHaveLength(4);
      for (const answer of answers) expect(Object.keys(answer).filter((key) => !onWire(key))).toEqual([]);
    });
  });

  describe("path ids", () => {
    beforeEach(async () => {
      await createPet(t, { name: "Rex", categoryId: 1 });
    });

    const calls = [
      ["GET", undefined],
      ["PUT", { name: "Rex", categoryId: 1 }],
      ["DELETE", undefined],
    ] as const;

    it.each(["abc", "1.5", "9223372036854775808", "-9223372036854775809", "1e3", "0x1"])(
      "answers 400 validation_failed for /pets/%s on GET, PUT and DELETE",
      async (id) => {
        for (const [method, body] of calls) {
          expectValidationFailed(await t.client.request(method, `/pets/${id}`, { key: k.staff, body }), "path.petId");
        }
      },
    );

    it.each(["9223372036854775807", "0", "-1", "-9223372036854775808", "2"])(
      "answers 404 not_found for /pets/%s on GET, PUT and DELETE",
      async (id) => {
        for (const [method, body] of calls) {
          expectError(await t.client.request(method, `/pets/${id}`, { key: k.staff, body }), 404, "not_found");
        }
      },
    );
  });
});
