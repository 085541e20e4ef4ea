import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createPetstoreClient, retryAfterMs, type RetryOptions, type RetryWait } from "../src/index.ts";
import { errorBody, fakeFetch, json, manualTime, type Answer } from "./fake-fetch.ts";

const pet = { id: 1, name: "Rex", categoryId: 1, status: "available" };

/** A client on a fake service and a manual clock, recording each wait its hook saw. */
const clientOn = (answers: Answer[], retry: RetryOptions = {}) => {
  const fake = fakeFetch(...answers);
  const time = manualTime();
  const waits: RetryWait[] = [];
  const client = createPetstoreClient({
    baseUrl: "http://petstore.test",
    apiKey: "key",
    fetch: fake.fetch,
    retry: { now: time.now, sleep: time.sleep, onRetry: (wait) => waits.push(wait), ...retry },
    logger: false,
  });
  return { client, sent: fake.sent, waits, time };
};

const createRex = (client: ReturnType<typeof clientOn>["client"], headers?: Record<string, string>) =>
  client.POST("/pets", { body: { name: "Rex", categoryId: 1 }, ...(headers && { headers }) });

describe("back-off", () => {
  it("waits each Retry-After, then succeeds, with one Idempotency-Key on every attempt of a POST", async () => {
    const limited = errorBody(429, "rate_limited", { "retry-after": "1" });
    const { client, sent, waits } = clientOn([limited, limited, json(201, pet)]);
    const { data, response } = await createRex(client);
    expect(response.status).toBe(201);
    expect(data).toEqual(pet);
    expect(sent).toHaveLength(3);
    const key = sent[0]!.headers.get("idempotency-key");
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.map((s) => s.headers.get("idempotency-key"))).toEqual([key, key, key]);
    expect(sent.map((s) => s.body)).toEqual(Array(3).fill(JSON.stringify({ name: "Rex", categoryId: 1 })));
    expect(sent.map((s) => s.headers.get("x-api-key"))).toEqual(["key", "key", "key"]);
    expect(waits.map((w) => [w.attempt, w.delayMs, w.reason, w.status, w.idempotencyKey])).toEqual([
      [1, 1000, "retry-after", 429, key],
      [2, 1000, "retry-after", 429, key],
    ]);
  });

  it("reads Retry-After as an HTTP date too", () => {
    const now = Date.UTC(2030, 0, 1);
    expect(retryAfterMs(new Date(now + 7000).toUTCString(), now)).toBe(7000);
    expect(retryAfterMs(new Date(now - 7000).toUTCString(), now)).toBe(0);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it("without Retry-After, waits until X-RateLimit-Reset", async () => {
    const time = manualTime();
    const reset = String(time.now() / 1000 + 3);
    const { client, waits } = clientOn([
      errorBody(429, "rate_limited", { "x-ratelimit-reset": reset }),
      json(200, [pet]),
    ]);
    expect((await client.GET("/pets")).response.status).toBe(200);
    expect(waits.map((w) => [w.delayMs, w.reason])).toEqual([[3000, "rate-limit-reset"]]);
  });

  it("without either header, backs off exponentially with full jitter: a random share of base·2^(n-1), capped", async () => {
    const unavailable = errorBody(503, "service_unavailable");
    const shares = [0, 0.5, 0.999999, 0.5];
    const { client, waits } = clientOn([unavailable, unavailable, unavailable, unavailable, json(200, [])], {
      maxAttempts: 5,
      baseDelayMs: 100,
      maxDelayMs: 300,
      random: () => shares[waits.length]!,
    });
    expect((await client.GET("/pets")).response.status).toBe(200);
    // Ceilings 100, 200, 400 → 300 (capped), 800 → 300.
    expect(waits.map((w) => [w.delayMs, w.reason])).toEqual([
      [0, "backoff"],
      [100, "backoff"],
      [299, "backoff"],
      [150, "backoff"],
    ]);
  });

  it("keeps every jittered wait within [0, ceiling) whatever the random numbers", async () => {
    for (const share of [0, 0.25, 0.999999999]) {
      const unavailable = errorBody(503, "service_unavailable");
      const { client, waits } = clientOn([unavailable, unavailable, unavailable, json(200, [])], {
        baseDelayMs: 1000,
        random: () => share,
      });
      await client.GET("/pets");
      waits.forEach((w, i) => {
        expect(w.delayMs).toBeGreaterThanOrEqual(0);
        expect(w.delayMs).toBeLessThan(1000 * 2 ** i);
      });
    }
  });

  it("stops after maxAttempts and returns the last answer", async () => {
    const { client, sent, waits } = clientOn([errorBody(503, "service_unavailable", { "retry-after": "1" })], {
      maxAttempts: 3,
    });
    const { error, response } = await client.GET("/pets");
    expect(response.status).toBe(503);
    expect(error).toMatchObject({ code: "service_unavailable" });
    expect(sent).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it("does not start a wait that would end beyond maxElapsedMs", async () => {
    const { client, sent, time } = clientOn([errorBody(429, "rate_limited", { "retry-after": "10" })], {
      maxAttempts: 10,
      maxElapsedMs: 25_000,
    });
    const { response } = await client.GET("/pets");
    expect(response.status).toBe(429);
    expect(time.slept).toEqual([10_000, 10_000]);
    expect(sent).toHaveLength(3);
  });

  it("is cancelled by the client's signal during a wait, and sends nothing more", async () => {
    const controller = new AbortController();
    const fake = fakeFetch(errorBody(429, "rate_limited", { "retry-after": "30" }), json(200, []));
    const client = createPetstoreClient({
      baseUrl: "http://petstore.test",
      fetch: fake.fetch,
      signal: controller.signal,
      // The real timer: the abort must end a 30-second wait at once.
      retry: { onRetry: () => controller.abort(new Error("the user left")) },
    });
    await expect(client.GET("/pets")).rejects.toThrow("the user left");
    expect(fake.sent).toHaveLength(1);
  });

  it("is cancelled by a call's own signal, before a wait or during one", async () => {
    const before = new AbortController();
    before.abort();
    const { client, sent } = clientOn([json(200, [])]);
    await expect(client.GET("/pets", { signal: before.signal })).rejects.toThrow();
    expect(sent).toHaveLength(0);

    const during = new AbortController();
    const other = clientOn([errorBody(503, "service_unavailable"), json(200, [])], { onRetry: () => during.abort() });
    await expect(other.client.GET("/pets", { signal: during.signal })).rejects.toThrow();
    expect(other.sent).toHaveLength(1);
  });

  it("retries a network failure of a repeatable request, and throws the last one", async () => {
    const down = new TypeError("fetch failed");
    const recovered = clientOn([down, json(200, [pet])]);
    expect((await recovered.client.GET("/pets")).data).toEqual([pet]);
    expect(recovered.waits.map((w) => w.status)).toEqual([undefined]);

    const gone = clientOn([down], { maxAttempts: 2 });
    await expect(gone.client.GET("/pets")).rejects.toThrow("fetch failed");
    expect(gone.sent).toHaveLength(2);
  });

  it("with retry: false, sends once", async () => {
    const fake = fakeFetch(errorBody(429, "rate_limited", { "retry-after": "1" }), json(200, []));
    const client = createPetstoreClient({ baseUrl: "http://petstore.test", fetch: fake.fetch, retry: false });
    expect((await client.GET("/pets")).response.status).toBe(429);
    expect(fake.sent).toHaveLength(1);
  });
});

describe("safe retries", () => {
  it("gives each logical POST its own key, and keeps a key the caller gave", async () => {
    const { client, sent } = clientOn([json(201, pet)]);
    await createRex(client);
    await createRex(client);
    await createRex(client, { "Idempotency-Key": "mine" });
    const keys = sent.map((s) => s.headers.get("idempotency-key"));
    expect(new Set(keys).size).toBe(3);
    expect(keys[2]).toBe("mine");
  });

  it("takes keys from the idempotencyKey option", async () => {
    const fake = fakeFetch(json(201, pet));
    let n = 0;
    const client = createPetstoreClient({
      baseUrl: "http://petstore.test",
      fetch: fake.fetch,
      idempotencyKey: () => `key-${++n}`,
    });
    await createRex(client);
    await client.POST("/pets", { body: { name: "Rex", categoryId: 1 } });
    expect(fake.sent.map((s) => s.headers.get("idempotency-key"))).toEqual(["key-1", "key-2"]);
  });

  it("waits out a 409 idempotency_request_in_progress with its Retry-After, then gets the replay", async () => {
    const { client, sent, waits } = clientOn([
      errorBody(409, "idempotency_request_in_progress", { "retry-after": "2" }),
      json(201, pet),
    ]);
    expect((await createRex(client)).response.status).toBe(201);
    expect(waits.map((w) => [w.delayMs, w.status])).toEqual([[2000, 409]]);
    expect(sent[0]!.headers.get("idempotency-key")).toBe(sent[1]!.headers.get("idempotency-key"));
  });

  it("does not retry any other 409, a 4xx or a 500", async () => {
    for (const answer of [
      errorBody(409, "idempotency_key_reused"),
      errorBody(422, "unknown_category"),
      errorBody(500, "internal_error"),
    ]) {
      const { client, sent } = clientOn([answer, json(201, pet)]);
      expect((await createRex(client)).response.status).toBe(answer.status);
      expect(sent).toHaveLength(1);
    }
  });

  it("repeats any method after a 429, which the service answers before it acts", async () => {
    const { client, sent } = clientOn([errorBody(429, "rate_limited", { "retry-after": "1" }), json(200, {})]);
    const { response } = await client.PATCH("/store/orders/{orderId}", {
      params: { path: { orderId: 1 } },
      body: { complete: true },
    });
    expect(response.status).toBe(200);
    expect(sent.map((s) => s.method)).toEqual(["PATCH", "PATCH"]);
  });

  it("does not repeat a PATCH, which the service does not key, after a 503 or a network failure, even with a key", async () => {
    const withKey = clientOn([errorBody(503, "service_unavailable"), json(200, {})]);
    const patched = await withKey.client.PATCH("/store/orders/{orderId}", {
      params: { path: { orderId: 1 } },
      body: { complete: true },
      headers: { "Idempotency-Key": "mine" },
    });
    expect(patched.response.status).toBe(503);
    expect(withKey.sent).toHaveLength(1);
  });

  it("does not repeat a PATCH, which carries no Idempotency-Key, after a 503 or a network failure", async () => {
    for (const answer of [errorBody(503, "service_unavailable"), new TypeError("fetch failed")]) {
      const { client, sent } = clientOn([answer, json(200, {})]);
      const call = client.PATCH("/store/orders/{orderId}", {
        params: { path: { orderId: 1 } },
        body: { complete: true },
      });
      if (answer instanceof Error) await expect(call).rejects.toThrow("fetch failed");
      else expect((await call).response.status).toBe(503);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.headers.has("idempotency-key")).toBe(false);
    }
  });

  it("sends lists in the document's comma-separated form", async () => {
    const { client, sent } = clientOn([json(200, [])]);
    await client.GET("/pets", { params: { query: { ids: [1, 2], status: ["available", "pending"] } } });
    expect(new URL(sent[0]!.url).search).toBe("?ids=1,2&status=available,pending");
  });
});

describe("the Done-when check, on a real socket and the real timer", () => {
  it("meets two 429s with Retry-After: 1 and succeeds on the third attempt, one Idempotency-Key on all three", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      req.resume().on("end", () => {
        const limited = seen.length <= 2;
        res.writeHead(limited ? 429 : 201, {
          "content-type": "application/json",
          ...(limited ? { "retry-after": "1" } : {}),
        });
        res.end(JSON.stringify(limited ? { code: "rate_limited", message: "slow down", status: 429 } : pet));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const waits: RetryWait[] = [];
      const client = createPetstoreClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        apiKey: "key",
        retry: { onRetry: (wait) => waits.push(wait) },
      });
      const { data, response } = await createRex(client);
      expect(response.status).toBe(201);
      expect(data).toEqual(pet);
      expect(seen).toHaveLength(3);
      const keys = seen.map((h) => h["idempotency-key"]);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys).toEqual([keys[0], keys[0], keys[0]]);
      expect(waits.map((w) => [w.delayMs, w.reason])).toEqual([
        [1000, "retry-after"],
        [1000, "retry-after"],
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
