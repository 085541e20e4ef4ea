/**
 * The service while its MongoDB store goes away and comes back, on a FerretDB container of this file's own
 * (test/support/dedicated-ferretdb.ts): the run's shared server is never stopped. Every wait here is bounded.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectMongoStores } from "../../adapters/mongo/mongo-stores.ts";
import {
  dedicatedFerretDbUnavailable,
  describeWithDedicatedFerretDb,
  startDedicatedFerretDb,
  type DedicatedFerretDb,
} from "../support/dedicated-ferretdb.ts";
import { expectError, expectRateLimitHeaders } from "../support/http-assertions.ts";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";
import { ADMIN_KEY, startTestPetstore, type TestPetstore, type TestResponse } from "../support/test-petstore.ts";

const unavailable = await dedicatedFerretDbUnavailable();

/**
 * Bound of every single answer while the store is down or frozen. It tells a hang from an answer, not a speed: the
 * store's time-out is 1 s, and a loaded CI machine can add seconds to it.
 */
const ANSWER_BOUND_MS = 15_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const databaseName = (prefix: string) => `${prefix}_${randomBytes(6).toString("hex")}`;

/** The promise's value, or "no answer" once `ms` have passed (so a hang fails an assertion, not the whole run). */
const within = <T>(promise: Promise<T>, ms: number): Promise<T | "no answer"> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<"no answer">((resolve) => (timer = setTimeout(() => resolve("no answer"), ms))),
  ]);
};

/** Polls until `ready` holds, at most `withinMs`; each attempt is bounded too. */
const eventually = async (ready: () => Promise<boolean>, withinMs: number, what: string): Promise<number> => {
  const started = performance.now();
  while (performance.now() - started < withinMs) {
    if ((await within(ready(), ANSWER_BOUND_MS)) === true) return performance.now() - started;
    await sleep(100);
  }
  throw new Error(`${what} did not happen within ${withinMs} ms`);
};

interface Answer {
  operation: string;
  startedAt: number;
  ms: number;
  response: TestResponse | "no answer";
}

interface Operation {
  name: string;
  /** The status when the store answers. */
  ok: number;
  send(): Promise<TestResponse>;
}

/** `workers` loops, each sending the operations in turn until stopped; every answer is recorded with its time. */
const startLoad = (operations: Operation[], workers: number) => {
  let running = true;
  const answers: Answer[] = [];
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; running; i += 1) {
      const operation = operations[i % operations.length]!;
      const startedAt = performance.now();
      // Twice the bound: a hang is recorded as one, and the loop goes on.
      const response = await within(operation.send(), 2 * ANSWER_BOUND_MS);
      answers.push({ operation: operation.name, startedAt, ms: performance.now() - startedAt, response });
    }
  });
  return {
    answers,
    /** Resolves once `count` answers to requests sent after `since` are in. */
    async answersSince(since: number, count: number, withinMs: number): Promise<Answer[]> {
      await eventually(
        async () => answers.filter((a) => a.startedAt >= since).length >= count,
        withinMs,
        `${count} answers`,
      );
      return answers.filter((a) => a.startedAt >= since);
    },
    async stop(): Promise<void> {
      running = false;
      await Promise.all(loops);
    },
  };
};

/** What every answer given while the store does not answer must be: quick, 503, Retry-After, the Error body. */
const expectUnavailableAnswer = (answer: Answer): void => {
  expect(answer.response, `${answer.operation} hung`).not.toBe("no answer");
  const res = answer.response as TestResponse;
  expect(answer.ms, `${answer.operation} took ${Math.round(answer.ms)} ms`).toBeLessThan(ANSWER_BOUND_MS);
  expectError(res, 503, "service_unavailable");
  expect(res.headers.get("retry-after"), answer.operation).toMatch(/^[1-9]\d*$/);
  expect(JSON.stringify(res.body)).not.toMatch(/Mongo|ECONN|ETIMEDOUT|127\.0\.0\.1|socket|topology/i);
  // PRODUCT.md §3: every response under the limited paths carries them, 503 included.
  expectRateLimitHeaders(res);
};

