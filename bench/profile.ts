/**
 * npm run bench:profile -- "<scenario>" [seconds] [peer|mongo|mongo-peer] [statements]: where the service's CPU goes (or, with
 * `peer`, the Fastify peer's) under one of the benchmark's scenarios (bench/scenarios.ts, matched by name, e.g. "varied
 * order"; "mixed" by default). With `mongo` (`mongo-peer`), the service on MongoDB (the Fastify + `mongodb` peer) on an
 * engine container of its own, under the MongoDB part's scenarios (bench/mongo-part.ts: "keyed read", "varied order",
 * "mixed"); the engine's CPU per request is printed beside. The server runs as in `npm run bench` (the service on the memory store, info logging into a log shipper's
 * pipe, pinned to core 0) under V8's sampling profiler; autocannon warms it up for 3 s, then loads it for `seconds`
 * (default 8). Printed: CPU µs per request, split by thread where /proc tells (the profile samples the main thread
 * only, and V8's helper threads, mostly garbage collection, cost a placed order several µs), the functions with the
 * most self time and the files and packages with the most, as shares of the main thread's busy time over the load
 * only; the .cpuprofile is kept for Chrome DevTools' Performance panel.
 * With `statements` (on MongoDB), the engine container is the test image with PostgreSQL's pg_stat_statements loaded
 * (docker/test-mongo-statements, built here), and the statements the load ran are printed per request: how many, and
 * their time inside PostgreSQL (wall time: a loaded machine stretches it; the counts are what to compare).
 * The profiler costs CPU too: compare shares within a profile, and take CPU figures from `npm run bench`.
 */
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freeLoopbackPort } from "../test/support/free-port.ts";
import { pinning, pinSelf, SERVICE_NODE_ARGS, startChildServer } from "./child-server.ts";
import { load } from "./drive.ts";
import { startEngineContainer, type EngineContainer } from "./engine-container.ts";
import { MONGO_SCENARIOS } from "./mongo-part.ts";
import { allScenarios, prepareService, preparedWith, SEEDED_PETS, SEEDED_STOCK, type Keys } from "./scenarios.ts";
import { CUSTOMER_KEYS, MONGO_PETS } from "./traffic.ts";
import { table } from "./stats.ts";
import { TEST_MONGO_IMAGE } from "../test/support/test-mongo-image.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [name = "mixed", secondsArg = "8", which = "service", extra] = process.argv.slice(2);
const onMongo = which === "mongo" || which === "mongo-peer";
const peerSide = which === "peer" || which === "mongo-peer";
const scenarios = onMongo ? MONGO_SCENARIOS : allScenarios;
const scenario = scenarios.find((s) => s.name === name);
if (!scenario) {
  process.stderr.write(
    `No scenario ${JSON.stringify(name)}; one of: ${scenarios.map((s) => JSON.stringify(s.name)).join(", ")}\n`,
  );
  process.exit(2);
}
const seconds = Number(secondsArg);

/** pg_stat_statements since its reset, per request answered: calls, µs of execution, and µs a call. */
const statementsPerRequest = (requests: number) => `
  SELECT toplevel AS top, round(calls::numeric / ${requests}, 3) AS per_request,
    round(total_exec_time::numeric * 1000 / ${requests}, 1) AS us_per_request,
    round((total_exec_time / calls * 1000)::numeric, 0) AS us_per_call,
    left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS statement
  FROM pg_stat_statements WHERE calls * 200 > ${requests}
  ORDER BY toplevel DESC, total_exec_time DESC LIMIT 30`;
const out = (text: string) => process.stdout.write(`${text}\n`);

const directory = join(tmpdir(), `petstore-profile-${process.pid}`);
rmSync(directory, { recursive: true, force: true });
const place = pinning();
const adminKey = randomBytes(24).toString("base64url");
const profiling = ["--cpu-prof", `--cpu-prof-dir=${directory}`, "--cpu-prof-interval=100"];
// The peer, for comparison, runs under the same profiler with keys of its own.
const peerKeys: Keys = {
  customer: Array.from({ length: CUSTOMER_KEYS }, () => randomBytes(24).toString("base64url")),
  staff: randomBytes(24).toString("base64url"),
};
const statements = onMongo && extra === "statements";
const STATEMENTS_IMAGE = "petstore/test-mongo:statements";
if (statements)
  execFileSync("docker", [
    "build",
    "-q",
    "-t",
    STATEMENTS_IMAGE,
    "--build-arg",
    `BASE=${TEST_MONGO_IMAGE}`,
    fileURLToPath(new URL("../docker/test-mongo-statements", import.meta.url)),
  ]);
const engine: EngineContainer | undefined = onMongo
  ? await startEngineContainer("4g", statements ? STATEMENTS_IMAGE : undefined)
  : undefined;
