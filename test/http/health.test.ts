import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { countStatuses, expectError } from "../support/http-assertions.ts";
import { startTestPetstore, type TestPetstore, type TestResponse } from "../support/test-petstore.ts";
import { free } from "../support/limits.ts";

const expectNoRateLimitHeaders = (res: TestResponse) => {
  for (const name of [
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "ratelimit",
    "ratelimit-policy",
  ]) {
    expect(res.headers.get(name), name).toBeNull();
  }
};

describe("health", () => {
  let t: TestPetstore;
  afterEach(() => t.close());

  it("GET /healthz and GET /readyz answer 200 without a key and without rate-limit headers", async () => {
    t = await startTestPetstore();
    const health = await t.client.get("/healthz");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok" });
    expectNoRateLimitHeaders(health);
    const ready = await t.client.get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ready" });
    expectNoRateLimitHeaders(ready);
    expect((await t.client.get("/healthz", { key: "an unknown key" })).status).toBe(200);
  });

  it("are never limited, even for an address that is", async () => {
    t = await startTestPetstore();
    const refused = await Promise.all(Array.from({ length: free.perMinute + 1 }, () => t.client.get("/pets")));
    expect(countStatuses(refused)).toEqual({ 401: free.perMinute, 429: 1 });
    const probes = await Promise.all(
      Array.from({ length: 150 }, (_, i) => t.client.get(i % 2 ? "/healthz" : "/readyz")),
    );
    expect(countStatuses(probes)).toEqual({ 200: 150 });
    probes.forEach(expectNoRateLimitHeaders);
  });

  it("are not limited for a banned key either", async () => {
    t = await startTestPetstore({ env: { PETSTORE_BAN_STRIKES: "1" } });
    const key = await t.newKey("customer", "enterprise", { perMinute: 1, perDay: 10 });
    await t.client.get("/pets", { key });
    await t.client.get("/pets", { key });
    expectError(await t.client.get("/pets", { key }), 403, "api_key_banned");
    expect((await t.client.get("/healthz", { key })).status).toBe(200);
    expect((await t.client.get("/readyz", { key })).status).toBe(200);
  });

  it("GET /readyz answers 503 service_unavailable when the store does not answer; /healthz stays 200", async () => {
    const stores = createMemoryStores();
    stores.health.ping = async () => {
      throw new Error("MongoNetworkError: connect ECONNREFUSED 10.0.0.7:27017");
    };
    t = await startTestPetstore({ stores });
    const res = await t.client.get("/readyz");
    expectError(res, 503, "service_unavailable");
    expect(JSON.stringify(res.body)).not.toMatch(/Mongo|ECONNREFUSED|10\.0\.0\.7/);
    expectNoRateLimitHeaders(res);
    expect(res.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect((await t.client.get("/healthz")).status).toBe(200);
  });

  it("GET /readyz answers 503 when the store hangs, within its time-out", async () => {
    const stores = createMemoryStores();
    stores.health.ping = () => new Promise(() => {});
    t = await startTestPetstore({ stores });
    // A store that never answers would leave the probe hanging (the test's own time-out): answering 503 is the proof.
    expectError(await t.client.get("/readyz"), 503, "service_unavailable");
  });
});
