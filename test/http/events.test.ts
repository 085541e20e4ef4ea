import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { expectError, expectValidationFailed } from "../support/http-assertions.ts";
import { makeKeys, type Keys } from "../support/http-fixtures.ts";
import { servePetstore, type ServedPetstore } from "../support/serve-petstore.ts";
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
  let t: TestPetstore;
  let keys: Keys;
  const open: SseReader[] = [];
  beforeEach(async () => {
    t = await startTestPetstore({ env });
    keys = await makeKeys(t);
  });
  afterEach(async () => {
    for (const reader of open.splice(0)) await reader.cancel().catch(() => undefined);
    await t.close();
  });

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
    await t.stores.eventLog.append([placed(1)]);
    const stream = await connect(keys.staff);
    expect(await stream.next()).toEqual({ retry: "2000", comment: "connected" });

    await t.stores.eventLog.append([placed(2), placed(3)]);
    const [second, third] = await stream.events(2);

    expect(second).toEqual({
      id: "2",
      event: "order.placed",
      data: JSON.stringify({ type: "order.placed", timestamp: "2026-11-21T12:00:02.000Z", data: placed(2).data }),
    });
    expect(third).toMatchObject({ id: "3", event: "order.placed" });
  });

  it("resumes after Last-Event-ID without gaps or repeats; 0 replays every event kept", async () => {
    await t.stores.eventLog.append([placed(1), placed(2), placed(3)]);

    expect((await (await connect(keys.staff, "1")).events(2)).map((m) => m.id)).toEqual(["2", "3"]);
    expect((await (await connect(t.adminKey, "0")).events(3)).map((m) => m.id)).toEqual(["1", "2", "3"]);
    const resumed = await connect(keys.staff, "3");
    await t.stores.eventLog.append([placed(4)]);
    expect((await resumed.events(1)).map((m) => m.id)).toEqual(["4"]);
  });

  it("beats while nothing happens: a comment line", async () => {
    const stream = await connect(keys.staff);
    let message = await stream.next();
    while (message?.comment !== "heartbeat") message = await stream.next();
    expect(message).toEqual({ comment: "heartbeat" });
  });

  it("ends when the instance starts draining, and refuses new streams then with 503", async () => {
    const stream = await connect(keys.staff);
    await stream.next();

    t.petstore.beginDrain();

    const rest = await stream.toEnd();
    expect(rest.at(-1)?.comment).toMatch(/stopping/);
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

    await served.petstore.stores.eventLog.append([placed(1)]);
    expect((await stream.events(1)).map((m) => m.id)).toEqual(["1"]);
    abort.abort();

    const again = await fetch(`${served.origin}/me`, { headers: { "x-api-key": served.adminKey } });
    expect(again.status).toBe(200);
  });
});
