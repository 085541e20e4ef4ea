import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { expectError, expectValidationFailed } from "../support/http-assertions.ts";
import { usePetstore } from "../support/http-fixtures.ts";
import { servePetstore, type ServedPetstore } from "../support/serve-petstore.ts";
import { MEMORY_EVENT_LOG_LIMIT, memoryLogOrigin } from "../../adapters/memory/memory-event-log.ts";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { defaultEventStreamSettings } from "../../adapters/http/event-stream.ts";
import { KEY_CACHE_MS } from "../../core/access/cached-api-keys.ts";
import { loadConfig } from "../../bootstrap/config.ts";
import { startTestPetstore, type TestPetstore } from "../support/test-petstore.ts";

const env = { PETSTORE_EVENTS_POLL_MS: "10", PETSTORE_EVENTS_HEARTBEAT_SECONDS: "1" };

const placed = (n: number): DomainEvent => ({
  id: `evt_test_${String(n).padStart(4, "0")}`,
  type: "order.placed",
  occurredAt: new Date(Date.UTC(2026, 10, 21, 12, 0, n)),
  data: { id: n, petId: 1, quantity: 1, complete: false },
});

interface Message {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/** Reads server-sent events off a response body, block by block (a block ends with a blank line). */
class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** The next block, or undefined once the stream has ended. */
  async next(): Promise<Message | undefined> {
    for (;;) {
      const end = this.#buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const message: Message = {};
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) message.comment = line.slice(1).trim();
          else {
            const colon = line.indexOf(":");
            (message as Record<string, string>)[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
          }
        }
        return message;
      }
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** The next `n` events, passing over comments and the retry advice. */
  async events(n: number): Promise<Message[]> {
    const found: Message[] = [];
    while (found.length < n) {
      const message = await this.next();
      if (message === undefined) throw new Error(`the stream ended after ${found.length} of ${n} events`);
      if (message.data !== undefined) found.push(message);
    }
    return found;
  }

  /** Reads until the stream ends; answers the blocks read on the way. */
  async toEnd(): Promise<Message[]> {
    const rest: Message[] = [];
    for (let m = await this.next(); m !== undefined; m = await this.next()) rest.push(m);
    return rest;
  }

  cancel = () => this.#reader.cancel();
}