const onEngine = engine && { MONGODB_URL: engine.url, MONGODB_DB: "profile" };
const pets = onMongo ? MONGO_PETS : SEEDED_PETS;
const service = peerSide
  ? await startChildServer(
      fileURLToPath(new URL(`./peer-fastify${onMongo ? "-mongo" : ""}/server.ts`, import.meta.url)),
      await freeLoopbackPort(),
      {
        BENCH_SEEDED_PETS: String(pets),
        BENCH_SEEDED_STOCK: String(SEEDED_STOCK),
        BENCH_PEER_KEYS: JSON.stringify(peerKeys),
        ...onEngine,
      },
      { prefix: place.server, nodeArgs: profiling, shipLogs: { prefix: place.loader } },
    )
  : await startChildServer(
      fileURLToPath(new URL("./service-server.ts", import.meta.url)),
      await freeLoopbackPort(),
      {
        PETSTORE_ADMIN_KEY: adminKey,
        PETSTORE_LOG_LEVEL: "info",
        ...(onEngine && { PETSTORE_STORE: "mongo", ...onEngine }),
      },
      {
        prefix: place.server,
        nodeArgs: [...SERVICE_NODE_ARGS, ...profiling],
        shipLogs: { prefix: place.loader },
      },
    );
if (place.available) pinSelf(1);

let cpuMicros = 0;
let engineMicros = 0;
let requests = 0;
let threads: Record<string, number> | undefined;
let statementTable: string | undefined;
try {
  const prepared = peerSide ? preparedWith(peerKeys) : await prepareService(service.url, adminKey, pets);
  await load(service.url, scenario, prepared.keys, 3, 50);
  await prepared.nextRound();
  if (statements)
    await engine!.sql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()");
  const before = await service.cpuMicros();
  const engineBefore = (await engine?.cpuMicros()) ?? 0;
  const threadsBefore = service.threadCpuMicros();
  const result = await load(service.url, scenario, prepared.keys, seconds, 50);
  cpuMicros = (await service.cpuMicros()) - before;
  engineMicros = ((await engine?.cpuMicros()) ?? 0) - engineBefore;
  const threadsAfter = service.threadCpuMicros();
  requests = result["2xx"] + result.non2xx;
  if (statements) statementTable = await engine!.sql(statementsPerRequest(requests));
  if (threadsBefore && threadsAfter) {
    threads = Object.fromEntries(
      Object.entries(threadsAfter).map(([kind, micros]) => [
        kind,
        micros - threadsBefore[kind as keyof typeof threadsBefore],
      ]),
    );
  }
} finally {
  await service.stop();
  await engine?.remove();
}

const file = join(
  directory,
  readdirSync(directory).find((f) => f.endsWith(".cpuprofile"))!,
);
const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;

// Only the samples of the load itself: the last `seconds` before the stop (start-up, set-up and warm-up left out).
const times: number[] = [];
let elapsed = 0;
for (const delta of profile.timeDeltas) times.push((elapsed += delta));
const from = elapsed - seconds * 1e6;
const hits = new Map<number, number>();
profile.samples.forEach((id, i) => {
  if (times[i]! >= from) hits.set(id, (hits.get(id) ?? 0) + 1);
});
// Shares of the time the main thread was busy: waiting for the next request (`(idle)`) is no one's cost.
const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === "(idle)").map((node) => node.id));
for (const id of idle) hits.delete(id);
const total = [...hits.values()].reduce((a, b) => a + b, 0);

const where = (url: string): string => {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/((?:adapters|core|bootstrap|bench|test)\/.*)$/.exec(url);
  return own ? own[1]! : url || "(native)";
};
const bySelf = new Map<string, number>();
const byFile = new Map<string, number>();
for (const node of profile.nodes) {
  const count = hits.get(node.id);
  if (!count) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const fn = `${functionName || "(anonymous)"}  ${where(url)}${url ? `:${lineNumber + 1}` : ""}`;
  bySelf.set(fn, (bySelf.get(fn) ?? 0) + count);
  byFile.set(where(url), (byFile.get(where(url)) ?? 0) + count);
}
const top = (counts: Map<string, number>, n: number) =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([label, count]) => [label, `${((100 * count) / total).toFixed(1)} %`]);

out(
  `${scenario.name}: ${requests.toLocaleString("en")} requests in ${seconds} s under the profiler, ${(cpuMicros / Math.max(1, requests)).toFixed(0)} µs of server CPU each` +
    (engine ? `, ${(engineMicros / Math.max(1, requests)).toFixed(0)} µs of the engine's` : ""),
);
// The profile samples the main thread only; V8's helper threads (mostly garbage collection) are seen here alone.
if (threads) {
  const each = (kind: string) => `${((threads![kind] ?? 0) / Math.max(1, requests)).toFixed(1)} µs`;
  out(
    `by thread (from /proc): main ${each("main")}, V8 helpers (GC) ${each("v8")}, the profiler's sampler ${each("profiler")}, other ${each("other")}; the profile below is the main thread's`,
  );
}
out("");
out(table([["function (self time)", "share"], ...top(bySelf, 30)]));
out("");
out(table([["file or package (self time)", "share"], ...top(byFile, 20)]));
out(`\nprofile: ${file}`);
if (statementTable) {
  out("\nInside PostgreSQL, per request (top level t: the command FerretDB ran; f: the statements inside it):");
  out(statementTable);
}
