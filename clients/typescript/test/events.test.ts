import { describe, expect, it } from "vitest";
import {
  createPetstoreClient,
  isPetstoreError,
  PetstoreStreamEndedError,
  SseParser,
  type EventsOptions,
  type PetstoreStreamItem,
  type RetryWait,
} from "../src/index.ts";
import { errorBody, manualTime } from "./fake-fetch.ts";

/** One connection of the fake: an answer, or a stream of chunks that ends (or hangs, when `hang`) after them. */
type Connection = Response | Error | { chunks: string[]; hang?: boolean };

const encoder = new TextEncoder();

/**
 * A fake `GET /events` that answers each connection in turn, and records the requests and whether each stream was
 * cancelled. A stream errors when its request is aborted, as fetch's does.
 */
const fakeStream = (...connections: Connection[]) => {
  const requests: Request[] = [];
  const cancelled: boolean[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const index = requests.push(request) - 1;
    const connection = connections[index];
    if (connection === undefined) throw new Error(`the fake has no connection ${index + 1}`);
    if (connection instanceof Error) throw connection;
    if (connection instanceof Response) return connection;
    cancelled[index] = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of connection.chunks) controller.enqueue(encoder.encode(chunk));
        if (!connection.hang) controller.close();
        request.signal.addEventListener("abort", () => controller.error(request.signal.reason), { once: true });
      },
      cancel() {
        cancelled[index] = true;
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
  return { fetch, requests, cancelled };
};

const placed = (id: number) =>
  `id: ${id}\nevent: order.placed\ndata: ${JSON.stringify({
    type: "order.placed",
    timestamp: "2030-01-01T00:00:00.000Z",
    data: { id, petId: 1, quantity: 1, complete: false },
  })}\n\n`;
const end = (reason: string) => `event: end\ndata: {"reason":"${reason}"}\n\n`;

const streamOn = (fake: ReturnType<typeof fakeStream>, options: EventsOptions = {}) => {
  const time = manualTime();
  const waits: RetryWait[] = [];
  const client = createPetstoreClient({
    baseUrl: "http://petstore.test",
    apiKey: "staff-key",
    fetch: fake.fetch,
    retry: { now: time.now, sleep: time.sleep, random: () => 0.5 },
    onRetry: (wait) => waits.push(wait),
    logger: false,
  });
  return { iterator: client.events(options), time, waits };
};

/** Every item until the iterator stops, and how it stopped. */
const drain = async (iterator: AsyncGenerator<PetstoreStreamItem>) => {
  const items: PetstoreStreamItem[] = [];
  try {
    for await (const item of iterator) items.push(item);
    return { items, thrown: undefined };
  } catch (error) {
    return { items, thrown: error };
  }
};

const describeItem = (item: PetstoreStreamItem) =>
  item.kind === "event" ? `${item.id} ${item.type}` : `reset ${item.reason} ${item.lastEventId}→${item.from}`;

describe("the SSE parser", () => {
  it("reads messages cut anywhere, with CRLF, CR or LF, comments, multi-line data, id and retry", () => {
    const parser = new SseParser();
    const text =
      ": connected\r\nretry: 3000\r\n\r\nid: 1\revent: a\rdata: x\rdata: y\r\r: heartbeat\n\nid: 2\ndata:z\n\n";
    const messages = [];
    for (let i = 0; i < text.length; i += 3) messages.push(...parser.feed(text.slice(i, i + 3)));
    expect(messages).toEqual([
      { event: "a", data: "x\ny", id: "1" },
      { event: "message", data: "z", id: "2" },
    ]);
    expect(parser.retry).toBe(3000);
    expect(parser.lastEventId).toBe("2");
  });

  it("ignores a retry that is not a number and a message without data, and keeps the id across messages", () => {
    const parser = new SseParser("5");
    expect([...parser.feed("retry: soon\nevent: x\n\ndata: a\n\n")]).toEqual([
      { event: "message", data: "a", id: "5" },
    ]);
    expect(parser.retry).toBeUndefined();
  });
});

