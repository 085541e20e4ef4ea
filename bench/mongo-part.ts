/**
 * The MongoDB part of `npm run bench` (bench/run.ts: after the rest with --mongo, alone with --mongo-peer), on one
 * engine container of its own (bench/engine-container.ts: the test image, capped at 4 GiB), whose CPU is read from its
 * cgroup. Servers on core 0, autocannon and the log shippers on core 1 (when `taskset` exists), the engine unpinned.
 *
 *   compare   the service (PETSTORE_STORE=mongo) and the Fastify + `mongodb` peer (bench/peer-fastify-mongo/server.ts),
 *             a database each, in alternating rounds on the MongoDB shop's traffic (bench/traffic.ts: 300 pets, keyed
 *             reads of one or two, orders of 1–3 units, the mix). Per round and side: CPU per request of the server
 *             process and of the engine (its cgroup's CPU delta over the round ÷ requests answered), req/s, p99. The
 *             ratio service ÷ peer is taken within a round pair; the tables show medians over the rounds.
 *   scaling   1, 2 and 3 service instances on one database, the mix spread over them (the connections split evenly):
 *             req/s in total and CPU per request of all instances plus the engine.
 *   late-day  one service instance whose clock runs ahead (bench/clock-warp.ts): a key sends one request in each minute
 *             of its day up to 23:00 (BENCH_LATE_MINUTES, 1,380), so its rate-limit documents are what 23 hours of use
 *             leave, whatever the limiter's layout; then keyed reads from that key and from a fresh one (a new key each
 *             round) alternate: CPU per request of the engine and of the service.
 * BENCH_MONGO=<part>[,<part>…] runs only those; BENCH_ROUNDS (4), BENCH_SECONDS (3), BENCH_WARMUP_SECONDS (3) and
 * BENCH_CONNECTIONS (50) as in bench/run.ts. --smoke: one short round each and a late day of 30 minutes.
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BSON, MongoClient } from "mongodb";
import { freeLoopbackPort } from "../test/support/free-port.ts";
import { TEST_MONGO_IMAGE } from "../test/support/test-mongo-image.ts";
import { pinning, pinSelf, SERVICE_NODE_ARGS, startChildServer, type ChildServer } from "./child-server.ts";
import { drive, type Round } from "./drive.ts";
import { startEngineContainer, type EngineContainer } from "./engine-container.ts";
import { newServiceKey, prepareService, SEEDED_STOCK, type Scenario } from "./scenarios.ts";
import { median, spread, table } from "./stats.ts";
import { CUSTOMER_KEYS, MONGO_PETS, mongoKeyedReads, mongoMixed, mongoVariedOrders, type Keys } from "./traffic.ts";

export const MONGO_PARTS = ["compare", "scaling", "late-day"] as const;
export type MongoPart = (typeof MONGO_PARTS)[number];

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const out = (text: string) => process.stdout.write(`${text}\n`);
const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DAY_MS = 86_400_000;

const scenario = (name: string, sends: string, traffic: Scenario["traffic"]): Scenario => ({
  name,
  sends,
  judged: false,
  byDefault: false,
  traffic,
});
export const MONGO_SCENARIOS: Scenario[] = [
  scenario("keyed read", "GET /pets?ids= (2,000 texts, one or two of 300 pets)", mongoKeyedReads),
  scenario("varied order", "POST /store/orders (900 bodies: 300 pets × 1–3 units)", mongoVariedOrders),
  scenario("mixed", "70% keyed reads, 10% pages, 15% orders, 5% cancels of the oldest order placed", mongoMixed),
];
const mixedScenario = MONGO_SCENARIOS[2]!;

interface Settings {
  smoke: boolean;
  adminKey: string;
}

const timing = (smoke: boolean) => ({
  rounds: Number(process.env.BENCH_ROUNDS ?? (smoke ? 1 : 4)),
  seconds: Number(process.env.BENCH_SECONDS ?? (smoke ? 0.25 : 3)),
  warmUp: Number(process.env.BENCH_WARMUP_SECONDS ?? (smoke ? 0.1 : 3)),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
});

type Place = ReturnType<typeof pinning>;

const startService = async (
  engine: EngineContainer,
  dbName: string,
  { adminKey }: Settings,
  place: Place,
  warped?: { at: number },
): Promise<ChildServer> =>
  startChildServer(
    here("./service-server.ts"),
    await freeLoopbackPort(),
    {
      PETSTORE_ADMIN_KEY: adminKey,
      PETSTORE_LOG_LEVEL: "info",
      PETSTORE_STORE: "mongo",
      MONGODB_URL: engine.url,
      MONGODB_DB: dbName,
      ...(warped && { BENCH_CLOCK_AT: String(warped.at) }),
    },
    {
      prefix: place.server,
      nodeArgs: [...SERVICE_NODE_ARGS, ...(warped ? ["--import", pathToFileURL(here("./clock-warp.ts")).href] : [])],
      shipLogs: { prefix: place.loader },
    },
  );

/** A round on several servers at once (the connections split evenly), with the engine's CPU over it. */
interface Measured {
  reqPerSec: number;
  /** All the servers' process CPU ÷ requests answered, µs. */
  serverMicros: number;
  /** The engine container's CPU delta ÷ requests answered, µs. */
  engineMicros: number;
  p99: number;
  failures: number;
}
const measure = async (
  engine: EngineContainer,
  targets: { server: ChildServer; keys: Keys }[],
  scenarioToRun: Scenario,
  seconds: number,
  connections: number,
): Promise<Measured> => {
  const before = await engine.cpuMicros();
  const rounds: Round[] = await Promise.all(
    targets.map(({ server, keys }, i) =>
      drive(server, scenarioToRun, keys, seconds, Math.floor((connections + i) / targets.length)),
    ),
  );
  const after = await engine.cpuMicros();
  const answered = rounds.reduce((n, r) => n + r.answered, 0);
  return {
    reqPerSec: rounds.reduce((n, r) => n + r.reqPerSec, 0),
    serverMicros: rounds.reduce((n, r) => n + r.cpuMicrosPerRequest * r.answered, 0) / Math.max(1, answered),
    engineMicros: (after - before) / Math.max(1, answered),
    p99: Math.max(...rounds.map((r) => r.p99)),
    failures: rounds.reduce((n, r) => n + r.failures, 0),
  };
};
const total = (m: Measured) => m.serverMicros + m.engineMicros;
const cpuCell = (ms: Measured[]) =>
  `${fixed(median(ms.map(total)))} (${fixed(median(ms.map((m) => m.serverMicros)))} + ${fixed(median(ms.map((m) => m.engineMicros)))})`;
