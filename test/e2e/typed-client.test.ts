import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientTypeFiles, renderAllClientTypes } from "../support/generate-client.ts";
import { openApiDriftCheck } from "../support/openapi-drift.ts";
import type { paths as AdminPaths } from "../support/petstore-admin-api.d.ts";
import type { paths } from "../support/petstore-api.d.ts";
import { servePetstore, type ServedPetstore } from "../support/serve-petstore.ts";

describe("the typed client (openapi-typescript + openapi-fetch) over a real socket", () => {
  let service: ServedPetstore;
  const drift: string[] = [];

  /** Every response of the walk goes through the OpenAPI drift check as well. */
  const checkedFetch = async (request: Request): Promise<Response> => {
    const response = await fetch(request);
    const text = await response.clone().text();
    const body = text && response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
    const url = new URL(request.url);
    drift.push(
      ...openApiDriftCheck().check(
        { method: request.method, path: url.pathname + url.search },
        { status: response.status, headers: response.headers, body },
      ),
    );
    return response;
  };

  /** Our lists are comma-separated (`style: form, explode: false` in the document); openapi-fetch defaults to explode. */
  const clientFor = (key: string) =>
    createClient<paths>({
      baseUrl: service.origin,
      headers: { "X-API-Key": key },
      fetch: checkedFetch,
      querySerializer: { array: { style: "form", explode: false } },
    });

  beforeAll(async () => {
    service = await servePetstore();
  });
  afterAll(() => service?.close());

  it("walks create category → pet → stock → order → cancel → complete", async () => {
    const admin = createClient<AdminPaths>({
      baseUrl: service.origin,
      headers: { "X-API-Key": service.adminKey },
      fetch: checkedFetch,
    });
    const newKey = async (role: "staff" | "customer") => {
      const { data, response } = await admin.POST("/admin/api-keys", {
        body: { label: `${role} key`, role, plan: "business" },
      });
      expect(response.status).toBe(201);
      return data!.key;
    };
    const staff = clientFor(await newKey("staff"));
    const customer = clientFor(await newKey("customer"));

    const category = await staff.POST("/categories", { body: { name: "Dogs", description: "Good ones" } });
    expect(category.response.status).toBe(201);
    expect(category.response.headers.get("location")).toBe(`/categories/${category.data!.id}`);
    const categoryId = category.data!.id;

    const pet = await staff.POST("/pets", { body: { name: "Rex", categoryId } });
    expect(pet.data).toMatchObject({ id: expect.any(Number), name: "Rex", categoryId, status: "available" });
    const petId = pet.data!.id;

    const stock = await staff.PUT("/store/inventory/{petId}", { params: { path: { petId } }, body: { quantity: 2 } });
    expect(stock.data).toEqual({ petId, quantity: 2, status: "available" });

    const first = await customer.POST("/store/orders", { body: { petId, quantity: 1 } });
    const second = await customer.POST("/store/orders", { body: { petId, quantity: 1 } });
    expect(first.response.status).toBe(201);
    expect(second.data).toMatchObject({ petId, quantity: 1, complete: false });
    const held = await customer.GET("/pets", { params: { query: { ids: [petId], status: ["pending"] } } });
    expect(held.data?.map((p) => p.id)).toEqual([petId]);

    const cancelled = await customer.DELETE("/store/orders/{orderId}", {
      params: { path: { orderId: second.data!.id! } },
    });
    expect(cancelled.response.status).toBe(204);
    const afterCancel = await customer.GET("/store/inventory/{petId}", { params: { path: { petId } } });
    expect(afterCancel.data).toEqual({ petId, quantity: 1, status: "available" });

    const completed = await staff.PATCH("/store/orders/{orderId}", {
      params: { path: { orderId: first.data!.id! } },
      body: { complete: true },
    });
    expect(completed.data).toMatchObject({ id: first.data!.id, complete: true, shipDate: expect.stringMatching(/Z$/) });

    const mine = await customer.GET("/store/orders", { params: { query: { limit: 10 } } });
    // The cancelled order is gone; the completed one stays.
    expect(mine.data?.map((o) => [o.id, o.complete])).toEqual([[first.data!.id, true]]);

    // Errors are typed too: the Error schema with its code.
    const refused = await customer.POST("/pets", { body: { name: "Nope", categoryId } });
    expect(refused.response.status).toBe(403);
    expect(refused.error).toMatchObject({ code: "forbidden", status: 403 });
    const conflict = await staff.PATCH("/store/orders/{orderId}", {
      params: { path: { orderId: first.data!.id! } },
      body: { complete: true },
    });
    expect(conflict.error).toMatchObject({ code: "order_completed", status: 409 });

    expect(drift).toEqual([]);
  });

  it("has generated types that match the current document (else: npm run generate:client)", async () => {
    const fresh = await renderAllClientTypes();
    for (const which of ["public", "admin"] as const) {
      const committed = readFileSync(clientTypeFiles[which], "utf8");
      expect(committed === fresh[which], `${clientTypeFiles[which]} is stale: run npm run generate:client`).toBe(true);
    }
  });
});
