/**
 * npm run bench [-- --smoke] [-- --mongo]
 *
 * Socket-level, on a shop's traffic (bench/traffic.ts): three servers run as child processes, pinned to core 0 when
 * `taskset` exists: the service as `npm start` runs it (memory store, info logging), the peer a team would write on
 * Fastify 5 with API keys, rate limits and a pino line per request (bench/peer-fastify/server.ts), and bare h3 doing
 * each route's own work (bench/baseline-server.ts). The service's and the peer's output goes into a pipe read by a
 * log shipper process (bench/log-shipper.ts), as in production. autocannon drives them from this process (pinned to
 * core 1, with the shippers) in rotating order, round after round. Per round and server: req/s, p50, p99, the
 * server's CPU time per request (its process CPU delta over the round ÷ requests answered) and log lines per request.
 * The ratios are taken in the same round: service CPU ÷ the peer's (the target: at most 0.8) and bare h3's ÷ the
 * service's. Three sets of processes (BENCH_SETS) take turns and their rounds are pooled; the verdict is the median
 * over the pooled rounds, printed with its min–max and each set's own median, since one process of the same code can
 * cost several percent more than another for its whole life. Each set starts its servers, and opens each round, in
 * a rotated order.
 * Then RSS after hostile loads on the memory store (bench/memory-probe.ts) and, with --mongo, store round
 * trips per operation (bench/mongo-round-trips.ts).
 *   --smoke  one short round per scenario and small memory loads: checks that everything runs, measures nothing.
 *   --mongo  store round trips on MongoDB: MONGODB_URL, or the test engine started as the tests start it.
 * BENCH_ROUNDS, BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_SETS and BENCH_CONNECTIONS override the defaults (4 rounds
 * of 2 s per set after 3 s of warm-up per scenario and server, 3 sets, 50 connections);
 * BENCH_ONLY=<text>[,<text>…] runs only the scenarios whose name contains one of them (the labelled extras not run by
 * default among them), and skips the memory loads.
 * Then the scaling scenarios (bench/scaling.ts): memory-orders (300,000 keyed orders, RSS and GET latency during and
 * after), and with --mongo hot-pet (one pet at 0, 10k and 100k open orders) and two-instances.
 * BENCH_SCALING=<name>[,<name>…] (hot-pet, two-instances, memory-orders) runs only those, on any store.
 * Last, with --mongo, the MongoDB part (bench/mongo-part.ts): the service on MongoDB against a Fastify + `mongodb`
 * peer on one engine container, 1 to 3 instances, and a key late in its day.
 *   --mongo-peer  only the MongoDB part (BENCH_MONGO=<part>[,<part>…] of compare, scaling, late-day: only those).
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import autocannon from "autocannon";
import { freeLoopbackPort } from "../test/support/free-port.ts";
import { pinning, pinSelf, SERVICE_NODE_ARGS, startChildServer, type ChildServer } from "./child-server.ts";
import { chosenScenarios, prepareService, preparedWith, SEEDED_PETS, SEEDED_STOCK } from "./scenarios.ts";
import { CUSTOMER_KEYS, type Keys } from "./traffic.ts";
import { drive, type Round } from "./drive.ts";
import { median, spread, table } from "./stats.ts";
import { runScaling, SCALING_SCENARIOS, type ScalingScenario } from "./scaling.ts";

const args = new Set(process.argv.slice(2));
const smoke = args.has("--smoke");
const rounds = Number(process.env.BENCH_ROUNDS ?? (smoke ? 1 : 4));
const seconds = Number(process.env.BENCH_SECONDS ?? (smoke ? 0.25 : 2));
// Long enough for V8 to have compiled a scenario's code: the targets are about a server that has been running.
const warmUpSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? (smoke ? 0.1 : 3));
const setCount = Math.max(1, Number(process.env.BENCH_SETS ?? 3));
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const memoryLoads = smoke ? { idempotency: 5_000, addresses: 5_000 } : { idempotency: 300_000, addresses: 200_000 };
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const out = (text: string) => process.stdout.write(`${text}\n`);
const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

if (args.has("--mongo-peer")) {
  const { chosenMongoParts, runMongoPart } = await import("./mongo-part.ts");
  await runMongoPart(chosenMongoParts(process.env.BENCH_MONGO), {
    smoke,
    adminKey: randomBytes(24).toString("base64url"),
  });
  process.exit(0);
}

const only = process.env.BENCH_ONLY;
const scalingOnly = process.env.BENCH_SCALING?.split(",").filter(Boolean);
if (scalingOnly) {
  const unknown = scalingOnly.filter((name) => !(SCALING_SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`BENCH_SCALING: unknown ${unknown.join(", ")}; expected some of ${SCALING_SCENARIOS.join(", ")}`);
  await runScaling(scalingOnly as ScalingScenario[], { smoke, adminKey: randomBytes(24).toString("base64url") });
  process.exit(0);
}
const scenarios = only
  ? [...new Set(only.split(",").flatMap((part) => chosenScenarios(part.trim())))]
  : chosenScenarios(undefined);

interface Probe {
  before: { rss: number; heap: number };
  after: { rss: number; heap: number };
}
const memoryProbe = async (kind: string, count: number): Promise<Probe> => {
  const { stdout } = await promisify(execFile)(process.execPath, [
    ...SERVICE_NODE_ARGS,
    "--expose-gc",
    here("./memory-probe.ts"),
    kind,
    String(count),
  ]);
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Probe;
};

/**
 * `count` keyless requests, each from its own client address (X-Forwarded-For from a proxy the service is told to
 * trust, PETSTORE_TRUST_PROXY), to a fresh service process: each is counted in its address's windows, then 401.
 */
