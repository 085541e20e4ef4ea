/**
 * npm run bench:compare -- <git ref> ["<scenario>"]: is this working tree cheaper than <ref>? Both services run as
 * `npm run bench` runs the service (memory store, info logging, webhook worker, pinned to core 0), <ref>'s from a
 * temporary git worktree that shares this tree's node_modules; autocannon drives them in alternating rounds (order
 * swapped every round), and the table gives each side's median CPU per request and the median of this tree's ÷
 * <ref>'s per round, with its min–max. The ref `HEAD` with a clean tree compares two identical builds: what such a
 * run gives (docs/performance.md) is the noise any other comparison must beat.
 * BENCH_ROUNDS (default 12), BENCH_SECONDS (2) and BENCH_CONNECTIONS (50) as for `npm run bench`.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freeLoopbackPort } from "../test/support/free-port.ts";
import { pinning, pinSelf, SERVICE_NODE_ARGS, startChildServer, type ChildServer } from "./child-server.ts";
import { drive } from "./drive.ts";
import { allScenarios, prepareService } from "./scenarios.ts";
import { median, spread, table } from "./stats.ts";

const [ref, name] = process.argv.slice(2);
const scenarios = name ? allScenarios.filter((s) => s.name === name) : allScenarios;
if (!ref || scenarios.length === 0) {
  process.stderr.write(
    `usage: npm run bench:compare -- <git ref> ["<scenario>"], scenario one of ${allScenarios.map((s) => JSON.stringify(s.name)).join(", ")}\n`,
  );
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 12);
const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const here = fileURLToPath(new URL("..", import.meta.url));
const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: here, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

const commit = git("rev-parse", "--verify", `${ref}^{commit}`);
const other = join(mkdtempSync(join(tmpdir(), "petstore-compare-")), "tree");
git("worktree", "add", "--detach", other, commit);
// Named on stderr: a caller tells this run's worktree from another run's, and anyone can clean up after a killed run.
process.stderr.write(`bench:compare worktree: ${other}\n`);
symlinkSync(join(here, "node_modules"), join(other, "node_modules"));

const place = pinning();
const adminKey = randomBytes(24).toString("base64url");
const start = async (tree: string): Promise<ChildServer> =>
  startChildServer(
    join(tree, "bench/service-server.ts"),
    await freeLoopbackPort(),
    { PETSTORE_ADMIN_KEY: adminKey, PETSTORE_LOG_LEVEL: "info" },
    { prefix: place.server, nodeArgs: SERVICE_NODE_ARGS, shipLogs: { prefix: place.loader } },
  );
const servers: ChildServer[] = [];
try {
  const [theirs, ours] = [await start(other), await start(here)];
  servers.push(theirs, ours);
  if (place.available) pinSelf(1);
  const [theirService, ourService] = [
    await prepareService(theirs.url, adminKey),
    await prepareService(ours.url, adminKey),
  ];
  const rows = [["scenario", `${ref} CPU µs`, "this tree CPU µs", "this tree ÷ ref", "failed"]];
  for (const scenario of scenarios) {
    const sides = [
      { server: theirs, prepared: theirService, cpu: [] as number[], failures: 0 },
      { server: ours, prepared: ourService, cpu: [] as number[], failures: 0 },
    ];
    for (const side of sides) await drive(side.server, scenario, side.prepared.keys, 1, connections);
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        await side.prepared.nextRound();
        const result = await drive(side.server, scenario, side.prepared.keys, seconds, connections);
        side.cpu.push(result.cpuMicrosPerRequest);
        side.failures += result.failures;
      }
    }
    const [them, us] = sides as [(typeof sides)[0], (typeof sides)[0]];
    const ratios = us.cpu.map((cpu, i) => cpu / them.cpu[i]!);
    const { min, max } = spread(ratios);
    rows.push([
      scenario.name,
      median(them.cpu).toFixed(0),
      median(us.cpu).toFixed(0),
      `${median(ratios).toFixed(2)} (${min.toFixed(2)}–${max.toFixed(2)})`,
      String(them.failures + us.failures),
    ]);
  }
  process.stdout.write(
    `${rounds} alternating rounds × ${seconds} s, ${connections} connections; ${ref} is ${commit.slice(0, 7)}\n${table(rows)}\n`,
  );
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  git("worktree", "remove", "--force", other);
  rmSync(join(other, ".."), { recursive: true, force: true });
}
