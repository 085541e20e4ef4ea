import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import { expectError } from "../support/http-assertions.ts";
import { startTestPetstore, type TestPetstore } from "../support/test-petstore.ts";

/** The store behind keys and limits stops answering (the MongoDB adapters then throw service_unavailable). */
describe("admission while the store is down", () => {
  let t: TestPetstore;
  afterEach(() => t.close());

  const withFailingLimiter = async () => {
    const stores = createMemoryStores();
    let down = false;
    const consume = stores.limiter.consume.bind(stores.limiter);
    stores.limiter.consume = (...args) =>
      down ? Promise.reject(new DomainError("service_unavailable", "The store is not answering", 5)) : consume(...args);
    t = await startTestPetstore({ stores });
    return { goDown: () => (down = true) };
  };

  it("answers keyed requests 503 with Retry-After, and headers that agree with it", async () => {
    const { goDown } = await withFailingLimiter();
    goDown();
    const res = await t.client.get("/pets", { key: t.adminKey });
    expectError(res, 503, "service_unavailable");
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBe(Math.ceil(t.clock.now().getTime() / 1000) + 5);
  });

  it("still serves the public OpenAPI document, with the same cautious headers", async () => {
    const { goDown } = await withFailingLimiter();
    goDown();
    const res = await t.client.get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.0.3");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
  });
});
