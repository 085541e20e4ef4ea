/**
 * Benchmarks, reported as ratios against baselines measured in the same run (never absolute targets):
 *  1. a keyed GET through the whole app (admission, permission, use case, JSON) vs a bare h3 route answering
 *     the same JSON: what the service adds per request;
 *  2. the admission step vs its irreducible work (one SHA-256 of the key + one rate-limiter call);
 *  3. heap after many requests vs before: the in-memory stores must not grow per read request.
 * Run: npm run bench  (BENCH_SECONDS=1 per round by default)
 */
import { H3 } from "h3";
import { startTestPetstore } from "../test/support/test-petstore.ts";
import { NodeSecrets } from "../adapters/crypto/node-secrets.ts";
import { windowsAt } from "../core/rate-limiting/windows.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 1);
const rounds = 5;

const roundOf = async (fn: () => Promise<unknown>): Promise<number> => {
  let ops = 0;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 100; i++) await fn();
    ops += 100;
  }
  return ops / seconds;
};

const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Baseline and subject in alternating rounds, so drift (JIT, GC, a busy neighbour) touches both alike. */
const compare = async (baseline: () => Promise<unknown>, subject: () => Promise<unknown>) => {
  for (let i = 0; i < 2_000; i++) {
    await baseline(); // warm up both
    await subject();
  }
  const b: number[] = [];
  const s: number[] = [];
  for (let r = 0; r < rounds; r++) {
    b.push(await roundOf(baseline));
    s.push(await roundOf(subject));
  }
  return { baseline: median(b), subject: median(s) };
};

const t = await startTestPetstore({ env: { PETSTORE_LOG_LEVEL: "silent" } });
const key = await t.newKey("customer", "enterprise", { perMinute: 1_000_000, perDay: 1_000_000_000 });
const staff = await t.newKey("staff");
await t.client.post("/categories", { key: staff, body: { name: "Dogs" } });
await t.client.post("/pets", { key: staff, body: { name: "Rex", categoryId: 1 } });
const petRequest = () => new Request("http://bench/pets?ids=1", { headers: { "x-api-key": key } });

const bare = new H3();
const petJson = JSON.stringify([{ id: 1, name: "Rex", categoryId: 1, status: "available" }]);
bare.get("/pets", () => new Response(petJson, { headers: { "content-type": "application/json; charset=utf-8" } }));

const http = await compare(
  async () => (await bare.fetch(petRequest())).text(),
  async () => (await t.petstore.app.fetch(petRequest())).text(),
);

const secrets = new NodeSecrets();
const limits = { perMinute: 1_000_000, perDay: 1_000_000_000 };
const admit = t.petstore.useCases.admitRequest;
const admission = await compare(
  async () => {
    secrets.hash(key);
    const { minute, day } = windowsAt(t.clock.now(), limits);
    await t.stores.limiter.consume("bench", minute, day);
  },
  () => admit.execute({ secret: key, address: "127.0.0.1", keyRequired: true }),
);

globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
for (let i = 0; i < 50_000; i++) await (await t.petstore.app.fetch(petRequest())).text();
globalThis.gc?.();
const heapAfter = process.memoryUsage().heapUsed;

const row = (name: string, value: number, baseline: number) =>
  `${name.padEnd(52)} ${value.toFixed(0).padStart(10)} ops/s   baseline ${baseline.toFixed(0).padStart(10)} ops/s   ratio ${(value / baseline).toFixed(2)}`;
process.stdout.write(
  [
    `petstore benchmarks (median of ${rounds} rounds of ${seconds}s, Node ${process.versions.node})`,
    row("GET /pets?ids=1 through the whole app", http.subject, http.baseline),
    row("admission (key look-up, ban check, limiter)", admission.subject, admission.baseline),
    `heap after 50,000 keyed reads / before: ${(heapAfter / heapBefore).toFixed(2)} (${(heapBefore / 2 ** 20).toFixed(1)} MiB → ${(heapAfter / 2 ** 20).toFixed(1)} MiB${globalThis.gc ? "" : ", without --expose-gc"})`,
    "",
  ].join("\n"),
);
await t.close();
