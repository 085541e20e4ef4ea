import { afterEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import {
  createPetstoreClient,
  type ApiKey,
  type AttemptOutcome,
  type IssuedWebhook,
  type Me,
  type Order,
  type PetstoreClientOptions,
} from "../src/index.ts";
import { errorBody, fakeFetch, json, manualTime, type Answer } from "./fake-fetch.ts";

const pet = { id: 1, name: "Rex", categoryId: 1, status: "available" };

/** A fetch that answers only when told, and fails as fetch does when its request is aborted (a timeout). */
const hangingThen = (...answers: Answer[]) => {
  const sent: Request[] = [];
  const fetch = (request: Request): Promise<Response> => {
    sent.push(request);
    const answer = answers[sent.length - 1];
    if (answer instanceof Response) return Promise.resolve(answer);
    if (answer instanceof Error) return Promise.reject(answer);
    return new Promise((_, reject) => {
      const fail = () => reject(request.signal.reason);
      if (request.signal.aborted) fail();
      else request.signal.addEventListener("abort", fail, { once: true });
    });
  };
  return { fetch, sent };
};

const clientWith = (answers: Answer[], options: Partial<PetstoreClientOptions> = {}) => {
  const fake = fakeFetch(...answers);
  const time = manualTime();
  const warnings: string[] = [];
  const attempts: AttemptOutcome[] = [];
  const client = createPetstoreClient({
    baseUrl: "http://petstore.test",
    fetch: fake.fetch,
    retry: { now: time.now, sleep: time.sleep },
    logger: { warn: (line) => warnings.push(line) },
    onAttempt: (outcome) => attempts.push(outcome),
    ...options,
  });
  return { client, sent: fake.sent, time, warnings, attempts };
};

const limited = (seconds: number) => errorBody(429, "rate_limited", { "retry-after": String(seconds) });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("timeout", () => {
  it("abandons an attempt that takes longer than the client's timeout, with a TimeoutError", async () => {
    const fake = hangingThen();
    const client = createPetstoreClient({ baseUrl: "http://petstore.test", fetch: fake.fetch, timeout: 20 });
    await expect(client.GET("/pets", { maxRetries: 0 })).rejects.toMatchObject({ name: "TimeoutError" });
    expect(fake.sent).toHaveLength(1);
  });

  it("takes a call's own timeout over the client's, and retries a repeatable call that timed out", async () => {
    const fake = hangingThen(undefined as never, json(200, [pet]));
    const time = manualTime();
    const attempts: AttemptOutcome[] = [];
    const client = createPetstoreClient({
      baseUrl: "http://petstore.test",
      fetch: fake.fetch,
      timeout: 3_600_000,
      retry: { now: time.now, sleep: time.sleep },
      onAttempt: (outcome) => attempts.push(outcome),
    });
    const { data } = await client.GET("/pets", { timeout: 20 });
    expect(data).toEqual([pet]);
    expect(attempts.map((a) => [a.attempt, a.status, (a.error as Error | undefined)?.name, a.willRetry])).toEqual([
      [1, undefined, "TimeoutError", true],
      [2, 200, undefined, false],
    ]);
  });

  it("does not repeat a PATCH that timed out: it may have acted", async () => {
    const fake = hangingThen(undefined as never, json(200, {}));
    const client = createPetstoreClient({ baseUrl: "http://petstore.test", fetch: fake.fetch });
    const call = client.PATCH("/store/orders/{orderId}", {
      params: { path: { orderId: 1 } },
      body: { complete: true },
      timeout: 20,
    });
    await expect(call).rejects.toMatchObject({ name: "TimeoutError" });
    expect(fake.sent).toHaveLength(1);
  });
});

describe("maxRetries", () => {
  it("per client: attempts after the first", async () => {
    const { client, sent } = clientWith([limited(1)], { maxRetries: 1 });
    expect((await client.GET("/pets")).response.status).toBe(429);
    expect(sent).toHaveLength(2);
  });

  it("per call: 0 sends the call once, whatever the client says", async () => {
    const { client, sent } = clientWith([limited(1), json(200, [])], { maxRetries: 5 });
    expect((await client.GET("/pets", { maxRetries: 0 })).response.status).toBe(429);
    expect(sent).toHaveLength(1);
    expect((await client.GET("/pets")).response.status).toBe(200);
    expect(sent).toHaveLength(2);
  });

  it("per call, for paginate and conditionalUpdate too", async () => {
    const { client, sent } = clientWith([limited(1)]);
    await expect(client.paginate("/pets", { maxRetries: 0 }).next()).rejects.toThrow("rate_limited");
    expect(sent).toHaveLength(1);
    const update = client.conditionalUpdate("PUT", "/pets/{petId}", {
      params: { path: { petId: 1 } },
      update: (current) => ({ name: current.name, categoryId: current.categoryId }),
      maxRetries: 0,
    });
    await expect(update).rejects.toThrow("rate_limited");
    expect(sent).toHaveLength(2);
  });

  it("keeps its Idempotency-Key across the attempts of a POST with call options", async () => {
    const { client, sent } = clientWith([limited(1), json(201, pet)]);
    await client.POST("/pets", { body: { name: "Rex", categoryId: 1 }, timeout: 5_000, maxRetries: 1 });
    expect(sent).toHaveLength(2);
    expect(sent[0]!.headers.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]!.headers.get("idempotency-key")).toBe(sent[0]!.headers.get("idempotency-key"));
  });
});

