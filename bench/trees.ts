/**
 * npm run bench:trees -- "<scenario>" <label>=<tree>[|<node args>] ...: several services side by side with bare h3,
 * each from its own checkout (a git worktree: `git worktree add --detach ../old <ref>`, its node_modules linked to
 * this one's) and node arguments, in alternating rounds (order reversed every round). Printed per side: CPU µs per
 * request (all threads, the main thread, V8's helper threads) and bare h3's CPU ÷ the side's per round, as medians.
 * Naming a tree twice starts two processes of it: how far they differ is the run's noise.
 * Example: npm run bench:trees -- "POST /store/orders" "main=." "old=../old" "main32=.|--max-semi-space-size=32"
 * BENCH_ROUNDS (default 12), BENCH_SECONDS (2) and BENCH_CONNECTIONS (50) as for `npm run bench`.
 */
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freeLoopbackPort } from "../test/support/free-port.ts";
import { pinning, pinSelf, SERVICE_NODE_ARGS, startChildServer, type ChildServer } from "./child-server.ts";
import { drive } from "./drive.ts";
import { allScenarios, prepareService, SEEDED_PETS, SEEDED_STOCK, type Keys } from "./scenarios.ts";
import { median, table } from "./stats.ts";

const [name, ...specs] = process.argv.slice(2);
const scenario = allScenarios.find((s) => s.name === name);
const sides = specs.map((spec) => {
  const [label, rest = ""] = spec.split(/=(.*)/s);
  const [tree = "", args] = rest.split("|");
  return {
    label: label!,
    tree: resolve(tree),
    args: args === undefined ? SERVICE_NODE_ARGS : args.split(" ").filter(Boolean),
  };
});
if (!scenario || sides.length === 0 || sides.some((s) => !s.label || !s.tree)) {
  process.stderr.write(
    `usage: npm run bench:trees -- "<scenario>" <label>=<tree>[|<node args>] ..., scenario one of ${allScenarios.map((s) => JSON.stringify(s.name)).join(", ")}\n`,
  );
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 12);
const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

const place = pinning();
const adminKey = randomBytes(24).toString("base64url");
interface Side {
  label: string;
  server: ChildServer;
  keys: Keys;
  nextRound: () => Promise<void>;
  cpu: number[];
  main: number[];
  v8: number[];
}
const started: Side[] = [];
const bare = fileURLToPath(new URL("./baseline-server.ts", import.meta.url));
try {
  const server = await startChildServer(
    bare,
    await freeLoopbackPort(),
    { BENCH_SEEDED_PETS: String(SEEDED_PETS), BENCH_SEEDED_STOCK: String(SEEDED_STOCK) },
    { prefix: place.server, nodeArgs: SERVICE_NODE_ARGS },
  );
  const none: Keys = { customer: ["-"], staff: "-" };
  started.push({ label: "bare h3", server, keys: none, nextRound: async () => {}, cpu: [], main: [], v8: [] });
  for (const side of sides) {
    const server = await startChildServer(
      resolve(side.tree, "bench/service-server.ts"),
      await freeLoopbackPort(),
      { PETSTORE_ADMIN_KEY: adminKey, PETSTORE_LOG_LEVEL: "info" },
      { prefix: place.server, nodeArgs: side.args, shipLogs: { prefix: place.loader } },
    );
    const prepared = await prepareService(server.url, adminKey).catch(async (error: unknown) => {
      await server.stop();
      throw error;
    });
    const { nextRound } = prepared;
    started.push({ label: side.label, server, keys: prepared.keys, nextRound, cpu: [], main: [], v8: [] });
  }
  if (place.available) pinSelf(1);
  for (const side of started) await drive(side.server, scenario, side.keys, 1, connections);
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? started : [...started].reverse()) {
      await side.nextRound();
      const before = side.server.threadCpuMicros();
      const result = await drive(side.server, scenario, side.keys, seconds, connections);
      const after = side.server.threadCpuMicros();
      const answered = result.reqPerSec * seconds;
      side.cpu.push(result.cpuMicrosPerRequest);
      if (before && after) {
        side.main.push((after.main - before.main) / answered);
        side.v8.push((after.v8 - before.v8) / answered);
      }
    }
  }
  const baseline = started[0]!;
  const rows = [["side", "CPU µs", "main thread µs", "V8 helpers µs", "bare h3 ÷ side"]];
  for (const side of started) {
    const ratios = side.cpu.map((cpu, i) => baseline.cpu[i]! / cpu);
    const perThread = (values: number[]) => (values.length ? median(values).toFixed(1) : "-");
    rows.push([
      side.label,
      median(side.cpu).toFixed(1),
      perThread(side.main),
      perThread(side.v8),
      median(ratios).toFixed(2),
    ]);
  }
  process.stdout.write(
    `${scenario.name}: ${rounds} alternating rounds × ${seconds} s, ${connections} connections\n${table(rows)}\n`,
  );
} finally {
  await Promise.all(started.map((s) => s.server.stop()));
}