const ratioCell = (values: number[]) => {
  const { min, max } = spread(values);
  return `${fixed(median(values), 2)} (${fixed(min, 2)}–${fixed(max, 2)})`;
};
const failed = (ms: Measured[]) => String(ms.reduce((n, m) => n + m.failures, 0));

/** The engine's CPU while nothing is sent, ms per second: the background work every round's figure includes. */
const engineIdle = async (engine: EngineContainer, ms: number) => {
  const before = await engine.cpuMicros();
  await sleep(ms);
  return ((await engine.cpuMicros()) - before) / ms;
};

const compare = async (engine: EngineContainer, settings: Settings, place: Place) => {
  const t = timing(settings.smoke);
  const secret = () => randomBytes(24).toString("base64url");
  const peerKeys: Keys = { customer: Array.from({ length: CUSTOMER_KEYS }, secret), staff: secret() };
  const service = await startService(engine, "bench_service", settings, place);
  let peer: ChildServer | undefined;
  try {
    peer = await startChildServer(
      here("./peer-fastify-mongo/server.ts"),
      await freeLoopbackPort(),
      {
        BENCH_SEEDED_PETS: String(MONGO_PETS),
        BENCH_SEEDED_STOCK: String(SEEDED_STOCK),
        BENCH_PEER_KEYS: JSON.stringify(peerKeys),
        MONGODB_URL: engine.url,
        MONGODB_DB: "bench_peer",
      },
      { prefix: place.server, shipLogs: { prefix: place.loader } },
    );
    const sides = { service, peer };
    // The same keys all run, as the peer's: on MongoDB no round comes near a key's limits.
    const keys = { service: (await prepareService(service.url, settings.adminKey, MONGO_PETS)).keys, peer: peerKeys };
    // The side not measured is stopped, so the engine's CPU over a round is the measured side's and the engine's own.
    const only = (side: "service" | "peer") => {
      sides[side].resume();
      sides[side === "service" ? "peer" : "service"].pause();
    };
    service.pause();
    peer.pause();
    const idle = await engineIdle(engine, settings.smoke ? 200 : 2_000);
    const results = new Map<string, { service: Measured[]; peer: Measured[] }>();
    for (const s of MONGO_SCENARIOS) {
      const slot = { service: [] as Measured[], peer: [] as Measured[] };
      results.set(s.name, slot);
      for (const side of ["service", "peer"] as const) {
        only(side);
        await drive(sides[side], s, keys[side], t.warmUp, t.connections);
      }
      for (let round = 0; round < t.rounds; round++) {
        for (const side of round % 2 === 0 ? (["service", "peer"] as const) : (["peer", "service"] as const)) {
          only(side);
          slot[side].push(
            await measure(engine, [{ server: sides[side], keys: keys[side] }], s, t.seconds, t.connections),
          );
        }
      }
    }
    service.resume();
    peer.resume();
    out(
      `\nMongoDB${settings.smoke ? " (smoke: timings mean nothing)" : ""}: the service (PETSTORE_STORE=mongo) and the ` +
        `Fastify 5 + mongodb peer on one engine container (${TEST_MONGO_IMAGE}, 4 GiB), a database each; ` +
        `${t.rounds} alternating round(s) of ${t.seconds} s per scenario and side after ${t.warmUp} s of warm-up, ` +
        `${t.connections} connections; ${place.available ? "servers on core 0, autocannon on core 1" : "not pinned"}, ` +
        `the engine unpinned, the side not measured stopped (SIGSTOP); engine CPU with both stopped: ` +
        `${fixed(idle, 1)} ms/s; the same keys all run; load average ` +
        `${os
          .loadavg()
          .map((n) => n.toFixed(2))
          .join(" ")} at the end`,
    );
    out("CPU per request, µs: process + engine (its cgroup), medians over the rounds; ratios per round pair\n");
    const rows = [
      [
        "scenario",
        "service µs",
        "peer µs",
        "CPU service ÷ peer",
        "engine service ÷ peer",
        "req/s service / peer (÷)",
        "p99 ms service / peer",
        "failed",
      ],
    ];
    for (const [name, r] of results) {
      rows.push([
        name,
        cpuCell(r.service),
        cpuCell(r.peer),
        ratioCell(r.service.map((m, k) => total(m) / total(r.peer[k]!))),
        ratioCell(r.service.map((m, k) => m.engineMicros / r.peer[k]!.engineMicros)),
        `${fixed(median(r.service.map((m) => m.reqPerSec)))} / ${fixed(median(r.peer.map((m) => m.reqPerSec)))} ` +
          `(${fixed(median(r.service.map((m, k) => m.reqPerSec / r.peer[k]!.reqPerSec)), 2)})`,
        `${fixed(median(r.service.map((m) => m.p99)))} / ${fixed(median(r.peer.map((m) => m.p99)))}`,
        `${failed(r.service)} / ${failed(r.peer)}`,
      ]);
    }
    out(table(rows));
    out(`\nWhat each scenario sends:\n${MONGO_SCENARIOS.map((s) => `  ${s.name}: ${s.sends}`).join("\n")}`);
  } finally {
    await Promise.all([service.stop(), peer?.stop()]);
  }
};

