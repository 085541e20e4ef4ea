/**
 * npm run simulate -- [--seeds N] [--from S] [--seed S] [--verbose] [--mongo mongodb://host:port/]
 * Runs N schedules from seed S (default 1000 from 1), or one seed; prints each failure with its replay command and
 * exits 1 if any failed. --verbose prints the trace of every seed run; --stop-at-first stops at the first failure and
 * says how many schedules it took (how a reverted fix is measured); --shrink turns every fault a failure does not
 * need into a plain run and prints the smaller schedule's replay (--calm lists those steps).
 */
import { parseArgs } from "node:util";
import { MongoClient } from "mongodb";
import { mongoFamily } from "./mongo-family.ts";
import { describeFailure, memoryFamily, runSeed, shrink } from "./simulate.ts";

const { values } = parseArgs({
  options: {
    seeds: { type: "string" },
    from: { type: "string" },
    seed: { type: "string" },
    verbose: { type: "boolean", default: false },
    mongo: { type: "string" },
    "stop-at-first": { type: "boolean", default: false },
    calm: { type: "string" },
    rules: { type: "string" },
    shrink: { type: "boolean", default: false },
    "keep-going": { type: "boolean", default: true },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  console.log(`npm run simulate -- [--seeds N] [--from S] [--seed S] [--verbose] [--mongo mongodb://host:port/]
  --seeds N          schedules to run (default 1000), from --from S (default 1); --seed S runs one
  --verbose          print the trace of every schedule run
  --mongo URL        the MongoDB adapters, faults injected below them, in a database of their own
  --stop-at-first    stop at the first failure and say how many schedules it took
  --shrink           turn every fault a failure does not need into a plain run; print the smaller replay
  --calm a,b         steps to run without their fault (as --shrink prints)
  --rules a,b        only these rules count as failures
Exits 1 if any schedule failed.`);
  process.exit(0);
}

const integer = (text: string | undefined, fallback: number, name: string): number => {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, not ${text}`);
  return n;
};

const from = integer(values.seed ?? values.from, 1, values.seed === undefined ? "from" : "seed");
const count = values.seed === undefined ? integer(values.seeds, 1000, "seeds") : 1;
// --mongo mongodb://…: the MongoDB adapters, faults injected below them, in a database of its own (dropped after).
const client = values.mongo === undefined ? undefined : await new MongoClient(values.mongo).connect();
const db = client?.db(`petstore_sim_${process.pid}`);
const family = db ? mongoFamily(db) : memoryFamily;
// --rules a,b: only these rules count (to see when one bug shows while others are still open).
const only = values.rules === undefined ? undefined : new Set(values.rules.split(","));
const started = performance.now();
let failed = 0;
let ran = 0;
const byRule = new Map<string, number>();
for (let seed = from; seed < from + count; seed++) {
  const calm = values.calm === undefined ? undefined : new Set(values.calm.split(",").map(Number));
  let result = await runSeed(seed, family, calm);
  if (only) result = { ...result, violations: result.violations.filter((v) => only.has(v.rule)) };
  ran += 1;
  if (values.shrink && result.violations.length > 0) result = await shrink(result, family);
  if (values.verbose) console.log(result.trace.join("\n"));
  if (result.violations.length > 0) {
    failed += 1;
    for (const rule of new Set(result.violations.map((v) => v.rule))) byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
    if (failed <= 20 || values.verbose) console.log(describeFailure(result));
    if (values["stop-at-first"]) {
      console.log(`first failure after ${ran} schedules`);
      break;
    }
  } else if (values.verbose) console.log(`seed ${seed} passed (trace ${result.hash})`);
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `${ran} schedules from seed ${from}: ${failed} failed in ${seconds} s${
    byRule.size > 0 ? ` (${[...byRule].map(([rule, n]) => `${rule} ×${n}`).join(", ")})` : ""
  }`,
);
await db?.dropDatabase();
await client?.close();
process.exitCode = failed > 0 ? 1 : 0;
