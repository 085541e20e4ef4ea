/**
 * More kill -9 rounds than CI runs (test/e2e/kill-9.test.ts runs one):
 *
 *   npm run chaos -- --rounds 20 [--clients 50] [--pets 3] [--limit-seconds 10]
 *
 * Each round: a service process on MongoDB under 50 clients placing and cancelling orders, SIGKILL at a random
 * moment, a restart, then the invariants polled until they hold. Prints one line per round and a summary; exits 1
 * when any round did not recover within the limit. Uses MONGODB_URL, or starts the test server the way `npm test`
 * does (Docker and the test image; see docs/operations.md and test/support/mongo-global-setup.ts).
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
try {
  console.log(
    `${rounds} rounds, ${clients} clients, ${pets} pets, recovery limit ${limitMs / 1000} s, env ${JSON.stringify(FAST_RECOVERY_ENV)}`,
  );
  for (let round = 1; round <= rounds; round++) {
    const r = await killRound({ mongoUrl, clients, pets, recoveryLimitMs: limitMs, env: FAST_RECOVERY_ENV });
    results.push(r);
    const verdict =
      r.recoveredMs === undefined
        ? `NOT RECOVERED: ${r.problems.join(" | ")}`
        : `invariants held ${r.recoveredMs} ms after it listened (${r.sinceSpawnMs} ms after the restart began)`;
    console.log(
      `round ${round}: killed at ${r.killedAfterMs} ms (${r.placed} placed, ${r.cancelled} cancelled, ${r.cutOff} cut off); ` +
        `restart ${r.startMs} ms; recovery logged ${JSON.stringify(r.recovered)}; at the first check ${r.problemsAtRestart} problem(s) and ` +
        `${r.unitsMissingAtRestart} units missing, at the end ${r.unitsMissing}; ${verdict}`,
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
    `${results.filter((r) => r.problemsAtRestart > 0).length} needed recovery after the restart; ` +
    `units missing at the end: ${results.reduce((sum, r) => sum + r.unitsMissing, 0)} in all` +
    (recovered.length
      ? `; from the restart until the invariants held: median ${at(0.5)} ms, max ${recovered.at(-1)} ms`
      : "") +
    `; rounds where recovery did work: ${results.filter((r) => Object.keys(r.recovered).length > 0).length}`,
);
process.exit(recovered.length === results.length ? 0 : 1);
