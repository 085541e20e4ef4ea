import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../bootstrap/config.ts";
import { createLogger } from "../../bootstrap/logger.ts";
import { composePetstore, type Petstore } from "../../bootstrap/petstore.ts";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { ADMIN_KEY, TestClient } from "../support/test-petstore.ts";

/** A petstore whose log lines are kept, so tests can read them. */
const start = async (env: Record<string, string> = {}, stores = createMemoryStores()) => {
  const lines: Array<Record<string, unknown>> = [];
  const config = loadConfig({ PETSTORE_ADMIN_KEY: ADMIN_KEY, PETSTORE_SEED_DEMO: "false", ...env });
  const petstore = await composePetstore(
    config,
    createLogger("info", (line) => lines.push(JSON.parse(line))),
    {
      clock: new ManualClock(),
      stores,
    },
  );
  return { petstore, client: new TestClient(petstore.app), lines };
};

describe("defaults that protect", () => {
  let petstore: Petstore | undefined;
  afterEach(() => petstore?.close());

  it("gives every response a request id, keeps a plain one from the client and replaces an odd one", async () => {
    const s = await start();
    petstore = s.petstore;
    const generated = await s.client.get("/healthz");
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await s.client.get("/pets", { key: ADMIN_KEY, headers: { "x-request-id": "trace-42" } });
    expect(kept.headers.get("x-request-id")).toBe("trace-42");
    const odd = await s.client.get("/nowhere", { headers: { "x-request-id": "<script>" } });
    expect(odd.status).toBe(404);
    expect(odd.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("writes one JSON access-log line per request with its id and key id, and never the key itself", async () => {
    const s = await start();
    petstore = s.petstore;
    await s.client.get("/pets", { key: ADMIN_KEY, headers: { "x-request-id": "log-me" } });
    await s.client.get("/pets", { key: "pk_wrong_secret_value", headers: { "x-request-id": "bad-key" } });
    const access = s.lines.filter((l) => l.message === "request");
    expect(access.find((l) => l.requestId === "log-me")).toMatchObject({
      method: "GET",
      path: "/pets",
      status: 200,
      keyId: 1,
    });
    expect(access.find((l) => l.requestId === "bad-key")).toMatchObject({ status: 401 });
    const everything = JSON.stringify(s.lines);
    expect(everything).not.toContain(ADMIN_KEY);
    expect(everything).not.toContain("pk_wrong_secret_value");
  });

  it("logs an unexpected failure with the request id, and tells the client nothing of it", async () => {
    const stores = createMemoryStores();
    stores.categories.list = async () => {
      throw new Error("secret internals: db at 10.0.0.7");
    };
    const s = await start({}, stores);
    petstore = s.petstore;
    const res = await s.client.get("/categories", { key: ADMIN_KEY, headers: { "x-request-id": "boom-1" } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: "internal_error", message: "Something went wrong on our side", status: 500 });
    const logged = s.lines.find((l) => l.message === "unhandled error");
    expect(logged).toMatchObject({
      level: "error",
      requestId: "boom-1",
      error: { message: "secret internals: db at 10.0.0.7" },
    });
  });

  it("sends nosniff everywhere and forbids caching of errors, admin responses and /me", async () => {
    const s = await start();
    petstore = s.petstore;
    const pets = await s.client.get("/pets", { key: ADMIN_KEY });
    expect(pets.headers.get("x-content-type-options")).toBe("nosniff");
    expect(pets.headers.get("cache-control")).toBeNull();
    const error = await s.client.get("/pets/999", { key: ADMIN_KEY });
    expect(error.headers.get("cache-control")).toBe("no-store");
    const admin = await s.client.get("/admin/api-keys", { key: ADMIN_KEY });
    expect(admin.status).toBe(200);
    expect(admin.headers.get("cache-control")).toBe("no-store");
    const me = await s.client.get("/me", { key: ADMIN_KEY });
    expect(me.status).toBe(200);
    expect(me.headers.get("cache-control")).toBe("no-store");
  });

  it("sends no CORS headers unless origins are configured", async () => {
    const s = await start();
    petstore = s.petstore;
    const res = await s.client.get("/pets", { key: ADMIN_KEY, headers: { origin: "https://shop.example" } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await s.client.request("OPTIONS", "/pets", {
      headers: { origin: "https://shop.example", "access-control-request-method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers preflights and allows the configured origins only", async () => {
    const s = await start({ PETSTORE_CORS_ORIGINS: "https://shop.example, http://localhost:3000" });
    petstore = s.petstore;
    const preflight = await s.client.request("OPTIONS", "/store/orders", {
      headers: { origin: "https://shop.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("X-API-Key");

    const allowed = await s.client.get("/pets", { key: ADMIN_KEY, headers: { origin: "http://localhost:3000" } });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
    expect(allowed.headers.get("access-control-expose-headers")).toContain("X-RateLimit-Remaining");
    expect(allowed.headers.get("vary")).toContain("Origin");

    const other = await s.client.get("/pets", { key: ADMIN_KEY, headers: { origin: "https://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("refuses a bad CORS setting at start-up, naming the variable", () => {
    expect(() => loadConfig({ PETSTORE_CORS_ORIGINS: "not a url" })).toThrow(/^Invalid setting PETSTORE_CORS_ORIGINS/);
  });
});
