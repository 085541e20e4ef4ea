/**
 * node bench/events-stream.ts [--mongo] [--smoke]   (also run by `npm run bench`, on the memory store)
 *
 * GET /events through the whole service on a loopback socket, the relay running as `main` runs it:
 * - delay: orders placed one at a time at irregular intervals; for each, the time from its 201 to its
 *   `order.placed` message on an open stream (median, p95, max);
 * - throughput: 16 clients place orders as fast as they are answered for a few seconds; the events a single
 *   stream receives per second, from the first order to the last of their events.
 * Default settings (events polled every 250 ms while caught up; on MongoDB the relay looks every 500 ms).
 * With --mongo: MONGODB_URL, or the test engine started as the tests start it.
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { servePetstore } from "../test/support/serve-petstore.ts";

const out = (text: string) => process.stdout.write(`${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

interface Received {
  at: number;
  type: string;
  orderId: number | undefined;
}

export interface EventStreamFigures {
  store: string;
  delays: number[];
  orders: number;
  events: number;
  seconds: number;
  /** A second stream reading everything kept from the start (Last-Event-ID: 0): how fast a stream can go. */
  replayed: number;
  replaySeconds: number;
}

/** Reads a stream of server-sent events, noting when each arrives; `until` resolves once a matching one has. */
const follow = (body: ReadableStream<Uint8Array>) => {
  const received: Received[] = [];
  const waiters: { match: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  void (async () => {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (data === undefined) continue;
        const event = JSON.parse(data) as { type: string; data: { id?: number } };
        const r: Received = {
          at: performance.now(),
          type: event.type,
          orderId: event.type.startsWith("order.") ? event.data.id : undefined,
        };
        received.push(r);
        for (const waiter of waiters.splice(0)) {
          if (waiter.match(r)) waiter.resolve(r);
          else waiters.push(waiter);
        }
      }
    }
  })();
  const until = (match: (r: Received) => boolean) =>
    new Promise<Received>((resolve) => {
      const seen = received.find(match);
      if (seen) resolve(seen);
      else waiters.push({ match, resolve });
    });
  return { received, until };
};

export const measureEventStream = async (
  store: string,
  env: Record<string, string>,
  options: { orders: number; burstSeconds: number },
): Promise<EventStreamFigures> => {
  const served = await servePetstore({ PETSTORE_SEED_DEMO: "false", ...env });
  served.petstore.webhookWorker.start();
  const abort = new AbortController();
  try {
    const call = async (method: string, path: string, key: string, body?: unknown) => {
      const response = await fetch(`${served.origin}${path}`, {
        method,
        headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return {
        status: response.status,
        at: performance.now(),
        body: (await response.json()) as Record<string, number>,
      };
    };
    const limits = { perMinute: 1_000_000, perDay: 1_000_000_000 };
    const newKey = async (role: string) =>
      (await call("POST", "/admin/api-keys", served.adminKey, { label: role, role, plan: "enterprise", limits })).body
        .key as unknown as string;
    const staff = await newKey("staff");
    const customer = await newKey("customer");
    const category = await call("POST", "/categories", staff, { name: "Dogs" });
    const pet = await call("POST", "/pets", staff, { name: "Rex", categoryId: category.body.id });
    await call("PUT", `/store/inventory/${pet.body.id}`, staff, { quantity: 1_000_000 });

    const response = await fetch(`${served.origin}/events`, { headers: { "x-api-key": staff }, signal: abort.signal });
    if (response.status !== 200 || !response.body) throw new Error(`GET /events answered ${response.status}`);
    const stream = follow(response.body);
    await sleep(300);

    const delays: number[] = [];
    for (let i = 0; i < options.orders; i++) {
      const order = await call("POST", "/store/orders", customer, { petId: pet.body.id, quantity: 1 });
      if (order.status !== 201) throw new Error(`POST /store/orders answered ${order.status}`);
      const message = await stream.until((r) => r.type === "order.placed" && r.orderId === order.body.id);
      delays.push(message.at - order.at);
      await sleep(20 + Math.random() * 230);
    }

    const before = stream.received.length;
    const started = performance.now();
    const deadline = started + options.burstSeconds * 1000;
    const placed: number[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < deadline) {
          const order = await call("POST", "/store/orders", customer, { petId: pet.body.id, quantity: 1 });
          if (order.status === 201) placed.push(order.body.id!);
        }
      }),
    );
    const last = Math.max(...placed);
    await stream.until((r) => r.type === "order.placed" && r.orderId === last);
    // Each order records order.placed and inventory.changed; wait for the last of them too.
    await stream.until(() => stream.received.length - before >= placed.length * 2);
    const finished = stream.received.at(-1)!.at;

    const replayStarted = performance.now();
    const replay = await fetch(`${served.origin}/events`, {
      headers: { "x-api-key": staff, "last-event-id": "0" },
      signal: abort.signal,
    });
    const again = follow(replay.body!);
    // The memory log keeps the newest 10,000 events: the replay ends with the burst's last order either way.
    await again.until((r) => r.type === "order.placed" && r.orderId === last);
    const replaySeconds = (again.received.at(-1)!.at - replayStarted) / 1000;
    return {
      replayed: again.received.length,
      replaySeconds,
      store,
      delays: delays.sort((a, b) => a - b),
      orders: placed.length,
      events: stream.received.length - before,
      seconds: (finished - started) / 1000,
    };
  } finally {
    abort.abort();
    await served.close();
  }
};

export const eventStreamTable = (figures: EventStreamFigures[]): string[] => [
  "| store | 201 → event: orders | median | p95 | max | burst: orders | events on one stream | events/s | replay from 0: events | events/s |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ...figures.map(
    (f) =>
      `| ${f.store} | ${f.delays.length} | ${quantile(f.delays, 0.5).toFixed(0)} ms | ${quantile(f.delays, 0.95).toFixed(0)} ms | ${f.delays.at(-1)!.toFixed(0)} ms | ${f.orders} | ${f.events} | ${(f.events / f.seconds).toFixed(0)} | ${f.replayed} | ${(f.replayed / f.replaySeconds).toFixed(0)} |`,
  ),
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const smoke = process.argv.includes("--smoke");
  const options = smoke ? { orders: 3, burstSeconds: 0.5 } : { orders: 40, burstSeconds: 5 };
  const figures = [await measureEventStream("memory", {}, options)];
  if (process.argv.includes("--mongo")) {
    const { default: startTestEngine } = await import("../test/support/mongo-global-setup.ts");
    const provided: Record<string, string> = {};
    const stopEngine = process.env.MONGODB_URL
      ? undefined
      : await startTestEngine({ provide: (key: string, value: string) => void (provided[key] = value) } as never);
    const url = process.env.MONGODB_URL ?? provided.mongoUrl;
    if (!url) throw new Error(`no MongoDB for --mongo: ${provided.mongoUnavailable ?? "set MONGODB_URL"}`);
    try {
      const dbName = `bench_events_${randomBytes(4).toString("hex")}`;
      figures.push(
        await measureEventStream("MongoDB", { PETSTORE_STORE: "mongo", MONGODB_URL: url, MONGODB_DB: dbName }, options),
      );
    } finally {
      await (stopEngine as (() => Promise<void>) | undefined)?.();
    }
  }
  for (const line of eventStreamTable(figures)) out(line);
}
