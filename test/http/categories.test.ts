import { beforeEach, describe, expect, it } from "vitest";
import { expectError, expectValidationFailed } from "../support/http-assertions.ts";
import { createCategory, createPet, usePetstore } from "../support/http-fixtures.ts";
import { categoryBody, expectedCategory, newCategory } from "../support/bodies.ts";

describe("categories", () => {
  const { t, keys: k } = usePetstore();

  const allCategories = async () => (await t.client.get("/categories?limit=100", { key: k.customer })).body;

  describe("POST /categories", () => {
    it("creates a category (trimmed) and answers 201 with Location", async () => {
      const res = await t.client.post("/categories", {
        key: k.staff,
        body: newCategory({ name: "  Dogs ", description: "  Loyal  " }),
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual(categoryBody({ id: 1, name: "Dogs", description: "Loyal" }));
      expect(res.headers.get("location")).toBe("/categories/1");
      expect((await t.client.get("/categories/1", { key: k.customer })).body).toEqual(res.body);
    });

    it("leaves out a description that was not sent, and accepts the longest name and description", async () => {
      const cats = await t.client.post("/categories", { key: k.staff, body: newCategory({ name: "Cats" }) });
      expect(cats.body).toEqual(expectedCategory({ id: 1, name: "Cats" }));
      expect(cats.body).not.toHaveProperty("description");
      const long = await t.client.post("/categories", {
        key: k.staff,
        body: newCategory({ name: "n".repeat(100), description: "d".repeat(500) }),
      });
      expect(long.status).toBe(201);
      expect(long.body).toMatchObject({ id: 2, name: "n".repeat(100), description: "d".repeat(500) });
    });

    it("answers 409 category_name_taken whatever the case or surrounding spaces, and stores nothing", async () => {
      await createCategory(t, "Dogs");
      for (const name of ["Dogs", "dogs", "DOGS", "  dOgS  "]) {
        expectError(await t.client.post("/categories", { key: k.staff, body: { name } }), 409, "category_name_taken");
      }
      expect(await allCategories()).toEqual([{ id: 1, name: "Dogs" }]);
    });

    it("lets only one of two racing creates with the same name (in another case) through", async () => {
      const results = await Promise.all([
        t.client.post("/categories", { key: k.staff, body: { name: "Birds" } }),
        t.client.post("/categories", { key: k.staff, body: { name: "BIRDS" } }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(await allCategories()).toHaveLength(1);
    });

    it.each([
      ["a missing name", { description: "x" }, ["body.name"]],
      ["a wrong type", { name: 7 }, ["body.name"]],
      ["a name that is empty after trimming", { name: " \t " }, ["body.name"]],
      ["a name of 101 characters", { name: "n".repeat(101) }, ["body.name"]],
      ["a description of 501 characters", { name: "Dogs", description: "d".repeat(501) }, ["body.description"]],
      ["a description of the wrong type", { name: "Dogs", description: 1 }, ["body.description"]],
      ["an unknown property", { name: "Dogs", id: 3 }, ["body"]],
      ["an array instead of an object", [{ name: "Dogs" }], ["body"]],
    ])("answers 400 validation_failed for %s and stores nothing", async (_, body, paths) => {
      expectValidationFailed(await t.client.post("/categories", { key: k.staff, body }), ...paths);
      expect(await allCategories()).toEqual([]);
    });
  });

  describe("GET /categories and /categories/{categoryId}", () => {
    it("lists categories as a bare array in ascending id order", async () => {
      await createCategory(t, "Dogs", "Loyal");
      await createCategory(t, "Cats");
      const res = await t.client.get("/categories", { key: k.customer });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { id: 1, name: "Dogs", description: "Loyal" },
        { id: 2, name: "Cats" },
      ]);
    });

    it("answers an empty list when there are none", async () => {
      const res = await t.client.get("/categories", { key: k.customer });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
      expect(res.headers.get("link")).toBeNull();
    });

    it("gets one category, and 404 for an id that names nothing", async () => {
      await createCategory(t, "Dogs");
      expect((await t.client.get("/categories/1", { key: k.customer })).body).toEqual(
        expectedCategory({ id: 1, name: "Dogs" }),
      );
      expectError(await t.client.get("/categories/2", { key: k.customer }), 404, "not_found");
      expectError(await t.client.get("/categories/9223372036854775807", { key: k.customer }), 404, "not_found");
      expectValidationFailed(await t.client.get("/categories/abc", { key: k.customer }), "path.categoryId");
      expectValidationFailed(
        await t.client.get("/categories/9223372036854775808", { key: k.customer }),
        "path.categoryId",
      );
    });

    it("refuses query parameters it does not know", async () => {
      expectValidationFailed(await t.client.get("/categories?name=Dogs", { key: k.customer }), "query");
    });
  });

  describe("PUT /categories/{categoryId}", () => {
    beforeEach(async () => {
      await createCategory(t, "Dogs", "Loyal");
      await createCategory(t, "Cats");
    });

    it("replaces the category: a description not sent is removed", async () => {
      const res = await t.client.put("/categories/1", { key: k.staff, body: { name: " Hounds " } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(expectedCategory({ id: 1, name: "Hounds" }));
      expect(res.body).not.toHaveProperty("description");
      expect((await t.client.get("/categories/1", { key: k.customer })).body).toEqual(res.body);
    });

    it("lets a category keep its own name in another case", async () => {
      const res = await t.client.put("/categories/1", { key: k.staff, body: { name: "DOGS", description: "Loud" } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(expectedCategory({ id: 1, name: "DOGS", description: "Loud" }));
    });

    it("answers 409 category_name_taken for another category's name in any case, and changes nothing", async () => {
      expectError(
        await t.client.put("/categories/1", { key: k.staff, body: { name: "cats" } }),
        409,
        "category_name_taken",
      );
      expectError(
        await t.client.put("/categories/1", { key: k.staff, body: { name: "CATS " } }),
        409,
        "category_name_taken",
      );
      expect(await allCategories()).toEqual([
        { id: 1, name: "Dogs", description: "Loyal" },
        { id: 2, name: "Cats" },
      ]);
    });

    it("answers 404 for a missing category and 400 for a bad body", async () => {
      expectError(await t.client.put("/categories/3", { key: k.staff, body: { name: "Birds" } }), 404, "not_found");
      expectValidationFailed(await t.client.put("/categories/1", { key: k.staff, body: { name: "" } }), "body.name");
      expectValidationFailed(
        await t.client.put("/categories/1", { key: k.staff, body: { name: "X", description: "d".repeat(501) } }),
        "body.description",
      );
      expect(await allCategories()).toHaveLength(2);
    });
  });

  describe("DELETE /categories/{categoryId}", () => {
    beforeEach(async () => {
      await createCategory(t, "Dogs");
      await createCategory(t, "Cats");
    });

    it("answers 204 with an empty body and the category is gone", async () => {
      const res = await t.client.delete("/categories/2", { key: k.staff });
      expect(res.status).toBe(204);
      expect(res.body).toBe("");
      expectError(await t.client.get("/categories/2", { key: k.customer }), 404, "not_found");
      expectError(await t.client.delete("/categories/2", { key: k.staff }), 404, "not_found");
    });

    it("answers 409 category_in_use while a pet is in it, and deletes once the pet is gone", async () => {
      await createPet(t, { name: "Rex", categoryId: 1 });
      expectError(await t.client.delete("/categories/1", { key: k.staff }), 409, "category_in_use");
      expect(await allCategories()).toHaveLength(2);
      await t.client.delete("/pets/1", { key: k.staff });
      expect((await t.client.delete("/categories/1", { key: k.staff })).status).toBe(204);
    });

    it("frees the name and never reuses the id", async () => {
      await t.client.delete("/categories/2", { key: k.staff });
      const again = await t.client.post("/categories", { key: k.staff, body: newCategory({ name: "cats" }) });
      expect(again.status).toBe(201);
      expect(again.body).toEqual(expectedCategory({ id: 3, name: "cats" }));
    });
  });
});
