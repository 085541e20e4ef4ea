/**
 * Network faults between a service and its MongoDB, the way Jepsen tests a client: two service processes on one
 * database of a FerretDB container of this file's own (test/support/dedicated-ferretdb.ts), one through the fault
 * proxy (test/chaos/fault-proxy.ts, answering as a replica set so the driver retries writes as in production), one
 * direct. Each round runs a bounded workload of orders and cancellations with keyed retries on both, injects one kind
 * of fault a few times on the proxied one, then waits for recovery (short grace) and checks every invariant
 * (test/support/round-check.ts): no unit lost, no pet stuck, one event per acknowledged change, and no 5xx but 503
 * with Retry-After. Bounded loops only; one assertion on how long something took, where the time is the requirement
 * itself: after 20 connection cuts in a row, the proxied instance is ready again within 5 s of a clean network.
 */
import { randomUUID } from "node:crypto";
import { MongoClient } from "mongodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  dedicatedFerretDbUnavailable,
  describeWithDedicatedFerretDb,
  startDedicatedFerretDb,
  type DedicatedFerretDb,
} from "../support/dedicated-ferretdb.ts";
import { loopbackGetJson } from "../support/invariants.ts";
import { FAST_RECOVERY_ENV } from "../support/kill-round.ts";
import { checkRound, type RoundCheck } from "../support/round-check.ts";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";
import { ADMIN_KEY } from "../support/test-petstore.ts";
import { FaultProxy, writeCommand, type CommandMatch, type Fault } from "./fault-proxy.ts";

const unavailable = await dedicatedFerretDbUnavailable();

/** Each request's bound: a hang fails the round as "cut off", never the run. */
const REQUEST_TIMEOUT_MS = 20_000;
/** The store's time-out on both instances; a held command is delivered after twice that, when the driver gave up. */
const STORE_TIMEOUT_MS = 1_500;
const HOLD_MS = 2 * STORE_TIMEOUT_MS;
/**
 * How long the invariants may take to hold after a round: recovery runs every 1 s on work older than 2 s, and the
 * relay every 500 ms; 60 s leaves room for a loaded machine, and only an unrecoverable state exceeds it.
 */
const RECOVERY_LIMIT_MS = 60_000;
const CLIENTS_PER_INSTANCE = 5;
/** After this many connection cuts in a row and then a clean network, the proxied instance is ready within READY_WITHIN_MS. */
const CUTS_IN_A_ROW = 20;
const READY_WITHIN_MS = 5_000;
const CLIENTS_UNDER_CUTS = 40;
/** The service's pool size (mongo-stores.ts). */
const FULL_POOL = 20;
const ORDERS_PER_CLIENT = 12;
const ATTEMPTS = 4;
const PETS = 3;
const STOCK = 2_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  retryAfter: string | null;
  body: any;
}
type Sent = Answer | "cut-off";