const scaling = async (engine: EngineContainer, settings: Settings, place: Place) => {
  const t = timing(settings.smoke);
  const instances = [await startService(engine, "bench_scaling", settings, place)];
  const rows = [["instances", "req/s in all", "CPU µs per request: instances + engine", "p99 ms (worst)", "failed"]];
  try {
    const prepared = await prepareService(instances[0]!.url, settings.adminKey, MONGO_PETS);
    for (const count of [1, 2, 3]) {
      while (instances.length < count) instances.push(await startService(engine, "bench_scaling", settings, place));
      const targets = () => instances.map((server) => ({ server, keys: prepared.keys }));
      await measure(engine, targets(), mixedScenario, t.warmUp, t.connections);
      const ms: Measured[] = [];
      for (let round = 0; round < t.rounds; round++) {
        ms.push(await measure(engine, targets(), mixedScenario, t.seconds, t.connections));
      }
      rows.push([
        String(count),
        fixed(median(ms.map((m) => m.reqPerSec))),
        cpuCell(ms),
        fixed(median(ms.map((m) => m.p99))),
        failed(ms),
      ]);
    }
  } finally {
    await Promise.all(instances.map((s) => s.stop()));
  }
  out(
    `\nMongoDB, 1 to 3 service instances on one database and engine, the mix over ${t.connections} connections split ` +
      `evenly, ${t.rounds} round(s) of ${t.seconds} s each (every instance on core 0):`,
  );
  out(table(rows));
};

/** Documents of the collections a rate limiter keeps (by name): how many, the largest and all of them, in bytes. */
const limiterDocuments = async (client: MongoClient, dbName: string) => {
  const db = client.db(dbName);
  const names = (await db.listCollections({}, { nameOnly: true }).toArray())
    .map((c) => c.name)
    .filter((name) => /rate|limit|lease|window/i.test(name));
  const sizes: string[] = [];
  for (const name of names) {
    const docs = await db.collection(name).find().toArray();
    const bytes = docs.map((doc) => BSON.calculateObjectSize(doc));
    sizes.push(
      `${name}: ${docs.length} documents, largest ${fixed(Math.max(0, ...bytes) / 1024, 1)} KB, ` +
        `${fixed(bytes.reduce((n, b) => n + b, 0) / 1024, 1)} KB in all`,
    );
  }
  return sizes.join("; ") || "no rate-limit collection found";
};