/** A petstore on its own database of `db`, the store's every wait bounded at 1 s, with keys and a stocked pet. */
const startOn = async (db: DedicatedFerretDb) => {
  const dbName = databaseName("outage");
  // Preparing a new database creates its collections and indexes, which can take longer than 1 s on a loaded machine:
  // done first with the default bound, so the 1 s bound below applies to requests (start-up then finds it all there).
  await (await connectMongoStores({ url: db.url, dbName })).close();
  const t = await startTestPetstore({ stores: await connectMongoStores({ url: db.url, dbName, timeoutMs: 1_000 }) });
  // The manual clock stands still: limits far above what the load sends in one minute.
  const limits = { perMinute: 1_000_000, perDay: 100_000_000 };
  const staff = await t.newKey("staff", "enterprise", limits);
  const customer = await t.newKey("customer", "enterprise", limits);
  const category = await t.client.post("/categories", { key: staff, body: { name: "Cats" } });
  const pet = await t.client.post("/pets", { key: staff, body: { name: "Tom", categoryId: category.body.id } });
  const stock = 100_000;
  expect(
    (await t.client.put(`/store/inventory/${pet.body.id}`, { key: staff, body: { quantity: stock } })).status,
  ).toBe(200);
  let n = 0;
  const operations: Operation[] = [
    { name: "GET /pets", ok: 200, send: () => t.client.get("/pets?limit=5", { key: customer }) },
    {
      name: "POST /categories",
      ok: 201,
      send: () => t.client.post("/categories", { key: staff, body: { name: `Kind ${(n += 1)}` } }),
    },
    {
      name: "POST /store/orders",
      ok: 201,
      send: () => t.client.post("/store/orders", { key: customer, body: { petId: pet.body.id, quantity: 1 } }),
    },
    {
      name: "GET /store/inventory/:id",
      ok: 200,
      send: () => t.client.get(`/store/inventory/${pet.body.id}`, { key: staff }),
    },
  ];
  /** Units in stock plus units in orders: never more than were stocked (no unit sold twice). */
  const unitsAccountedFor = async (): Promise<number> => {
    const inventory = await t.client.get(`/store/inventory/${pet.body.id}`, { key: staff });
    let ordered = 0;
    for (let cursor: string | undefined = "/store/orders?limit=100"; cursor;) {
      const page: TestResponse = await t.client.get(cursor, { key: staff });
      expect(page.status).toBe(200);
      ordered += (page.body as Array<{ quantity: number }>).reduce((sum, order) => sum + order.quantity, 0);
      cursor = /^<([^>]+)>;\s*rel="next"$/.exec(page.headers.get("link") ?? "")?.[1];
    }
    return inventory.body.quantity + ordered;
  };
  return { t, staff, customer, petId: pet.body.id as number, stock, operations, unitsAccountedFor };
};

