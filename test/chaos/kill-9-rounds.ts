/**
 * More kill -9 rounds than CI runs (test/e2e/kill-9.test.ts runs one with one instance and one with two):
 *
 *   npm run chaos -- --rounds 20 [--instances 1|2|both] [--clients 50] [--pets 3] [--limit-seconds 10]
 *                    [--pauses 10 --engine-container NAME [--pause-seconds 5]]
 *
 * Each round: one or two service processes on MongoDB under 50 clients placing and cancelling orders, SIGKILL of
 * one at a random moment, a restart, then the invariants polled until they hold, through the API and on the stored
 * documents and the event log (test/support/invariants.ts). With `--pauses`, that many more rounds (two instances)
 * pause the engine's Docker container for longer than the recovery grace instead of killing. Prints one line per
 * round and a summary (rounds with violations, events lost); exits 1 when any round did not recover within the limit.
 * Uses MONGODB_URL, or starts the test server the way `npm test` does (Docker and the test image; see
 * docs/operations.md and test/support/mongo-global-setup.ts); pauses need MONGODB_URL and the engine's container.
 */
import { parseArgs } from "node:util";
import type { TestProject } from "vitest/node";
import { FAST_RECOVERY_ENV, killRound, type KillRoundResult } from "../support/kill-round.ts";
import startTestMongo from "../support/mongo-global-setup.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    clients: { type: "string", default: "50" },
    pets: { type: "string", default: "3" },
    "limit-seconds": { type: "string", default: "10" },
    instances: { type: "string", default: "1" },
    pauses: { type: "string", default: "0" },
    "pause-seconds": { type: "string", default: "5" },
    "engine-container": { type: "string" },
  },
});
const whole = (name: keyof typeof values, min: number, max: number): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`--${name} must be a whole number from ${min} to ${max} (got ${values[name]})`);
    process.exit(2);
  }
  return n;
};
const rounds = whole("rounds", 1, 1_000);
const clients = whole("clients", 1, 200);
const pets = whole("pets", 1, 20);
const limitMs = whole("limit-seconds", 1, 600) * 1000;
const pauses = whole("pauses", 0, 1_000);
const pauseMs = whole("pause-seconds", 1, 120) * 1000;
if (!["1", "2", "both"].includes(values.instances)) {
  console.error(`--instances must be 1, 2 or both (got ${values.instances})`);
  process.exit(2);
}
const container = values["engine-container"];
if (pauses > 0 && (!container || !process.env.MONGODB_URL)) {
  console.error("--pauses needs MONGODB_URL and --engine-container (the engine's Docker container)");
  process.exit(2);
}
const instancesOf = (round: number): 1 | 2 =>
  values.instances === "both" ? (round % 2 === 1 ? 1 : 2) : values.instances === "2" ? 2 : 1;

let mongoUrl = process.env.MONGODB_URL?.trim() ?? "";
let stopMongo: (() => Promise<void>) | undefined;
if (!mongoUrl) {
  const provided: Record<string, string> = {};
  const project = { provide: (key: string, value: string) => (provided[key] = value) } as unknown as TestProject;
  stopMongo = (await startTestMongo(project)) ?? undefined;
  if (!provided.mongoUrl) {
    console.error(`No MongoDB: ${provided.mongoUnavailable}. Set MONGODB_URL or start Docker.`);
    process.exit(2);
  }
  mongoUrl = provided.mongoUrl;
}

const results: KillRoundResult[] = [];
const aborted: string[] = [];
try {
  console.log(
    `${rounds} kill rounds (instances: ${values.instances}) and ${pauses} engine pauses of ${pauseMs / 1000} s, ${clients} clients, ${pets} pets, recovery limit ${limitMs / 1000} s, env ${JSON.stringify(FAST_RECOVERY_ENV)}`,
  );
  // Pause rounds are spread among the kill rounds, so a run cut short has played some of each.
  const every = pauses > 0 ? Math.max(1, Math.floor((rounds + pauses) / pauses)) : 0;
  let paused = 0;
  for (let round = 1; round <= rounds + pauses; round++) {
    const pausing = paused < pauses && (round % every === 0 || round - paused > rounds);
    const instances = pausing ? 2 : instancesOf(round);
    let r: KillRoundResult;
    try {
      r = await killRound({
        mongoUrl,
        clients,
        pets,
        recoveryLimitMs: limitMs,
        // A loaded machine may keep a new database's start-up waiting long; requests in flight then stall through a
        // pause of the engine rather than fail, and resume after recovery acted (what the pause rounds are for).
        env: { ...FAST_RECOVERY_ENV, MONGODB_TIMEOUT_MS: "30000" },
        instances,
        ...(pausing && container && { pauseEngine: { container, ms: pauseMs } }),
      });
    } catch (error) {
      // The round could not be played (a process that did not start): it proves nothing either way, so it is run again.
      aborted.push(`round ${round}: ${String(error).split("\n").slice(0, 2).join(" ")}`);
      console.log(`round ${round} not played, run again: ${aborted.at(-1)}`);
      if (aborted.length > 20) throw new Error("more than 20 rounds could not be played", { cause: error });
      round--;
      continue;
    }
    results.push(r);
    if (pausing) paused++;
    const verdict =
      r.recoveredMs === undefined
        ? `NOT RECOVERED: ${r.problems.join(" | ")}`
        : `invariants held ${r.recoveredMs} ms after it listened (${r.sinceSpawnMs} ms after the restart began)`;
    console.log(
      `round ${round} (${pausing ? `engine paused ${pauseMs / 1000} s` : "kill -9"}, ${instances} instance${instances === 1 ? "" : "s"}): at ${r.killedAfterMs} ms (${r.placed} placed, ${r.cancelled} cancelled, ${r.cutOff} cut off); ` +
        `restart ${r.startMs} ms; recovery logged ${JSON.stringify(r.recovered)}; at the first check ${r.problemsAtRestart} problem(s) and ` +
        `${r.unitsMissingAtRestart} units missing, at the end ${r.unitsMissing}, events lost ${r.eventsLost}; ${verdict}`,
    );
  }
} finally {
  await stopMongo?.();
}

const recovered = results
  .map((r) => r.sinceSpawnMs)
  .filter((ms): ms is number => ms !== undefined)
  .sort((a, b) => a - b);
const at = (q: number) => recovered[Math.min(recovered.length - 1, Math.floor(q * recovered.length))];
console.log(
  `summary: ${recovered.length}/${results.length} rounds recovered within ${limitMs / 1000} s; ` +
    `rounds with violations at the end: ${results.filter((r) => r.problems.length > 0).length}; ` +
    `events lost: ${results.reduce((sum, r) => sum + r.eventsLost, 0)}; ` +
    `rounds not played (run again): ${aborted.length}; ` +
    `${results.filter((r) => r.problemsAtRestart > 0).length} needed recovery after the restart; ` +
    `units missing at the end: ${results.reduce((sum, r) => sum + r.unitsMissing, 0)} in all` +
    (recovered.length
      ? `; from the restart until the invariants held: median ${at(0.5)} ms, max ${recovered.at(-1)} ms`
      : "") +
    `; rounds where recovery did work: ${results.filter((r) => Object.keys(r.recovered).length > 0).length}`,
);
process.exit(recovered.length === results.length ? 0 : 1);