describe("events()", () => {
  it("yields the log's events, resumes after a dropped connection with Last-Event-ID after the `retry:` advice", async () => {
    const fake = fakeStream(
      { chunks: ["retry: 3000\n: connected\n\n", placed(1), placed(2).slice(0, 20), placed(2).slice(20)] },
      { chunks: [placed(3), end("key_revoked")] },
    );
    const { iterator, waits } = streamOn(fake);
    const { items, thrown } = await drain(iterator);
    expect(items.map(describeItem)).toEqual(["1 order.placed", "2 order.placed", "3 order.placed"]);
    expect(items[0]).toMatchObject({ kind: "event", type: "order.placed", data: { id: 1, petId: 1 } });
    expect(fake.requests.map((r) => r.headers.get("last-event-id"))).toEqual([null, "2"]);
    expect(fake.requests.map((r) => [r.url, r.headers.get("x-api-key"), r.headers.get("accept")])).toEqual([
      ["http://petstore.test/events", "staff-key", "text/event-stream"],
      ["http://petstore.test/events", "staff-key", "text/event-stream"],
    ]);
    expect(waits.map((w) => [w.delayMs, w.reason])).toEqual([[3000, "reconnect"]]);
    expect(thrown).toBeInstanceOf(PetstoreStreamEndedError);
    expect((thrown as PetstoreStreamEndedError).reason).toBe("key_revoked");
  });

  it("starts after the caller's lastEventId, and tells onOpen of each connection", async () => {
    const fake = fakeStream({ chunks: [placed(8)] }, { chunks: [end("forbidden")] });
    const opened: (string | undefined)[] = [];
    const { items, thrown } = await drain(
      streamOn(fake, { lastEventId: "7", onOpen: (open) => opened.push(open.lastEventId) }).iterator,
    );
    expect(opened).toEqual(["7", "8"]);
    expect(fake.requests.map((r) => r.headers.get("last-event-id"))).toEqual(["7", "8"]);
    expect(items.map(describeItem)).toEqual(["8 order.placed"]);
    expect((thrown as PetstoreStreamEndedError).reason).toBe("forbidden");
  });

  it("yields a reset, and resumes after its `from`, not after the id it sent", async () => {
    const reset = `event: reset\ndata: {"reason":"expired","lastEventId":"2","from":"40"}\n\n`;
    const fake = fakeStream(
      { chunks: [placed(2)] },
      { chunks: [reset, placed(41)] },
      { chunks: [reset.replace('"2"', '"41"').replace('"40"', '"50"')] },
      { chunks: [end("key_banned")] },
    );
    const { items, thrown } = await drain(streamOn(fake).iterator);
    expect(items.map(describeItem)).toEqual([
      "2 order.placed",
      "reset expired 2→40",
      "41 order.placed",
      "reset expired 41→50",
    ]);
    expect(fake.requests.map((r) => r.headers.get("last-event-id"))).toEqual([null, "2", "41", "50"]);
    expect((thrown as PetstoreStreamEndedError).reason).toBe("key_banned");
  });

  it("warns once per wait of over a second, a reconnection too", async () => {
    const fake = fakeStream(
      { chunks: [placed(1), end("shutting_down")] },
      errorBody(503, "service_unavailable", { "retry-after": "1" }),
      errorBody(429, "rate_limited", { "retry-after": "30" }),
      { chunks: [end("key_revoked")] },
    );
    const time = manualTime();
    const warnings: string[] = [];
    const client = createPetstoreClient({
      baseUrl: "http://petstore.test",
      fetch: fake.fetch,
      retry: { now: time.now, sleep: time.sleep },
      logger: { warn: (line) => warnings.push(line) },
    });
    await drain(client.events());
    expect(warnings).toEqual([
      "@petstore/client: GET http://petstore.test/events ended; reconnecting in 2 s",
      "@petstore/client: GET http://petstore.test/events answered 429; waiting 30 s (retry-after)",
    ]);
  });

  it("reconnects at once after max_lifetime, and after the retry advice after shutting_down", async () => {
    const fake = fakeStream(
      { chunks: ["retry: 1500\n\n", placed(1), end("max_lifetime")] },
      { chunks: [placed(2), end("shutting_down")] },
      { chunks: [end("key_revoked")] },
    );
    const { iterator, waits } = streamOn(fake);
    const { items } = await drain(iterator);
    expect(items.map(describeItem)).toEqual(["1 order.placed", "2 order.placed"]);
    expect(fake.requests.map((r) => r.headers.get("last-event-id"))).toEqual([null, "1", "2"]);
    expect(waits.map((w) => w.delayMs)).toEqual([1500]);
  });

  it("backs off on 429 (Retry-After), 503 and network failures, then streams", async () => {
    const fake = fakeStream(
      errorBody(429, "rate_limited", { "retry-after": "7" }),
      errorBody(503, "service_unavailable"),
      new TypeError("fetch failed"),
      { chunks: [placed(1), end("key_revoked")] },
    );
    const { iterator, waits } = streamOn(fake);
    const { items } = await drain(iterator);
    expect(items.map(describeItem)).toEqual(["1 order.placed"]);
    // Back-off with random() = 0.5: half of 500·2^(n-1).
    expect(waits.map((w) => [w.delayMs, w.reason, w.status])).toEqual([
      [7000, "retry-after", 429],
      [500, "backoff", 503],
      [1000, "backoff", undefined],
    ]);
  });

  it("gives up after maxRetries failed connections in a row, with the service's error", async () => {
    const unavailable = errorBody(503, "service_unavailable");
    const fake = fakeStream(unavailable, unavailable.clone(), unavailable.clone());
    const { thrown } = await drain(streamOn(fake, { maxRetries: 1 }).iterator);
    expect(fake.requests).toHaveLength(2);
    expect(isPetstoreError(thrown, "service_unavailable")).toBe(true);
  });

  it("throws a refusal (401, 403) at once", async () => {
    const fake = fakeStream(errorBody(403, "forbidden"));
    const { thrown } = await drain(streamOn(fake).iterator);
    expect(isPetstoreError(thrown, "forbidden")).toBe(true);
    expect(fake.requests).toHaveLength(1);
  });

  it("takes a connection that sends nothing for idleTimeout for dead, and reopens it", async () => {
    const fake = fakeStream({ chunks: [placed(1)], hang: true }, { chunks: [end("key_revoked")] });
    const { items } = await drain(streamOn(fake, { idleTimeout: 1_000 }).iterator);
    expect(items.map(describeItem)).toEqual(["1 order.placed"]);
    expect(fake.requests.map((r) => r.headers.get("last-event-id"))).toEqual([null, "1"]);
    expect(fake.requests[0]!.signal.aborted).toBe(true);
  });

  it("closes the connection when the loop stops early", async () => {
    const fake = fakeStream({ chunks: [placed(1), placed(2)], hang: true });
    for await (const item of streamOn(fake).iterator) {
      expect(describeItem(item)).toBe("1 order.placed");
      break;
    }
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.signal.aborted).toBe(true);
  });

  it("stops with the reason of the caller's signal", async () => {
    const controller = new AbortController();
    const fake = fakeStream({ chunks: [placed(1)], hang: true });
    const iterator = streamOn(fake, { signal: controller.signal }).iterator;
    expect(describeItem((await iterator.next()).value as PetstoreStreamItem)).toBe("1 order.placed");
    const next = iterator.next();
    controller.abort(new Error("the user left"));
    await expect(next).rejects.toThrow("the user left");
  });
});
