import { randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { MongoClient } from "mongodb";
import { loopbackGetJson } from "./invariants.ts";
import { checkRound } from "./round-check.ts";
import { startServiceProcess, type ServiceProcess } from "./service-process.ts";
import { ADMIN_KEY } from "./test-petstore.ts";

/**
 * One kill -9 round: one or two real service processes on one MongoDB database, `clients` concurrent clients
 * placing and cancelling orders on a few pets (spread over the instances), then the disruption: SIGKILL of one
 * instance at a random moment and its restart on the same database, or a pause of the engine's container longer
 * than the recovery grace. Then the invariants (test/support/invariants.ts) are polled until they hold, both through
 * the API and on the stored documents and the event log (every 201 and 204 must have its event). Loopback only;
 * every request is bounded in time, every client in count.
 */

export interface KillRoundOptions {
  mongoUrl: string;
  clients?: number;
  pets?: number;
  stockPerPet?: number;
  /** Requests each client sends at most. */
  requestsPerClient?: number;
  /** The kill comes at a uniformly random moment in this window after the first cancellation was acknowledged. */
  killWindowMs?: [number, number];
  /** How long after the restart the invariants may take to hold before the round counts as failed. */
  recoveryLimitMs?: number;
  /** Extra environment for both processes (e.g. the recovery settings). */
  env?: Record<string, string>;
  /** Service processes on the database (default 1); with two, one of them is killed and the other serves on. */
  instances?: 1 | 2;
  /** Instead of a kill: `docker pause` this container (the engine's) for `ms`, then unpause it. */
  pauseEngine?: { container: string; ms: number };
  random?: () => number;
}

export interface KillRoundResult {
  killedAfterMs: number;
  /** What the clients saw before the kill: 201 orders, 204 cancellations, other answers, requests cut off. */
  placed: number;
  cancelled: number;
  refused: number;
  cutOff: number;
  /** From spawning the new process until it listens. */
  startMs: number;
  /** From the new process listening until every check passed; undefined when they never did within the limit. */
  recoveredMs: number | undefined;
  /** From spawning the new process until every check passed (startMs + recoveredMs). */
  sinceSpawnMs: number | undefined;
  /** What the services logged as recovered ("recovered interrupted writes"), summed per kind. */
  recovered: Record<string, number>;
  /** Problems found at the first check after the restart. */
  problemsAtRestart: number;
  /** Problems left at the end (empty when recovered). */
  problems: string[];
  /** Units given minus units in stock and in orders, summed over the pets, at the restart and at the end. */
  unitsMissingAtRestart: number;
  unitsMissing: number;
  /** Last lines of both processes' output when something failed. */
  output: string;
  /** Acknowledged changes (201 orders, 204 cancellations) whose event was not in the log at the end. */
  eventsLost: number;
}

/** Settings recovery reads (docs/consistency.md, Recovery): small values so a test sees recovery within seconds. */
export const FAST_RECOVERY_ENV = { PETSTORE_RECOVERY_INTERVAL_SECONDS: "1", PETSTORE_RECOVERY_GRACE_SECONDS: "2" };

// Generous: on a loaded machine a cut-off client stops for good, and a round whose clients all stop proves nothing.
const REQUEST_TIMEOUT_MS = 20_000;
const POLL_MS = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Sent = { status: number; body: any } | "cut-off";

const send = async (origin: string, key: string, method: string, path: string, body?: unknown): Promise<Sent> => {
  try {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text,
    };
  } catch {
    return "cut-off";
  }
};

const must = async (sent: Promise<Sent>, status: number, what: string): Promise<any> => {
  const res = await sent;
  if (res === "cut-off" || res.status !== status)
    throw new Error(`${what}: ${res === "cut-off" ? "no answer" : `${res.status} ${JSON.stringify(res.body)}`}`);
  return res.body;
};

/** Sums the counts of the service's "recovered interrupted writes" log lines. */
const recoveryLogOf = (output: readonly string[]): Record<string, number> => {
  const sums: Record<string, number> = {};
  for (const line of output) {
    if (!line.includes('"recovered interrupted writes"')) continue;
    for (const [kind, n] of Object.entries(JSON.parse(line) as Record<string, unknown>)) {
      if (typeof n === "number" && n > 0) sums[kind] = (sums[kind] ?? 0) + n;
    }
  }
  return sums;
};

const run = promisify(execFile);