describe("GET /events", () => {
  const { t, keys } = usePetstore({ env });
  const open: SseReader[] = [];
  // Runs before the fixture closes the petstore: after-hooks run in the reverse order of their registration.
  afterEach(async () => {
    for (const reader of open.splice(0)) await reader.cancel().catch(() => undefined);
  });

  /** The id the n-th event appended from now on will have: the log's positions start where its store says. */
  const positions = async () => {
    const { end } = await t.stores.eventLog.bounds();
    return (n: number) => String(end + n);
  };

  const connect = async (key: string, lastEventId?: string) => {
    const headers = new Headers({ "x-api-key": key });
    if (lastEventId !== undefined) headers.set("last-event-id", lastEventId);
    const response = await t.petstore.app.fetch(new Request("http://petstore.test/events", { headers }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-length")).toBeNull();
    const reader = new SseReader(response.body!);
    open.push(reader);
    return reader;
  };

  it("streams the events appended to the shared log after it opened, id = position, event = type, data = the webhook body", async () => {
    const at = await positions();
    await t.stores.eventLog.append([placed(1)]);
    const stream = await connect(keys.staff);
    expect(await stream.next()).toEqual({ retry: "2000", comment: "connected" });

    await t.stores.eventLog.append([placed(2), placed(3)]);
    const [second, third] = await stream.events(2);

    expect(second).toEqual({
      id: at(2),
      event: "order.placed",
      data: JSON.stringify({ type: "order.placed", timestamp: "2026-11-21T12:00:02.000Z", data: placed(2).data }),
    });
    expect(third).toMatchObject({ id: at(3), event: "order.placed" });
  });

  it("resumes after Last-Event-ID without gaps or repeats; 0 replays every event kept", async () => {
    const at = await positions();
    await t.stores.eventLog.append([placed(1), placed(2), placed(3)]);

    expect((await (await connect(keys.staff, at(1))).events(2)).map((m) => m.id)).toEqual([at(2), at(3)]);
    expect((await (await connect(t.adminKey, "0")).events(3)).map((m) => m.id)).toEqual([at(1), at(2), at(3)]);
    const resumed = await connect(keys.staff, at(3));
    await t.stores.eventLog.append([placed(4)]);
    const [next] = await resumed.events(1);
    expect(next).toMatchObject({ id: at(4), event: "order.placed" });
  });

  it("beats while nothing happens: a comment line", async () => {
    const stream = await connect(keys.staff);
    let message = await stream.next();
    while (message?.comment !== "heartbeat") message = await stream.next();
    expect(message).toEqual({ comment: "heartbeat" });
  });

  it("ends when the instance starts draining with `end` shutting_down, and refuses new streams then with 503", async () => {
    const stream = await connect(keys.staff);
    await stream.next();

    t.petstore.beginDrain();

    const rest = await stream.toEnd();
    expect(rest.at(-1)).toEqual({ event: "end", data: '{"reason":"shutting_down"}' });
    expectError(await t.client.get("/events", { key: keys.staff }), 503, "service_unavailable");
  });

  it("is for staff and admin keys: 401 without a valid key, 403 for a customer; a bad Last-Event-ID is 400", async () => {
    expectError(await t.client.get("/events"), 401, "unauthorized");
    expectError(await t.client.get("/events", { key: keys.customer }), 403, "forbidden");
    expectValidationFailed(
      await t.client.get("/events", { key: keys.staff, headers: { "last-event-id": "evt_1" } }),
      "header.Last-Event-ID",
    );
    expectValidationFailed(
      await t.client.get("/events", { key: keys.staff, headers: { "last-event-id": "-1" } }),
      "header.Last-Event-ID",
    );
  });

  it("HEAD answers the headers and no stream", async () => {
    const res = await t.client.request("HEAD", "/events", { key: keys.staff });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.body).toBe("");
  });
});

/** A stream's body, read as server-sent events; the test's petstores and readers are closed after it. */
const streamsOf = () => {
  const petstores: TestPetstore[] = [];
  const readers: SseReader[] = [];
  afterEach(async () => {
    for (const reader of readers.splice(0)) await reader.cancel().catch(() => undefined);
    for (const petstore of petstores.splice(0)) await petstore.close();
  });
  return {
    start: async (options: Parameters<typeof startTestPetstore>[0] = {}) => {
      const petstore = await startTestPetstore({ ...options, env: { ...env, ...options.env } });
      petstores.push(petstore);
      return petstore;
    },
    open: async (t: TestPetstore, key: string, lastEventId?: string) => {
      const headers = new Headers({ "x-api-key": key });
      if (lastEventId !== undefined) headers.set("last-event-id", lastEventId);
      const response = await t.petstore.app.fetch(new Request("http://petstore.test/events", { headers }));
      expect(response.status).toBe(200);
      const reader = new SseReader(response.body!);
      readers.push(reader);
      expect(await reader.next()).toEqual({ retry: "2000", comment: "connected" });
      return reader;
    },
  };
};

const keyIdOf = async (t: TestPetstore, key: string): Promise<number> =>
  ((await t.client.get("/me", { key })).body as { id: number }).id;

describe("GET /events: resuming is never silent", () => {
  const streams = streamsOf();
  const reset = (reason: string, lastEventId: string, from: number) => ({
    event: "reset",
    data: JSON.stringify({ reason, lastEventId, from: String(from) }),
  });

  it("a Last-Event-ID beyond the log's end: `reset` ahead, from the end, and the next events follow", async () => {
    const t = await streams.start();
    await t.stores.eventLog.append([placed(1), placed(2)]);
    const { end } = await t.stores.eventLog.bounds();
    const beyond = String(end + 1000);

    const stream = await streams.open(t, await t.newKey("staff"), beyond);
    expect(await stream.next()).toEqual(reset("ahead", beyond, end));
    await t.stores.eventLog.append([placed(3), placed(4)]);
    expect((await stream.events(2)).map((m) => m.id)).toEqual([String(end + 1), String(end + 2)]);
  });

  it("the largest id there is (2^53 - 1) is resumed after as ahead; one above it is 400", async () => {
    const t = await streams.start();
    const { end } = await t.stores.eventLog.bounds();
    const stream = await streams.open(t, t.adminKey, "9007199254740991");
    expect(await stream.next()).toEqual(reset("ahead", "9007199254740991", end));
    for (const id of ["9007199254740992", "9007199254740993", "9999999999999999"]) {
      const res = await t.client.get("/events", { key: t.adminKey, headers: { "last-event-id": id } });
      expectValidationFailed(res, "header.Last-Event-ID");
    }
  });

  it("a Last-Event-ID older than the log keeps: `reset` expired, from just before the oldest kept", async () => {
    const t = await streams.start({ stores: createMemoryStores() });
    const events = Array.from({ length: MEMORY_EVENT_LOG_LIMIT + 5 }, (_, i) => placed(i + 1));
    const { origin } = await t.stores.eventLog.bounds();
    await t.stores.eventLog.append(events);
    const { oldest } = await t.stores.eventLog.bounds();
    expect(oldest).toBe(origin + 6);

    const stream = await streams.open(t, t.adminKey, String(origin + 2));
    expect(await stream.next()).toEqual(reset("expired", String(origin + 2), oldest - 1));
    expect((await stream.events(1))[0]).toMatchObject({ id: String(oldest) });
  });

  it("a Last-Event-ID of an earlier process (a memory store restarted): `reset` unknown_log, from its start", async () => {
    const first = await streams.start({ stores: createMemoryStores() });
    await first.stores.eventLog.append([placed(1), placed(2), placed(3)]);
    const lastSeen = (await first.stores.eventLog.bounds()).end;

    // The restarted process's log starts later: it cannot hand out the earlier one's positions again.
    const origin = memoryLogOrigin(Date.now() + 60_000);
    const restarted = await streams.start({ stores: createMemoryStores({ eventLogOrigin: origin }) });
    await restarted.stores.eventLog.append([placed(4), placed(5)]);

    const stream = await streams.open(restarted, restarted.adminKey, String(lastSeen));
    expect(await stream.next()).toEqual(reset("unknown_log", String(lastSeen), origin));
    expect((await stream.events(2)).map((m) => m.id)).toEqual([String(origin + 1), String(origin + 2)]);
  });

  it("memory stores started one after the other hand out positions no earlier one did", async () => {
    const earlier = createMemoryStores();
    await earlier.eventLog.append([placed(1), placed(2), placed(3)]);
    const later = createMemoryStores({ eventLogOrigin: memoryLogOrigin(Date.now() + 1) });
    expect((await later.eventLog.bounds()).origin).toBeGreaterThan((await earlier.eventLog.bounds()).end);
  });
});

describe("GET /events: access is checked while the stream is open", () => {
  const streams = streamsOf();
  const ended = async (stream: SseReader) => {
    const rest = await stream.toEnd();
    return rest.at(-1);
  };
  const end = (reason: string) => ({ event: "end", data: JSON.stringify({ reason }) });

  it("a revoked key's stream ends with `end` key_revoked and delivers nothing after the revocation", async () => {
    const t = await streams.start();
    const staff = await t.newKey("staff");
    const stream = await streams.open(t, staff);
    expect((await t.client.delete(`/admin/api-keys/${await keyIdOf(t, staff)}`, { key: t.adminKey })).status).toBe(204);
    await t.stores.eventLog.append([placed(1)]);

    const rest = await stream.toEnd();
    expect(rest.filter((m) => m.event === "order.placed")).toEqual([]);
    expect(rest.at(-1)).toEqual(end("key_revoked"));
  });

  it("a key demoted below staff: `end` forbidden, and no customer's order reaches it", async () => {
    const t = await streams.start();
    const staff = await t.newKey("staff");
    const stream = await streams.open(t, staff);
    const demoted = await t.client.patch(`/admin/api-keys/${await keyIdOf(t, staff)}`, {
      key: t.adminKey,
      body: { role: "customer" },
    });
    expect(demoted.status).toBe(200);
    await t.stores.eventLog.append([placed(1)]);

    const rest = await stream.toEnd();
    expect(rest.filter((m) => m.event === "order.placed")).toEqual([]);
    expect(rest.at(-1)).toEqual(end("forbidden"));
  });

  it("a key banned on another instance (in the store only): `end` key_banned once the key cache's bound has passed", async () => {
    const t = await streams.start();
    const staff = await t.newKey("staff");
    const stream = await streams.open(t, staff);
    const now = t.clock.now();
    await t.stores.apiKeys.ban(await keyIdOf(t, staff), {
      at: now,
      until: new Date(now.getTime() + 900_000),
      forgetBefore: new Date(0),
    });
    t.clock.advance(KEY_CACHE_MS);

    expect(await ended(stream)).toEqual(end("key_banned"));
  });

  it("a stream ends with `end` max_lifetime after PETSTORE_EVENTS_MAX_LIFETIME_SECONDS; the key opens a new one", async () => {
    const t = await streams.start({ env: { PETSTORE_EVENTS_MAX_LIFETIME_SECONDS: "1" } });
    const staff = await t.newKey("staff");
    const stream = await streams.open(t, staff);
    expect(await ended(stream)).toEqual(end("max_lifetime"));
    await streams.open(t, staff);
  });
});

describe("GET /events: open streams are capped", () => {
  const streams = streamsOf();
  const caps = { PETSTORE_EVENTS_MAX_STREAMS_PER_KEY: "2", PETSTORE_EVENTS_MAX_STREAMS_PER_ADDRESS: "3" };

  it("per key: one more is 429 rate_limited with Retry-After, until one of them closes", async () => {
    const t = await streams.start({ env: caps });
    const staff = await t.newKey("staff");
    const first = await streams.open(t, staff);
    await streams.open(t, staff);

    const refused = await t.client.get("/events", { key: staff });
    expectError(refused, 429, "rate_limited");
    expect(refused.body.message).toMatch(/this API key/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    await first.cancel();
    await streams.open(t, staff);
  });

  it("per client address, whatever the keys", async () => {
    const t = await streams.start({ env: caps });
    const [one, two] = [await t.newKey("staff"), await t.newKey("staff")];
    await streams.open(t, one);
    await streams.open(t, one);
    await streams.open(t, two);

    const refused = await t.client.get("/events", { key: two });
    expectError(refused, 429, "rate_limited");
    expect(refused.body.message).toMatch(/this client address/);
  });

  it("a stream that ends by itself frees its place", async () => {
    const t = await streams.start({ env: { ...caps, PETSTORE_EVENTS_MAX_LIFETIME_SECONDS: "1" } });
    const staff = await t.newKey("staff");
    const streamsOpen = [await streams.open(t, staff), await streams.open(t, staff)];
    for (const stream of streamsOpen) await stream.toEnd();
    await streams.open(t, staff);
    await streams.open(t, staff);
  });

  it("defaults to at most 100 a key", () => {
    expect(defaultEventStreamSettings.maxPerKey).toBeLessThanOrEqual(100);
    expect(loadConfig({}).events.maxPerKey).toBeLessThanOrEqual(100);
  });
});

describe("GET /events on a real socket", () => {
  let served: ServedPetstore;
  beforeEach(async () => {
    served = await servePetstore(env);
  });
  afterEach(() => served.close());

  it("writes each event as it comes, and a client that leaves frees its stream", async () => {
    const abort = new AbortController();
    const response = await fetch(`${served.origin}/events`, {
      headers: { "x-api-key": served.adminKey },
      signal: abort.signal,
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const stream = new SseReader(response.body!);
    expect(await stream.next()).toEqual({ retry: "2000", comment: "connected" });

    const { end } = await served.petstore.stores.eventLog.bounds();
    await served.petstore.stores.eventLog.append([placed(1)]);
    expect((await stream.events(1)).map((m) => m.id)).toEqual([String(end + 1)]);
    abort.abort();

    const again = await fetch(`${served.origin}/me`, { headers: { "x-api-key": served.adminKey } });
    expect(again.status).toBe(200);
  });
});