const lateDay = async (engine: EngineContainer, settings: Settings, place: Place, client: MongoClient) => {
  const t = timing(settings.smoke);
  const minutes = Number(process.env.BENCH_LATE_MINUTES ?? (settings.smoke ? 30 : 23 * 60));
  // Tomorrow's UTC day (windows are clock-aligned): its minutes lie ahead of the real clock, so the clock only moves on.
  const dayStart = Math.ceil((Date.now() + 60_000) / DAY_MS) * DAY_MS;
  const dbName = "bench_late_day";
  const service = await startService(engine, dbName, settings, place, { at: dayStart + 1_000 });
  const rows = [["key", "engine µs/request", "service µs/request", "req/s", "failed"]];
  let documents = "";
  let ratios: number[] = [];
  try {
    const prepared = await prepareService(service.url, settings.adminKey, MONGO_PETS);
    const newKey = (label: string) => newServiceKey(service.url, settings.adminKey, "customer", label);
    const late = await newKey("bench late-day key");
    const keyedRead = async (key: string, petId: number) => {
      const res = await fetch(`${service.url}/pets?ids=${petId}`, { headers: { "x-api-key": key } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`late-day: a keyed read answered ${res.status}`);
    };
    for (let minute = 1; minute <= minutes; minute++) {
      await service.setClock(dayStart + minute * 60_000);
      await keyedRead(late, 1 + (minute % MONGO_PETS));
    }
    await service.setClock(dayStart + minutes * 60_000 + 1_000);
    documents = await limiterDocuments(client, dbName);
    const keysOf = (key: string): Keys => ({ customer: [key], staff: prepared.keys.staff });
    // A fresh key's first request creates its windows: sent before the round, which measures a key in use.
    const target = async (which: "late" | "fresh") => {
      if (which === "late") return { server: service, keys: keysOf(late) };
      const fresh = await newKey("bench fresh key");
      await keyedRead(fresh, 1);
      return { server: service, keys: keysOf(fresh) };
    };
    await measure(engine, [await target("fresh")], MONGO_SCENARIOS[0]!, t.warmUp, t.connections);
    const results = { late: [] as Measured[], fresh: [] as Measured[] };
    for (let round = 0; round < t.rounds; round++) {
      for (const which of round % 2 === 0 ? (["late", "fresh"] as const) : (["fresh", "late"] as const)) {
        const chosen = await target(which);
        results[which].push(await measure(engine, [chosen], MONGO_SCENARIOS[0]!, t.seconds, t.connections));
      }
    }
    for (const which of ["late", "fresh"] as const) {
      const ms = results[which];
      rows.push([
        which === "late" ? `used in ${minutes} minutes of its day` : "fresh (a new key each round)",
        fixed(median(ms.map((m) => m.engineMicros))),
        fixed(median(ms.map((m) => m.serverMicros))),
        fixed(median(ms.map((m) => m.reqPerSec))),
        failed(ms),
      ]);
    }
    ratios = results.late.map((m, k) => m.engineMicros / results.fresh[k]!.engineMicros);
  } finally {
    await service.stop();
  }
  out(
    `\nMongoDB, late in a key's day: one key (all ${t.connections} connections) sending keyed reads at ` +
      `${minutes} minutes into its day window, against a fresh key, ${t.rounds} alternating round(s) of ${t.seconds} s:`,
  );
  out(`  rate-limit documents once the day was filled: ${documents}`);
  out(table(rows));
  out(`  engine CPU per request, late ÷ fresh (per round pair): ${ratioCell(ratios)}`);
};

/** Runs the named parts on one engine container of their own, removed after. */
export const runMongoPart = async (parts: readonly MongoPart[], settings: Settings): Promise<void> => {
  const place = pinning();
  if (place.available) pinSelf(1);
  const engine = await startEngineContainer("4g");
  const client = new MongoClient(engine.url);
  try {
    await client.connect();
    if (parts.includes("compare")) await compare(engine, settings, place);
    if (parts.includes("scaling")) await scaling(engine, settings, place);
    if (parts.includes("late-day")) await lateDay(engine, settings, place, client);
  } finally {
    await client.close();
    await engine.remove();
  }
};

/** The parts BENCH_MONGO names, or all. */
export const chosenMongoParts = (named: string | undefined): MongoPart[] => {
  const parts = named?.split(",").filter(Boolean) ?? [...MONGO_PARTS];
  const unknown = parts.filter((part) => !(MONGO_PARTS as readonly string[]).includes(part));
  if (unknown.length > 0)
    throw new Error(`BENCH_MONGO: unknown ${unknown.join(", ")}; expected some of ${MONGO_PARTS.join(", ")}`);
  return parts as MongoPart[];
};
