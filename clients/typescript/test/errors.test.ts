import { describe, expect, expectTypeOf, it } from "vitest";
import { createPetstoreClient, errorCodes, isPetstoreError, PetstoreError, type ErrorCode } from "../src/index.ts";
import { errorBody, fakeFetch } from "./fake-fetch.ts";

describe("typed errors", () => {
  it("lists the document's error codes", () => {
    expect(errorCodes).toContain("insufficient_stock");
    expect(errorCodes).toContain("precondition_failed");
    expect(errorCodes).not.toContain("teapot");
    expectTypeOf<"insufficient_stock">().toExtend<ErrorCode>();
    expectTypeOf<"teapot">().not.toExtend<ErrorCode>();
  });

  it("narrows an openapi-fetch error to the code asked for", async () => {
    const fake = fakeFetch(errorBody(409, "insufficient_stock"));
    const client = createPetstoreClient({ baseUrl: "http://petstore.test", fetch: fake.fetch });
    const { error } = await client.POST("/store/orders", { body: { petId: 1, quantity: 5 } });
    expect(isPetstoreError(error)).toBe(true);
    expect(isPetstoreError(error, "insufficient_stock")).toBe(true);
    expect(isPetstoreError(error, "pet_not_available")).toBe(false);
    if (isPetstoreError(error, "insufficient_stock")) {
      expectTypeOf(error.code).toEqualTypeOf<"insufficient_stock">();
      expect(error.status).toBe(409);
    }
    // @ts-expect-error a code the document does not list
    isPetstoreError(error, "teapot");
  });

  it("recognises a thrown PetstoreError, and nothing that is not the Error body", () => {
    const thrown = new PetstoreError({ code: "not_found", message: "No pet 7", status: 404 });
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown.message).toBe("404 not_found: No pet 7");
    expect(isPetstoreError(thrown, "not_found")).toBe(true);
    for (const other of [
      undefined,
      null,
      "not_found",
      new Error("not_found"),
      { code: "not_found" },
      { code: 1, message: "", status: 404 },
    ]) {
      expect(isPetstoreError(other), JSON.stringify(other)).toBe(false);
    }
  });
});
