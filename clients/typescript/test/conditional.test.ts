import { describe, expect, it } from "vitest";
import { createPetstoreClient, isPetstoreError } from "../src/index.ts";
import { errorBody, fakeFetch, json, type Sent } from "./fake-fetch.ts";

const rex = { id: 7, name: "Rex", categoryId: 1, status: "available" as const };

/** One pet at revision `revision`; a PUT whose If-Match is not its tag is refused, as the service does. */
const onePet = (changedBetween = false) => {
  let revision = 1;
  return (sent: Sent): Response => {
    const etag = `"p7r${revision}"`;
    if (sent.method === "GET") {
      if (changedBetween) revision++;
      return json(200, rex, { etag });
    }
    if (sent.headers.get("if-match") !== etag) return errorBody(412, "precondition_failed");
    revision++;
    return json(200, { ...rex, ...JSON.parse(sent.body) }, { etag: `"p7r${revision}"` });
  };
};

describe("conditional updates", () => {
  it("reads the ETag and sends it as If-Match with the body computed from what was read", async () => {
    const fake = fakeFetch(onePet());
    const client = createPetstoreClient({ baseUrl: "http://petstore.test", fetch: fake.fetch });
    const { data, error, response } = await client.conditionalUpdate("PUT", "/pets/{petId}", {
      params: { path: { petId: 7 } },
      update: (current) => ({ name: `${current.name} II`, categoryId: current.categoryId, status: "pending" as const }),
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ name: "Rex II", status: "pending" });
    expect(fake.sent.map((s) => [s.method, new URL(s.url).pathname, s.headers.get("if-match")])).toEqual([
      ["GET", "/pets/7", null],
      ["PUT", "/pets/7", '"p7r1"'],
    ]);
  });

  it("answers a typed 412 when the resource changed in between, and changes nothing", async () => {
    const fake = fakeFetch(onePet(true));
    const client = createPetstoreClient({ baseUrl: "http://petstore.test", fetch: fake.fetch });
    const { error, response } = await client.conditionalUpdate("PUT", "/pets/{petId}", {
      params: { path: { petId: 7 } },
      update: (current) => ({ name: current.name, categoryId: 2 }),
    });
    expect(response.status).toBe(412);
    expect(isPetstoreError(error, "precondition_failed")).toBe(true);
  });

  it("throws the read's error, and an Error when the read has no ETag", async () => {
    const missing = createPetstoreClient({
      baseUrl: "http://petstore.test",
      fetch: fakeFetch(errorBody(404, "not_found")).fetch,
    });
    const update = { params: { path: { orderId: 1 } }, update: () => ({ complete: true as const }) };
    await expect(missing.conditionalUpdate("PATCH", "/store/orders/{orderId}", update)).rejects.toMatchObject({
      code: "not_found",
      status: 404,
    });
    const untagged = createPetstoreClient({
      baseUrl: "http://petstore.test",
      fetch: fakeFetch(json(200, { id: 1 })).fetch,
    });
    await expect(untagged.conditionalUpdate("PATCH", "/store/orders/{orderId}", update)).rejects.toThrow("no ETag");
  });
});
