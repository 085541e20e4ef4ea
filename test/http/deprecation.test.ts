import { afterEach, describe, expect, it } from "vitest";
import { expectError, expectRateLimitHeaders } from "../support/http-assertions.ts";
import { createCategory, createPet } from "../support/http-fixtures.ts";
import { startTestPetstore, type TestPetstore, type TestResponse } from "../support/test-petstore.ts";
import { expectedPet } from "../support/bodies.ts";

const DEPRECATED_2026_09_01 = "@1788220800";

const deprecationHeaders = (res: TestResponse) => ({
  deprecation: res.headers.get("deprecation"),
  sunset: res.headers.get("sunset"),
  link: res.headers.get("link"),
});

describe("GET /pets/{petId}: deprecation and sunset", () => {
  let t: TestPetstore;
  afterEach(() => t.close());

  const start = async (env: Record<string, string> = {}) => {
    t = await startTestPetstore({ env });
    await createCategory(t, "Dogs");
    await createPet(t, { name: "Rex", categoryId: 1 });
  };

  it("answers the pet with Deprecation, Sunset and a successor Link, by default dates", async () => {
    await start();
    const res = await t.client.get("/pets/1", { key: t.adminKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expectedPet({ id: 1, name: "Rex", categoryId: 1, status: "available" }));
    expect(deprecationHeaders(res)).toEqual({
      deprecation: DEPRECATED_2026_09_01,
      sunset: "Wed, 30 Jun 2027 00:00:00 GMT",
      link: '</pets?ids=1>; rel="successor-version"',
    });
  });

  it("takes its dates from PETSTORE_GET_PET_DEPRECATED_AT and PETSTORE_GET_PET_SUNSET_AT", async () => {
    await start({ PETSTORE_GET_PET_DEPRECATED_AT: "2026-10-15T08:30:00Z", PETSTORE_GET_PET_SUNSET_AT: "2026-12-01" });
    const res = await t.client.get("/pets/1", { key: t.adminKey });
    expect(deprecationHeaders(res)).toEqual({
      deprecation: `@${Date.parse("2026-10-15T08:30:00Z") / 1000}`,
      sunset: "Tue, 01 Dec 2026 00:00:00 GMT",
      link: '</pets?ids=1>; rel="successor-version"',
    });
  });

  it("the successor link answers the same pet", async () => {
    await start();
    const old = await t.client.get("/pets/1", { key: t.adminKey });
    const successor = /^<([^>]+)>/.exec(old.headers.get("link")!)![1]!;
    const res = await t.client.get(successor, { key: t.adminKey });
    expect(res.body).toEqual([old.body]);
    expect(res.headers.get("deprecation")).toBeNull();
  });

  it("marks its 404 answers too", async () => {
    await start({ PETSTORE_GET_PET_SUNSET_AT: "2026-12-01" });
    const res = await t.client.get("/pets/2", { key: t.adminKey });
    expectError(res, 404, "not_found");
    expect(deprecationHeaders(res)).toEqual({
      deprecation: DEPRECATED_2026_09_01,
      sunset: "Tue, 01 Dec 2026 00:00:00 GMT",
      link: '</pets?ids=2>; rel="successor-version"',
    });
  });

  it("answers until the sunset, then 410 gone with the same headers", async () => {
    await start({ PETSTORE_GET_PET_SUNSET_AT: "2026-12-01" });
    t.clock.set("2026-11-30T23:59:59.999Z");
    expect((await t.client.get("/pets/1", { key: t.adminKey })).status).toBe(200);

    t.clock.set("2026-12-01T00:00:00.000Z");
    const gone = await t.client.get("/pets/1", { key: t.adminKey });
    expectError(gone, 410, "gone");
    expectRateLimitHeaders(gone);
    expect(deprecationHeaders(gone)).toEqual({
      deprecation: DEPRECATED_2026_09_01,
      sunset: "Tue, 01 Dec 2026 00:00:00 GMT",
      link: '</pets?ids=1>; rel="successor-version"',
    });

    t.clock.set("2027-03-01T00:00:00.000Z");
    expectError(await t.client.get("/pets/1", { key: t.adminKey }), 410, "gone");
    expectError(await t.client.get("/pets/999", { key: t.adminKey }), 410, "gone");
  });

  it("after the sunset, the other pet operations and the successor work as before, without deprecation headers", async () => {
    await start({ PETSTORE_GET_PET_SUNSET_AT: "2026-12-01" });
    t.clock.set("2026-12-02T00:00:00.000Z");
    const list = await t.client.get("/pets?ids=1", { key: t.adminKey });
    expect(list.body).toEqual([expectedPet({ id: 1, name: "Rex", categoryId: 1, status: "available" })]);
    const put = await t.client.put("/pets/1", { key: t.adminKey, body: { name: "Max", categoryId: 1 } });
    expect(put.status).toBe(200);
    const del = await t.client.delete("/pets/1", { key: t.adminKey });
    expect(del.status).toBe(204);
    for (const res of [list, put, del]) expect(res.headers.get("deprecation")).toBeNull();
    expect(list.headers.get("sunset")).toBeNull();
  });

  it("requires a key like every other operation, deprecated or gone", async () => {
    await start({ PETSTORE_GET_PET_SUNSET_AT: "2026-12-01" });
    expectError(await t.client.get("/pets/1"), 401, "unauthorized");
    t.clock.set("2026-12-02T00:00:00.000Z");
    expectError(await t.client.get("/pets/1"), 401, "unauthorized");
  });
});