describe("onAttempt and the logger", () => {
  it("onAttempt sees every attempt, the last one included", async () => {
    const { client, attempts } = clientWith([limited(1), errorBody(503, "service_unavailable"), json(201, pet)]);
    await client.POST("/pets", { body: { name: "Rex", categoryId: 1 } });
    expect(attempts.map((a) => [a.attempt, a.maxAttempts, a.method, a.status, a.willRetry])).toEqual([
      [1, 4, "POST", 429, true],
      [2, 4, "POST", 503, true],
      [3, 4, "POST", 201, false],
    ]);
  });

  it("warns once per wait of over a second, naming the call, the status, the wait and the attempt", async () => {
    const { client, warnings } = clientWith([limited(49), limited(1), json(200, [])]);
    await client.GET("/pets");
    expect(warnings).toEqual([
      "@petstore/client: GET http://petstore.test/pets answered 429; waiting 49 s (retry-after) before attempt 2 of 4",
    ]);
  });

  it("warns on the console by default, and not at all with logger: false", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const time = manualTime();
    const quiet = createPetstoreClient({
      baseUrl: "http://petstore.test",
      fetch: fakeFetch(limited(30), json(200, [])).fetch,
      retry: { now: time.now, sleep: time.sleep },
      logger: false,
    });
    await quiet.GET("/pets");
    expect(warn).not.toHaveBeenCalled();
    const loud = createPetstoreClient({
      baseUrl: "http://petstore.test",
      fetch: fakeFetch(limited(30), json(200, [])).fetch,
      retry: { now: time.now, sleep: time.sleep },
    });
    await loud.GET("/pets");
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toContain("waiting 30 s (retry-after)");
  });

  it("the top-level onRetry sees each wait", async () => {
    const waits: number[] = [];
    const { client } = clientWith([limited(2), json(200, [])], { onRetry: (wait) => waits.push(wait.delayMs) });
    await client.GET("/pets");
    expect(waits).toEqual([2000]);
  });
});

describe("typed /me and administration", () => {
  it("GET /me answers the calling key, typed", async () => {
    const me = {
      id: 3,
      label: "shop floor",
      role: "staff",
      plan: "pro",
      limits: { perMinute: 1000, perDay: 100000 },
      usage: { minute: 1, day: 1, minuteResetsAt: "2030-01-01T00:01:00Z", dayResetsAt: "2030-01-02T00:00:00Z" },
    };
    const { client, sent } = clientWith([json(200, me)], { apiKey: "secret" });
    const { data } = await client.GET("/me");
    expectTypeOf(data).toEqualTypeOf<Me | undefined>();
    expect(data?.role).toBe("staff");
    expect(sent[0]!.headers.get("x-api-key")).toBe("secret");
  });

  it("creates an API key and subscribes a webhook with typed bodies and answers", async () => {
    const { client, sent } = clientWith([
      json(201, { id: 4, key: "k", label: "alice" }),
      json(201, { id: 9, url: "https://example.test/hook", events: ["order.placed"], secret: "whsec_x" }),
      json(200, []),
    ]);
    await client.POST("/admin/api-keys", { body: { label: "alice", role: "customer", plan: "free" } });
    const hook = await client.POST("/admin/webhooks", {
      body: { url: "https://example.test/hook", events: ["order.placed"] },
    });
    expectTypeOf(hook.data).toEqualTypeOf<IssuedWebhook | undefined>();
    const keys = await client.GET("/admin/api-keys");
    expectTypeOf(keys.data).toEqualTypeOf<ApiKey[] | undefined>();
    expect(sent.map((s) => `${s.method} ${new URL(s.url).pathname}`)).toEqual([
      "POST /admin/api-keys",
      "POST /admin/webhooks",
      "GET /admin/api-keys",
    ]);
    expect(JSON.parse(sent[1]!.body)).toEqual({ url: "https://example.test/hook", events: ["order.placed"] });
    const typeOnly = () =>
      // @ts-expect-error: not an event type of the service
      client.POST("/admin/webhooks", { body: { url: "https://example.test/hook", events: ["order.lost"] } });
    expect(typeof typeOnly).toBe("function");
  });

  it("types what every answer has as required: an order's id, pet, quantity and state", () => {
    expectTypeOf<Order["id"]>().toEqualTypeOf<number>();
    expectTypeOf<Order["petId"]>().toEqualTypeOf<number>();
    expectTypeOf<Order["complete"]>().toEqualTypeOf<boolean>();
    expectTypeOf<Order["shipDate"]>().toEqualTypeOf<string | undefined>();
  });

  it("types the call options", () => {
    const { client } = clientWith([json(200, [])]);
    // Type checks only (npm run typecheck): never called.
    const typeOnly = () => [
      // @ts-expect-error: a timeout is a number of milliseconds
      client.GET("/pets", { timeout: "5s" }),
      // @ts-expect-error: GET /events is a stream, read with events()
      client.GET("/events"),
    ];
    expect(typeof typeOnly).toBe("function");
  });
});
