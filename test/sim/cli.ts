/**
 * npm run simulate -- [--seeds N] [--from S] [--seed S] [--verbose]
 * Runs N schedules from seed S (default 1000 from 1), or one seed; prints each failure with its replay command and
 * exits 1 if any failed. --verbose prints the trace of every seed run.
 */
import { parseArgs } from "node:util";
import { describeFailure, runSeed } from "./simulate.ts";

const { values } = parseArgs({
  options: {
    seeds: { type: "string" },
    from: { type: "string" },
    seed: { type: "string" },
    verbose: { type: "boolean", default: false },
    "keep-going": { type: "boolean", default: true },
  },
});

const integer = (text: string | undefined, fallback: number, name: string): number => {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, not ${text}`);
  return n;
};

const from = integer(values.seed ?? values.from, 1, values.seed === undefined ? "from" : "seed");
const count = values.seed === undefined ? integer(values.seeds, 1000, "seeds") : 1;
const started = performance.now();
let failed = 0;
const byRule = new Map<string, number>();
for (let seed = from; seed < from + count; seed++) {
  const result = await runSeed(seed);
  if (values.verbose) console.log(result.trace.join("\n"));
  if (result.violations.length > 0) {
    failed += 1;
    for (const rule of new Set(result.violations.map((v) => v.rule))) byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
    if (failed <= 20 || values.verbose) console.log(describeFailure(result));
  } else if (values.verbose) console.log(`seed ${seed} passed (trace ${result.hash})`);
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `${count} schedules from seed ${from}: ${failed} failed in ${seconds} s${
    byRule.size > 0 ? ` (${[...byRule].map(([rule, n]) => `${rule} ×${n}`).join(", ")})` : ""
  }`,
);
process.exitCode = failed > 0 ? 1 : 0;