describeWithDedicatedFerretDb("the service when its MongoDB store goes away and comes back", unavailable, () => {
  let db: DedicatedFerretDb;
  let t: TestPetstore | undefined;
  beforeAll(async () => {
    db = await startDedicatedFerretDb(unavailable);
  });
  afterEach(async () => {
    await db?.ensureRunning();
    await t?.close();
    t = undefined;
  });
  afterAll(async () => {
    await db?.remove();
  });

  // Stops and starts a database container: about 9 s in CI, so above the default 20 s only on a slow machine.
  it(
    "stopped under load: every request answers 503 + Retry-After within the bound, /readyz 503, /healthz 200; started again: serves again without a restart",
    { timeout: 60_000 },
    async () => {
      const s = await startOn(db);
      t = s.t;
      const load = startLoad(s.operations, 6);
      try {
        const before = await load.answersSince(0, 40, 15_000);
        for (const answer of before)
          expect((answer.response as TestResponse).status, answer.operation).toBe(
            s.operations.find((o) => o.name === answer.operation)!.ok,
          );

        await db.stop();
        const stopped = performance.now();
        // Enough answers that the slowest operation's 503 is among them (each may take up to the bound).
        const down = await load.answersSince(stopped, 24, 30_000);
        const readyz = await within(s.t.client.get("/readyz"), ANSWER_BOUND_MS);
        const healthz = await within(s.t.client.get("/healthz"), ANSWER_BOUND_MS);
        await load.stop();

        // Sent after the server was gone: 503, each within the bound.
        for (const answer of down) expectUnavailableAnswer(answer);
        // Every answer of the run, those in flight while it went away included: in time, and either a success or 503.
        for (const answer of load.answers) {
          expect(answer.response, `${answer.operation} hung`).not.toBe("no answer");
          const res = answer.response as TestResponse;
          if (res.status === 503) expectUnavailableAnswer(answer);
          else {
            expect(answer.ms, answer.operation).toBeLessThan(ANSWER_BOUND_MS);
            expect(res.status, answer.operation).toBe(s.operations.find((o) => o.name === answer.operation)!.ok);
          }
        }
        expect(new Set(down.map((a) => a.operation))).toEqual(new Set(s.operations.map((o) => o.name)));
        expect(readyz).not.toBe("no answer");
        expectError(readyz as TestResponse, 503, "service_unavailable");
        expect((readyz as TestResponse).headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
        expect(healthz).not.toBe("no answer");
        expect((healthz as TestResponse).status).toBe(200);
      } finally {
        await load.stop();
      }

      await db.start();
      // The same petstore, the same client: the driver finds the server again.
      await eventually(
        async () => (await s.t.client.get("/readyz")).status === 200,
        15_000,
        "/readyz 200 after the restart",
      );
      await eventually(
        async () => (await s.t.client.get("/pets", { key: s.customer })).status === 200,
        15_000,
        "GET /pets 200 after the restart",
      );
      expect((await s.t.client.post("/categories", { key: s.staff, body: { name: "After the outage" } })).status).toBe(
        201,
      );
      expect(
        (await s.t.client.post("/store/orders", { key: s.customer, body: { petId: s.petId, quantity: 1 } })).status,
      ).toBe(201);
      // Stock is never oversold, outage or not. (An order whose reservation went through but whose answer was lost may
      // leave units reserved without an order: fewer accounted for, never more.)
      expect(await s.unitsAccountedFor()).toBeLessThanOrEqual(s.stock);
    },
  );

  // Crashes the engine's PostgreSQL twice under load, as the OOM killer or an operator does: one backend killed (the
  // postmaster ends every session and recovers: "terminating connection", "the database system is in recovery
  // mode"), then an immediate restart ("the database system is starting up", "not yet accepting connections").
  // Nothing here waits on a time: each step waits for its own outcome, each wait bounded.
  it(
    "its engine crashing and recovering under load: never a 500, every refusal a 503 with Retry-After; then it serves again",
    { timeout: 180_000 },
    async () => {
      const s = await startOn(db);
      t = s.t;
      const servesAgain = (what: string) =>
        eventually(
          async () =>
            (await s.t.client.post("/store/orders", { key: s.customer, body: { petId: s.petId, quantity: 1 } }))
              .status === 201,
          60_000,
          what,
        );
      const load = startLoad(s.operations, 6);
      try {
        await load.answersSince(0, 20, 30_000);
        const backend = await db.exec(["sh", "-c", "pkill -KILL -o -f '^postgres: postgres postgres' && echo killed"]);
        expect(backend.output, "a PostgreSQL backend to kill").toContain("killed");
        await servesAgain("an order placed after the backend was killed");
        const pgCtl = "/usr/lib/postgresql/18/bin/pg_ctl";
        const restart = await db.exec(
          [
            pgCtl,
            "-D",
            "/var/lib/postgresql/data",
            "-m",
            "immediate",
            "-w",
            "-t",
            "90",
            "-l",
            "/tmp/pg-restart.log",
            "restart",
          ],
          "postgres",
        );
        expect(restart.exitCode, restart.output).toBe(0);
        await servesAgain("an order placed after the immediate restart");
        await load.answersSince(performance.now(), 12, 30_000);
      } finally {
        await load.stop();
      }

      const refused: Answer[] = [];
      for (const answer of load.answers) {
        expect(answer.response, `${answer.operation} hung`).not.toBe("no answer");
        const res = answer.response as TestResponse;
        if (res.status === s.operations.find((o) => o.name === answer.operation)!.ok) continue;
        refused.push(answer);
        expect(res.status, `${answer.operation}: ${JSON.stringify(res.body)}`).not.toBe(500);
        expectError(res, 503, "service_unavailable");
        expect(res.headers.get("retry-after"), answer.operation).toMatch(/^[1-9]\d*$/);
      }
      // The crashes were seen: sessions were cut under the load.
      expect(refused.length).toBeGreaterThan(0);
    },
  );

  it(
    "frozen (accepts connections, never answers): requests still answer 503 within the bound; thawed: serves again",
    { timeout: 60_000 },
    async () => {
      const s = await startOn(db);
      t = s.t;
      const load = startLoad(s.operations, 4);
      try {
        await load.answersSince(0, 20, 15_000);
        await db.freeze();
        const frozen = performance.now();
        const hung = await load.answersSince(frozen, 8, 30_000);
        const readyz = await within(s.t.client.get("/readyz"), ANSWER_BOUND_MS);
        expect((await within(s.t.client.get("/healthz"), ANSWER_BOUND_MS)) as TestResponse).toMatchObject({
          status: 200,
        });
        await load.stop();
        for (const answer of hung) expectUnavailableAnswer(answer);
        expect(readyz).not.toBe("no answer");
        expectError(readyz as TestResponse, 503, "service_unavailable");
      } finally {
        await db.unfreeze();
        await load.stop();
      }
      await eventually(
        async () => (await s.t.client.get("/pets", { key: s.customer })).status === 200,
        15_000,
        "GET /pets 200 after the thaw",
      );
      expect(
        (await s.t.client.post("/store/orders", { key: s.customer, body: { petId: s.petId, quantity: 1 } })).status,
      ).toBe(201);
      expect((await s.t.client.get("/readyz")).status).toBe(200);
    },
  );

  describe("a real service process (PETSTORE_STORE=mongo)", () => {
    const started: ServiceProcess[] = [];
    const start = async (dbName: string) => {
      const service = await startServiceProcess({ PETSTORE_STORE: "mongo", MONGODB_URL: db.url, MONGODB_DB: dbName });
      started.push(service);
      return service;
    };
    afterEach(() => {
      for (const service of started.splice(0)) service.child.kill("SIGKILL");
    });

    it("keeps every acknowledged write across a service restart (ids never reused) and a database crash", async () => {
      const dbName = databaseName("restart");
      const first = await start(dbName);
      const call = async (service: ServiceProcess, method: string, path: string, key: string, body?: unknown) => {
        const res = await fetch(`${service.url}${path}`, {
          method,
          headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        return { status: res.status, body: (await res.json()) as any };
      };

      const customerKey = await call(first, "POST", "/admin/api-keys", ADMIN_KEY, {
        label: "buyer",
        role: "customer",
        plan: "business",
      });
      expect(customerKey.status).toBe(201);
      const customer = customerKey.body.key as string;
      const category = await call(first, "POST", "/categories", ADMIN_KEY, { name: "Dogs" });
      const pet = await call(first, "POST", "/pets", ADMIN_KEY, { name: "Rex", categoryId: category.body.id });
      const stock = await call(first, "PUT", `/store/inventory/${pet.body.id}`, ADMIN_KEY, { quantity: 5 });
      const order = await call(first, "POST", "/store/orders", customer, { petId: pet.body.id, quantity: 2 });
      expect([category.status, pet.status, stock.status, order.status]).toEqual([201, 201, 200, 201]);

      first.child.kill("SIGTERM");
      expect(await first.exit).toEqual({ code: 0, signal: null });

      const readBack = async (service: ServiceProcess, inStock: number) => {
        expect(await call(service, "GET", `/categories/${category.body.id}`, ADMIN_KEY)).toEqual({
          status: 200,
          body: category.body,
        });
        expect(await call(service, "GET", `/pets/${pet.body.id}`, ADMIN_KEY)).toMatchObject({
          status: 200,
          body: pet.body,
        });
        expect(await call(service, "GET", `/store/inventory/${pet.body.id}`, ADMIN_KEY)).toMatchObject({
          status: 200,
          body: { quantity: inStock },
        });
        expect(await call(service, "GET", `/store/orders/${order.body.id}`, customer)).toEqual({
          status: 200,
          body: order.body,
        });
      };

      const second = await start(dbName);
      await readBack(second, 3);
      // Ids go on past the first instance's (the rest of its blocks is skipped, never reused); the customer key made
      // there still works.
      const nextCategory = await call(second, "POST", "/categories", ADMIN_KEY, { name: "Birds" });
      const nextOrder = await call(second, "POST", "/store/orders", customer, { petId: pet.body.id, quantity: 1 });
      expect([nextCategory.status, nextOrder.status]).toEqual([201, 201]);
      expect(nextCategory.body.id).toBeGreaterThan(category.body.id);
      expect(nextOrder.body.id).toBeGreaterThan(order.body.id);

      // The database itself is killed (no shutdown) and started again: the same running service reads it all back.
      await db.kill();
      await db.start();
      await eventually(
        async () => (await fetch(`${second.url}/readyz`, { signal: AbortSignal.timeout(10_000) })).status === 200,
        20_000,
        "/readyz 200 after the crash",
      );
      await readBack(second, 2);
      expect(await call(second, "GET", `/categories/${nextCategory.body.id}`, ADMIN_KEY)).toEqual({
        status: 200,
        body: nextCategory.body,
      });
      expect(await call(second, "GET", `/store/orders/${nextOrder.body.id}`, customer)).toEqual({
        status: 200,
        body: nextOrder.body,
      });
    }, 90_000);
  });
});

describe("start-up with PETSTORE_STORE=mongo and a MongoDB that does not answer", () => {
  const closedLoopbackPort = () =>
    new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });

  /** Runs bootstrap/main.ts to its exit (at most 20 s); every line it printed. */
  const runMain = async (env: Record<string, string>) => {
    const child = spawn(process.execPath, ["bootstrap/main.ts"], {
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", PETSTORE_STORE: "mongo", MONGODB_DB: "petstore", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const started = performance.now();
    const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const [code] = (await once(child, "exit")) as [number | null];
    clearTimeout(killer);
    return { code, ms: performance.now() - started, stdout, stderr };
  };

  it("exits 1 within seconds with one line naming MongoDB, where, and why; no stack, no credentials", async () => {
    const port = await closedLoopbackPort();
    const [plain, withCredentials] = await Promise.all([
      runMain({ MONGODB_URL: `mongodb://127.0.0.1:${port}/?directConnection=true` }),
      runMain({
        MONGODB_URL: `mongodb://petstore:s3cret-pw@127.0.0.1:${port}/petstore?authSource=admin`,
        MONGODB_TIMEOUT_MS: "700",
      }),
    ]);
    for (const [run, bound] of [
      [plain, 2000],
      [withCredentials, 700],
    ] as const) {
      expect(run.code, run.stderr).toBe(1);
      // The store's bound is MONGODB_TIMEOUT_MS (default 2 s); the process adds its own start.
      expect(run.ms).toBeLessThan(15_000);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(
        new RegExp(
          `^Cannot start: MongoDB at 127\\.0\\.0\\.1:${port} \\(database petstore\\) did not answer within ${bound} ms: .*ECONNREFUSED.* \\(check MONGODB_URL\\)\\n$`,
        ),
      );
      expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(run.stderr).not.toMatch(/^\s+at |\.ts:\d|node_modules/m);
    }
    expect(withCredentials.stderr).not.toMatch(/s3cret|petstore:/);
  });
});