export const killRound = async (options: KillRoundOptions): Promise<KillRoundResult> => {
  const {
    mongoUrl,
    clients = 50,
    pets: petCount = 3,
    stockPerPet = 60,
    requestsPerClient = 200,
    recoveryLimitMs = 20_000,
    instances = 1,
  } = options;
  const [killFrom, killTo] = options.killWindowMs ?? [0, 2_000];
  const random = options.random ?? Math.random;
  const dbName = `kill9_${randomBytes(6).toString("hex")}`;
  const env = {
    PETSTORE_STORE: "mongo",
    MONGODB_URL: mongoUrl,
    MONGODB_DB: dbName,
    PETSTORE_SEED_DEMO: "false",
    ...options.env,
  };
  const processes: ServiceProcess[] = [];
  const start = async () => {
    const service = await startServiceProcess(env);
    processes.push(service);
    return service;
  };
  const mongo = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5_000 });
  let paused = false;

  try {
    // One after the other: the first prepares the new database (its indexes), the second finds it ready.
    const running = [await start()];
    if (instances === 2) running.push(await start());
    const origin = running[0]!.url;
    const limits = { perMinute: 1_000_000, perDay: 10_000_000 };
    const newKey = async (role: string) =>
      (
        await must(
          send(origin, ADMIN_KEY, "POST", "/admin/api-keys", {
            label: `kill -9 ${role}`,
            role,
            plan: "enterprise",
            limits,
          }),
          201,
          "create key",
        )
      ).key as string;
    const staff = await newKey("staff");
    const customers = await Promise.all(Array.from({ length: 5 }, () => newKey("customer")));
    const category = await must(
      send(origin, staff, "POST", "/categories", { name: "Kill nine" }),
      201,
      "create category",
    );
    const stockGiven = new Map<number, number>();
    for (let i = 0; i < petCount; i++) {
      const pet = await must(
        send(origin, staff, "POST", "/pets", { name: `Target ${i}`, categoryId: category.id }),
        201,
        "create pet",
      );
      await must(send(origin, staff, "PUT", `/store/inventory/${pet.id}`, { quantity: stockPerPet }), 200, "set stock");
      stockGiven.set(pet.id as number, stockPerPet);
    }
    const petIds = [...stockGiven.keys()];

    const placed = new Set<number>();
    let placedAnswers = 0;
    const cancelAttempted = new Set<number>();
    const cancelled = new Set<number>();
    let refused = 0;
    let cutOff = 0;
    let dead = false;
    let firstCancelled!: () => void;
    const underLoad = new Promise<void>((resolve) => (firstCancelled = resolve));
    const client = async (n: number) => {
      const key = customers[n % customers.length]!;
      const at = running[n % running.length]!.url;
      for (let sent = 0; sent < requestsPerClient && !dead; sent++) {
        const order = await send(at, key, "POST", "/store/orders", {
          petId: petIds[Math.floor(random() * petIds.length)],
          quantity: random() < 0.7 ? 1 : 2,
        });
        if (order === "cut-off") return void cutOff++;
        if (order.status !== 201) {
          refused++;
          continue;
        }
        placedAnswers++;
        placed.add(order.body.id as number);
        if (random() < 0.4) continue; // kept open
        sent++;
        cancelAttempted.add(order.body.id as number);
        const cancel = await send(at, key, "DELETE", `/store/orders/${order.body.id}`);
        if (cancel === "cut-off") return void cutOff++;
        if (cancel.status === 204) {
          cancelled.add(order.body.id as number);
          firstCancelled();
        } else refused++;
      }
    };

    const loadStarted = performance.now();
    const load = Promise.all(Array.from({ length: clients }, (_, n) => client(n)));
    // A busy machine may take seconds to answer the first requests; the disruption must hit orders and cancellations.
    await Promise.race([underLoad, load]);
    await sleep(killFrom + random() * (killTo - killFrom));
    const killedAfterMs = performance.now() - loadStarted;
    let victim: ServiceProcess | undefined;
    if (options.pauseEngine) {
      // Every request in flight stalls with the engine, past the grace; recovery acts beside them once it is back.
      await run("docker", ["pause", options.pauseEngine.container]);
      paused = true;
      await sleep(options.pauseEngine.ms);
      await run("docker", ["unpause", options.pauseEngine.container]);
      paused = false;
      await sleep(1_000);
      dead = true;
      await load;
    } else {
      victim = running[Math.floor(random() * running.length)]!;
      victim.child.kill("SIGKILL");
      await victim.exit;
      dead = true;
      await load;
    }

    const spawned = performance.now();
    const second = victim ? await start() : running[0]!;
    const listening = performance.now();
    const get = loopbackGetJson(second.url, staff, REQUEST_TIMEOUT_MS);
    let unitsMissing = 0;
    let eventsLost = 0;
    const check = async (): Promise<string[]> => {
      const result = await checkRound(get, mongo.db(dbName), {
        stockGiven,
        placed,
        placedAnswers,
        cancelAttempted,
        cancelled,
      });
      ({ unitsMissing, eventsLost } = result);
      return result.problems;
    };

    // Recovered as of the start of the first check that passed: reading every page may itself take seconds.
    let began = performance.now();
    let problems = await check();
    const problemsAtRestart = problems.length;
    const unitsMissingAtRestart = unitsMissing;
    let recoveredMs: number | undefined = problems.length === 0 ? began - listening : undefined;
    while (recoveredMs === undefined && performance.now() - listening < recoveryLimitMs) {
      await sleep(POLL_MS);
      began = performance.now();
      problems = await check();
      if (problems.length === 0) recoveredMs = began - listening;
    }
    return {
      killedAfterMs: Math.round(killedAfterMs),
      placed: placed.size,
      cancelled: cancelled.size,
      refused,
      cutOff,
      startMs: Math.round(listening - spawned),
      recoveredMs: recoveredMs === undefined ? undefined : Math.round(recoveredMs),
      sinceSpawnMs: recoveredMs === undefined ? undefined : Math.round(listening - spawned + recoveredMs),
      recovered: recoveryLogOf(processes.flatMap((p) => p.output)),
      problemsAtRestart,
      problems,
      unitsMissingAtRestart,
      unitsMissing,
      eventsLost,
      output:
        recoveredMs === undefined
          ? processes.flatMap((p) => p.output.filter((line) => !line.includes('"request"')).slice(-20)).join("\n")
          : "",
    };
  } finally {
    if (paused && options.pauseEngine) await run("docker", ["unpause", options.pauseEngine.container]);
    for (const service of processes) {
      if (service.child.exitCode === null && service.child.signalCode === null) {
        service.child.kill("SIGKILL");
        await service.exit;
      }
    }
    try {
      await mongo.db(dbName).dropDatabase();
    } finally {
      await mongo.close();
    }
  }
};