const addressesOverHttp = async (count: number): Promise<Probe & { answered401: number }> => {
  const server = await startChildServer(
    here("./service-server.ts"),
    await freeLoopbackPort(),
    { PETSTORE_ADMIN_KEY: adminKey, PETSTORE_LOG_LEVEL: "info", PETSTORE_TRUST_PROXY: "127.0.0.1" },
    { prefix: place.server, nodeArgs: [...SERVICE_NODE_ARGS, "--expose-gc"] },
  );
  try {
    const before = await server.memory();
    let next = 0;
    const result = await autocannon({
      url: `${server.url}/pets`,
      connections,
      amount: count,
      requests: [
        {
          setupRequest: (request) => {
            const i = next++;
            return {
              ...request,
              headers: { ...request.headers, "x-forwarded-for": `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
            };
          },
        },
      ],
    });
    return { before, after: await server.memory(), answered401: result.statusCodeStats["401"]?.count ?? 0 };
  } finally {
    await server.stop();
  }
};

type Side = "service" | "peer" | "bare";
const SIDES: readonly Side[] = ["service", "peer", "bare"];
/** The sides of set `i` in its turn `k`: each set, and each round of a set, starts with another side. */
const rotated = (k: number): Side[] => SIDES.map((_, j) => SIDES[(j + k) % SIDES.length]!);

interface Summary {
  /** Service CPU ÷ the peer's, per round, pooled over the sets. */
  vsPeer: number[];
  /** Bare h3's CPU ÷ the service's, per round. */
  vsBare: number[];
  p99: Record<Side, number>;
  failures: number;
}
const summaries = new Map<string, Summary>();
const verdicts: string[][] = [["target (on the median over the pooled rounds)", "this run", "verdict"]];
/** A scenario with failed requests (a refusal is cheap) is not judged. */
const judge = (target: string, figure: string, met: boolean, failures = 0) =>
  verdicts.push([target, figure, failures > 0 ? `NOT JUDGED (${failures} requests failed)` : met ? "met" : "NOT MET"]);

const place = pinning();
const adminKey = randomBytes(24).toString("base64url");
const newKey = () => randomBytes(24).toString("base64url");
type ServerSet = Record<Side, ChildServer>;
const sets: ServerSet[] = [];
const stopAll = () => Promise.all(sets.flatMap((set) => SIDES.map((side) => set[side].stop())));
const peerKeys: Keys[] = [];
try {
  for (let i = 0; i < setCount; i++) {
    const keys: Keys = { customer: Array.from({ length: CUSTOMER_KEYS }, newKey), staff: newKey() };
    peerKeys.push(keys);
    const seeded = { BENCH_SEEDED_PETS: String(SEEDED_PETS), BENCH_SEEDED_STOCK: String(SEEDED_STOCK) };
    const start: Record<Side, () => Promise<ChildServer>> = {
      service: async () =>
        startChildServer(
          here("./service-server.ts"),
          await freeLoopbackPort(),
          { PETSTORE_ADMIN_KEY: adminKey, PETSTORE_LOG_LEVEL: "info" },
          { prefix: place.server, nodeArgs: SERVICE_NODE_ARGS, shipLogs: { prefix: place.loader } },
        ),
      peer: async () =>
        startChildServer(
          here("./peer-fastify/server.ts"),
          await freeLoopbackPort(),
          { ...seeded, BENCH_PEER_KEYS: JSON.stringify(keys) },
          { prefix: place.server, shipLogs: { prefix: place.loader } },
        ),
      bare: async () =>
        startChildServer(here("./baseline-server.ts"), await freeLoopbackPort(), seeded, { prefix: place.server }),
    };
    const started: Partial<ServerSet> = {};
    try {
      for (const side of rotated(i)) started[side] = await start[side]();
    } catch (error) {
      await Promise.all(Object.values(started).map((server) => server.stop()));
      throw error;
    }
    sets.push(started as ServerSet);
  }
} catch (error) {
  await stopAll();
  throw error;
}
const pinnedSelf = place.available && pinSelf(1);

try {
  const prepared = await Promise.all(
    sets.map(async (set, i) => ({
      service: await prepareService(set.service.url, adminKey),
      peer: preparedWith(peerKeys[i]!),
      bare: preparedWith(peerKeys[i]!),
    })),
  );
  const results = new Map(
    scenarios.map((s) => [s.name, { service: [] as Round[], peer: [] as Round[], bare: [] as Round[] }]),
  );
  for (const scenario of scenarios) {
    for (const [i, set] of sets.entries()) {
      for (const side of rotated(i)) {
        await prepared[i]![side].nextRound();
        await drive(set[side], scenario, prepared[i]![side].keys, warmUpSeconds, connections);
      }
    }
  }
  // Scenario after scenario. In each round every set runs in turn; round k of a scenario holds one set's three
  // servers, driven one after the other.
  for (const scenario of scenarios) {
    const slot = results.get(scenario.name)!;
    for (let round = 0; round < rounds; round++) {
      for (const [i, set] of sets.entries()) {
        for (const side of rotated(round + i)) {
          await prepared[i]![side].nextRound();
          slot[side].push(await drive(set[side], scenario, prepared[i]![side].keys, seconds, connections));
        }
      }
    }
  }

  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  out(
    `petstore bench${smoke ? " (smoke: timings mean nothing)" : ""}: ${rounds} round(s) × ${seconds} s per scenario and server, ` +
      `${sets.length} set(s) of processes, ` +
      `${connections} connections, Node ${process.versions.node}, ${os.cpus().length} × ${cpu}, ` +
      (place.available && pinnedSelf
        ? "servers on core 0, autocannon and the log shippers on core 1"
        : "not pinned (no taskset or one core)") +
      `, load average ${os
        .loadavg()
        .map((n) => n.toFixed(2))
        .join(" ")} at the end`,
  );
  out(
    "CPU = server process CPU time per request answered, median over the pooled rounds; ratios per round, median (min–max)\n",
  );
  const m = (rs: Round[], f: (r: Round) => number) => median(rs.map(f));
  const withSpread = (values: number[], digits: number) => {
    const { min, max } = spread(values);
    return `${fixed(median(values), digits)} (${fixed(min, 2)}–${fixed(max, 2)})`;
  };
  const cpuRows: string[][] = [
    ["scenario", "service µs", "Fastify peer µs", "bare h3 µs", "service ÷ peer", "bare h3 ÷ service", "failed"],
  ];
  const latencyRows: string[][] = [
    ["scenario", "req/s service/peer/bare", "p50 ms service/peer/bare", "p99 ms service/peer/bare", "log lines/req"],
  ];
  for (const scenario of scenarios) {
    const r = results.get(scenario.name)!;
    const vsPeer = r.service.map((round, k) => round.cpuMicrosPerRequest / r.peer[k]!.cpuMicrosPerRequest);
    const vsBare = r.service.map((round, k) => r.bare[k]!.cpuMicrosPerRequest / round.cpuMicrosPerRequest);
    const failures = SIDES.reduce((n, side) => n + r[side].reduce((f, round) => f + round.failures, 0), 0);
    const each = (f: (rounds: Round[]) => string) => SIDES.map((side) => f(r[side])).join(" / ");
    cpuRows.push([
      scenario.name,
      fixed(m(r.service, (x) => x.cpuMicrosPerRequest)),
      fixed(m(r.peer, (x) => x.cpuMicrosPerRequest)),
      fixed(m(r.bare, (x) => x.cpuMicrosPerRequest)),
      withSpread(vsPeer, 3),
      withSpread(vsBare, 2),
      String(failures),
    ]);
    const lines = (rs: Round[]) =>
      fixed(
        m(rs, (x) => x.logLinesPerRequest ?? Number.NaN),
        2,
      );
    latencyRows.push([
      scenario.name,
      each((rs) => fixed(m(rs, (x) => x.reqPerSec))),
      each((rs) =>
        fixed(
          m(rs, (x) => x.p50),
          1,
        ),
      ),
      each((rs) =>
        fixed(
          m(rs, (x) => x.p99),
          1,
        ),
      ),
      `${lines(r.service)} / ${lines(r.peer)}`,
    ]);
    summaries.set(scenario.name, {
      vsPeer,
      vsBare,
      p99: { service: m(r.service, (x) => x.p99), peer: m(r.peer, (x) => x.p99), bare: m(r.bare, (x) => x.p99) },
      failures,
    });
  }
  out(table(cpuRows));
  out("");
  out(table(latencyRows));
  out("\nservice ÷ peer by set of processes (the median of its rounds): how far one process's luck moves the verdict");
  out(
    table([
      ["scenario", ...sets.map((_, i) => `set ${i + 1}`)],
      ...scenarios.map((scenario) => {
        const { vsPeer } = summaries.get(scenario.name)!;
        // Round k of a scenario is set k % sets' (each round loops over the sets).
        const ofSet = (i: number) => vsPeer.filter((_, k) => k % sets.length === i);
        return [scenario.name, ...sets.map((_, i) => fixed(median(ofSet(i)), 3))];
      }),
    ]),
  );
  out(`\nWhat each scenario sends:\n${scenarios.map((s) => `  ${s.name}: ${s.sends}`).join("\n")}`);
} finally {
  await stopAll();
}

if (!only) {
  const idempotency = await memoryProbe("idempotency", memoryLoads.idempotency);
  const addresses = await memoryProbe("addresses", memoryLoads.addresses);
  const addressesHttp = await addressesOverHttp(memoryLoads.addresses);
  const mib = (n: number) => `${n.toFixed(0)} MiB`;
  const memoryRow = (load: string, count: number, probe: Probe) => [
    load,
    mib(probe.before.rss),
    mib(probe.after.rss),
    fixed(((probe.after.heap - probe.before.heap) * 2 ** 20) / count),
  ];
  out(
    "\nmemory store, a fresh service process each, after GC: the Idempotency-Keys and limiter rows drive the adapter in process;" +
      "\nthe HTTP row sends keyless GET /pets, each from its own address (X-Forwarded-For from a trusted 127.0.0.1):",
  );
  out(
    table([
      ["load", "RSS before", "RSS after", "heap bytes per entry"],
      memoryRow(
        `${memoryLoads.idempotency.toLocaleString("en")} distinct Idempotency-Keys, one API key`,
        memoryLoads.idempotency,
        idempotency,
      ),
      memoryRow(
        `${memoryLoads.addresses.toLocaleString("en")} distinct client addresses, limiter adapter`,
        memoryLoads.addresses,
        addresses,
      ),
      memoryRow(
        `${memoryLoads.addresses.toLocaleString("en")} distinct client addresses over HTTP (${addressesHttp.answered401.toLocaleString("en")} answered 401)`,
        memoryLoads.addresses,
        addressesHttp,
      ),
    ]),
  );

  const thousands = (n: number) => `${n / 1000}k`;
  judge(
    `RSS after ${thousands(memoryLoads.idempotency)} Idempotency-Keys ≤ 300 MiB`,
    mib(idempotency.after.rss),
    idempotency.after.rss <= 300,
  );
  judge(
    `RSS after ${thousands(memoryLoads.addresses)} addresses (over HTTP) ≤ 250 MiB`,
    mib(addressesHttp.after.rss),
    addressesHttp.after.rss <= 250,
  );
}

if (!only) {
  const { measureEventStream, eventStreamTable } = await import("./events-stream.ts");
  out(
    "\nGET /events on the memory store (bench/events-stream.ts; --mongo there for MongoDB): 201 → message delay, and events/s on one stream:",
  );
  const figures = await measureEventStream(
    "memory",
    {},
    smoke ? { orders: 3, burstSeconds: 0.5 } : { orders: 40, burstSeconds: 3 },
  );
  for (const line of eventStreamTable([figures])) out(line);
}

if (args.has("--mongo")) {
  const { mongoRoundTrips } = await import("./mongo-round-trips.ts");
  out(`\nMongoDB: store round trips per operation (driver command monitoring):`);
  const trips = await mongoRoundTrips();
  out(
    table([
      ["operation", "round trips", "commands"],
      ...trips.map((r) => [r.operation, String(r.commands.length), r.commands.join(", ")]),
    ]),
  );
  const count = (operation: string) => trips.find((r) => r.operation === operation)?.commands.length ?? Number.NaN;
  judge(
    "MongoDB keyed read ≤ 2 round trips",
    String(count("keyed GET /pets?ids=")),
    count("keyed GET /pets?ids=") <= 2,
  );
  judge("MongoDB place order ≤ 4 round trips", String(count("POST /store/orders")), count("POST /store/orders") <= 4);
} else {
  out("\nMongoDB round trips: run with --mongo (MONGODB_URL, or the test engine image as the tests use it).");
}

if (!only) await runScaling(args.has("--mongo") ? SCALING_SCENARIOS : ["memory-orders"], { smoke, adminKey });

if (!only && args.has("--mongo")) {
  const { chosenMongoParts, runMongoPart } = await import("./mongo-part.ts");
  await runMongoPart(chosenMongoParts(process.env.BENCH_MONGO), { smoke, adminKey });
}

for (const scenario of scenarios.filter((s) => s.judged)) {
  const summary = summaries.get(scenario.name);
  if (!summary) continue;
  const { vsPeer, p99, failures } = summary;
  const { min, max } = spread(vsPeer);
  judge(
    `${scenario.name}: service CPU ≤ 0.8× the Fastify peer's`,
    `${fixed(median(vsPeer), 3)} (${fixed(min, 2)}–${fixed(max, 2)})`,
    median(vsPeer) <= 0.8,
    failures,
  );
  judge(
    `${scenario.name}: service p99 ≤ the Fastify peer's`,
    `${fixed(p99.service, 1)} / ${fixed(p99.peer, 1)} ms`,
    p99.service <= p99.peer,
    failures,
  );
}
for (const [name, target] of [
  ["keyed read", 0.7],
  ["varied order", 0.6],
] as const) {
  const summary = summaries.get(name);
  if (summary)
    judge(
      `${name}: bare h3 CPU ÷ service ≥ ${target}`,
      fixed(median(summary.vsBare), 3),
      median(summary.vsBare) >= target,
      summary.failures,
    );
}
for (const [name, { p99, failures }] of summaries)
  judge(
    `${name}: p99 ≤ 2× bare h3`,
    `${fixed(p99.service / Math.max(1, p99.bare), 2)}×`,
    p99.service <= 2 * Math.max(1, p99.bare),
    failures,
  );
out(`\nTargets${smoke ? " (smoke run: too short to judge, shown for the format only)" : ""}:`);
out(table(verdicts));