const send = async (
  origin: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  idempotencyKey?: string,
) => {
  try {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: {
        "x-api-key": key,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    return {
      status: res.status,
      retryAfter: res.headers.get("retry-after"),
      body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text,
    } satisfies Answer;
  } catch {
    return "cut-off" as const;
  }
};

/** Arms `fault` on the next command `match` accepts and waits until it fired, or until the workload ended. */
const armed = (fault: Fault, match: CommandMatch) => async (proxy: FaultProxy, workload: Promise<unknown>) => {
  await Promise.race([proxy.arm(fault, match), workload]);
  proxy.disarm();
};

const reserveOrRelease = writeCommand("pets");
const orderWrite = writeCommand("orders");

describeWithDedicatedFerretDb(
  "network faults between a service and MongoDB (fault proxy, two instances)",
  unavailable,
  () => {
    let db: DedicatedFerretDb;
    let proxy: FaultProxy;
    let mongo: MongoClient;
    const services: ServiceProcess[] = [];
    const dbName = `faults_${randomUUID().slice(0, 8)}`;
    let proxied: ServiceProcess;
    let direct: ServiceProcess;
    let staff: string;
    let customers: string[];
    const stockGiven = new Map<number, number>();
    const placed = new Set<number>();
    const cancelAttempted = new Set<number>();
    const cancelled = new Set<number>();
    let placedAnswers = 0;

    beforeAll(async () => {
      db = await startDedicatedFerretDb(unavailable);
      proxy = await FaultProxy.start({ target: new URL(db.url).host, replicaSet: "rs0" });
      mongo = new MongoClient(db.url, { serverSelectionTimeoutMS: 10_000 });
      const env = {
        PETSTORE_STORE: "mongo",
        MONGODB_DB: dbName,
        MONGODB_TIMEOUT_MS: String(STORE_TIMEOUT_MS),
        PETSTORE_SEED_DEMO: "false",
        PETSTORE_LOG_LEVEL: "debug",
        ...FAST_RECOVERY_ENV,
      };
      // The direct one first: it prepares the new database, which may take longer than a request may.
      direct = await startServiceProcess({ ...env, MONGODB_URL: db.url, PETSTORE_LOG_LEVEL: "info" });
      services.push(direct);
      proxied = await startServiceProcess({ ...env, MONGODB_URL: proxy.url() });
      services.push(proxied);
      const must = async (sent: Promise<Sent>, status: number) => {
        const res = await sent;
        if (res === "cut-off" || res.status !== status) throw new Error(`set-up: ${JSON.stringify(res)}`);
        return res.body;
      };
      const limits = { perMinute: 1_000_000, perDay: 100_000_000 };
      const newKey = async (role: string) =>
        (
          await must(
            send(direct.url, ADMIN_KEY, "POST", "/admin/api-keys", { label: role, role, plan: "enterprise", limits }),
            201,
          )
        ).key as string;
      staff = await newKey("staff");
      customers = await Promise.all(Array.from({ length: 4 }, () => newKey("customer")));
      const category = await must(send(direct.url, staff, "POST", "/categories", { name: "Faults" }), 201);
      for (let i = 0; i < PETS; i++) {
        const pet = await must(
          send(direct.url, staff, "POST", "/pets", { name: `Pet ${i}`, categoryId: category.id }),
          201,
        );
        await must(send(direct.url, staff, "PUT", `/store/inventory/${pet.id}`, { quantity: STOCK }), 200);
        stockGiven.set(pet.id as number, STOCK);
      }
    }, 240_000);

    afterAll(async () => {
      for (const service of services) service.child.kill("SIGKILL");
      await Promise.all(services.map((s) => s.exit));
      await proxy?.close();
      await mongo
        ?.db(dbName)
        .dropDatabase()
        .catch(() => undefined);
      await mongo?.close();
      await db?.remove();
    });

    /** Every answer that was a 5xx other than 503 with Retry-After, across the rounds. */
    const badAnswers: string[] = [];
    const note = (what: string, res: Sent) => {
      if (res !== "cut-off" && res.status >= 500 && !(res.status === 503 && /^[1-9]\d*$/.test(res.retryAfter ?? "")))
        badAnswers.push(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
      return res;
    };

    /** A request sent again with the same key (and body) while it answers 503 or nothing, up to ATTEMPTS times. */
    const withRetries = async (what: string, attempt: () => Promise<Sent>): Promise<Sent> => {
      let res: Sent = "cut-off";
      for (let n = 0; n < ATTEMPTS; n++) {
        res = note(what, await attempt());
        if (res !== "cut-off" && res.status !== 503) return res;
        await sleep(100);
      }
      return res;
    };

    /**
     * One client: orders with an Idempotency-Key, about half of them cancelled unless `cancelling` is false; every try
     * bounded; `orders` at most, while `goOn()`.
     */
    const client = async (
      origin: string,
      n: number,
      { orders = ORDERS_PER_CLIENT, goOn = (): boolean => true, cancelling = true } = {},
    ) => {
      const key = customers[n % customers.length]!;
      const petIds = [...stockGiven.keys()];
      for (let i = 0; i < orders && goOn(); i++) {
        const body = { petId: petIds[(n + i) % petIds.length], quantity: 1 + (i % 2) };
        const idempotencyKey = randomUUID();
        const order = await withRetries("POST /store/orders", () =>
          send(origin, key, "POST", "/store/orders", body, idempotencyKey),
        );
        if (order === "cut-off" || order.status !== 201) continue;
        // One per Idempotency-Key: two keys answered with one id would show as more answers than ids.
        placedAnswers++;
        placed.add(order.body.id as number);
        if (!cancelling || i % 2 === 0) continue;
        cancelAttempted.add(order.body.id as number);
        const cancel = await withRetries("DELETE /store/orders/{id}", () =>
          send(origin, key, "DELETE", `/store/orders/${order.body.id}`),
        );
        if (cancel !== "cut-off" && cancel.status === 204) cancelled.add(order.body.id as number);
      }
    };

    /** Polls the invariants until they hold; the last check's result (problems left when they never did). */
    const recovered = async (): Promise<RoundCheck> => {
      const get = loopbackGetJson(direct.url, staff, REQUEST_TIMEOUT_MS);
      const ack = { stockGiven, placed, placedAnswers, cancelAttempted, cancelled };
      const started = performance.now();
      let result = await checkRound(get, mongo.db(dbName), ack);
      while (result.problems.length > 0 && performance.now() - started < RECOVERY_LIMIT_MS) {
        await sleep(500);
        result = await checkRound(get, mongo.db(dbName), ack);
      }
      return result;
    };

    const times = 3;
    /** One kind of fault each, injected `times` times on the proxied instance while the workload runs. */
    const rounds: { name: string; inject: (proxy: FaultProxy, workload: Promise<unknown>) => Promise<void> }[] = [
      {
        name: "a reserve or release held, delivered after the driver gave up and retried",
        inject: armed({ kind: "hold", ms: HOLD_MS }, reserveOrRelease),
      },
      { name: "an order write held and delivered late", inject: armed({ kind: "hold", ms: HOLD_MS }, orderWrite) },
      {
        name: "a reserve or release applied, its answer cut (FIN)",
        inject: armed({ kind: "cut", when: "after", how: "fin" }, reserveOrRelease),
      },
      {
        name: "an order write applied, its answer cut (RST)",
        inject: armed({ kind: "cut", when: "after", how: "rst" }, orderWrite),
      },
      {
        name: "a reserve or release cut before it applied (RST)",
        inject: armed({ kind: "cut", when: "before", how: "rst" }, reserveOrRelease),
      },
      {
        name: "every connection closed with a FIN",
        inject: async (p, workload) => {
          await Promise.race([p.arm({ kind: "pass" }, reserveOrRelease), workload]);
          p.disarm();
          p.cutAll("fin");
        },
      },
      {
        name: "every connection reset (RST)",
        inject: async (p, workload) => {
          await Promise.race([p.arm({ kind: "pass" }, orderWrite), workload]);
          p.disarm();
          p.cutAll("rst");
        },
      },
    ];

    for (const [index, round] of rounds.entries()) {
      it(`round ${index + 1}: ${round.name}, ${times} times under load; then every invariant holds`, async () => {
        const before = { ...proxy.stats };
        const workload = Promise.all(
          Array.from({ length: 2 * CLIENTS_PER_INSTANCE }, (_, n) => client(n % 2 ? direct.url : proxied.url, n)),
        );
        for (let n = 0; n < times; n++) await round.inject(proxy, workload);
        await workload;
        // Late copies land before the check starts: the proxy holds nothing any more (each hold is HOLD_MS long).
        for (let n = 0; n < 100 && proxy.held > 0; n++) await sleep(100);
        expect(proxy.held).toBe(0);
        const result = await recovered();
        const summary = `placed ${placed.size}, cancelled ${cancelled.size}; proxy: ${proxy.stats.commands - before.commands} commands, ${proxy.stats.deliveredLate - before.deliveredLate} delivered late (${proxy.stats.deliveredAfterClientLeft - before.deliveredAfterClientLeft} after the client left), ${proxy.stats.retriedWrites - before.retriedWrites} writes retried by the driver`;
        console.info(`${round.name}: ${summary}`);
        expect(result.problems, summary).toEqual([]);
        expect(result.unitsMissing, summary).toBe(0);
        expect(result.eventsLost, summary).toBe(0);
        // On a failure, what the services logged as errors says why.
        const errors = services.flatMap((service) => service.output.filter((line) => line.includes('"level":"error"')));
        expect(badAnswers, errors.slice(-5).join("\n")).toEqual([]);
        // The round hit the proxied instance while it served.
        expect(proxy.stats.commands).toBeGreaterThan(before.commands);
      }, 240_000);
    }

    /** The readiness probe's status, or 0 when it did not answer in time. */
    const readiness = async (origin: string): Promise<number> => {
      try {
        const res = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        await res.body?.cancel();
        return res.status;
      } catch {
        return 0;
      }
    };

    it(`${CUTS_IN_A_ROW} FIN cuts in a row under load, then a clean network: /readyz is 200 again within ${READY_WITHIN_MS} ms`, async () => {
      let cutting = true;
      const outputBefore = proxied.output.length;
      // As in issue 50's runs: 40 clients on the proxied instance, ordering and cancelling until the network is clean.
      const workload = Promise.all(
        Array.from({ length: CLIENTS_UNDER_CUTS }, (_, n) =>
          client(proxied.url, n, { orders: 1_000, goOn: () => cutting }),
        ),
      );
      const duringCuts: number[] = [];
      const prober = (async () => {
        while (cutting) {
          duringCuts.push(await readiness(proxied.url));
          await sleep(100);
        }
      })();
      let connectionsCut = 0;
      for (let cut = 0; cut < CUTS_IN_A_ROW; cut++) {
        // Each cut waits until the instance has opened a pool's worth of connections again, at most 2 s: many sockets
        // closing at once under load, as in issue 50's runs, not the one connection of an idle instance.
        const opened = proxy.stats.connections;
        for (let n = 0; n < 40 && proxy.stats.connections - opened < FULL_POOL; n++) await sleep(50);
        connectionsCut += proxy.cutAll("fin");
      }
      proxy.disarm();
      const clean = performance.now();
      cutting = false;
      let status = 0;
      // Bounded: a broken instance ends the loop at the request bound, and the assertion below fails.
      while (status !== 200 && performance.now() - clean < READY_WITHIN_MS + REQUEST_TIMEOUT_MS) {
        status = await readiness(proxied.url);
        if (status !== 200) await sleep(50);
      }
      const readyAfterMs = Math.round(performance.now() - clean);
      await prober;
      await workload;
      const driverLines = proxied.output.slice(outputBefore).filter((line) => line.includes('"mongodb '));
      const lastLines = driverLines.slice(-15);
      const count = (message: string) => driverLines.filter((line) => line.includes(`"message":"${message}"`)).length;
      console.info(
        `/readyz 200 ${readyAfterMs} ms after a clean network (${connectionsCut} connections cut; ` +
          `${count("mongodb write on a closed socket failed")} writes on a closed socket failed, ` +
          `${count("mongodb connection stuck: reconnecting")} reconnections after a wedge; ` +
          `${duringCuts.filter((s) => s === 503).length} of ${duringCuts.length} probes during the cuts not ready)`,
      );
      // The cuts hit the instance: connections closed, and its driver saw them. Whether a probe caught it not ready is
      // a matter of timing (it recovers within a fraction of a second), so it is reported, not required.
      expect(connectionsCut).toBeGreaterThan(0);
      expect(count("mongodb connection closed") + count("mongodb pool cleared")).toBeGreaterThan(0);
      expect(status, lastLines.join("\n")).toBe(200);
      // The requirement itself (issue 50): measured from the moment the network is clean.
      expect(readyAfterMs, lastLines.join("\n")).toBeLessThanOrEqual(READY_WITHIN_MS);
      // Only successes and 503 with Retry-After meanwhile.
      const errors = services.flatMap((service) => service.output.filter((line) => line.includes('"level":"error"')));
      expect(badAnswers, errors.slice(-5).join("\n")).toEqual([]);
      // Then every invariant, as after the rounds above: no unit lost, nothing left unfinished, one event per change.
      const result = await recovered();
      expect(result.problems).toEqual([]);
      expect(result.unitsMissing).toBe(0);
      expect(result.eventsLost).toBe(0);
    }, 240_000);

    it("the proxied instance logged the driver's pool and monitoring events at debug level", () => {
      const messages = new Set(
        proxied.output.filter((line) => line.includes('"mongodb ')).map((line) => JSON.parse(line).message as string),
      );
      expect(messages).toContain("mongodb pool cleared");
      expect(messages).toContain("mongodb connection closed");
      // The driver retried writes through the proxy's replica-set handshake, as against a production replica set.
      expect(proxy.stats.retriedWrites).toBeGreaterThan(0);
    });
  },
);
