import { createHash } from "node:crypto";
import { MemoryOutbox } from "../../adapters/memory/memory-outbox.ts";
import type { MemoryOrders } from "../../adapters/memory/memory-orders.repository.ts";
import type { MemoryPets } from "../../adapters/memory/memory-pets.repository.ts";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { webhookEventTypes } from "../../core/webhooks/webhook-event.ts";
import { checkWorld, SUBSCRIBER, type SimViolation } from "./checks.ts";
import { Engine, GRACE_MS, type FaultRates, type StoreUnderTest } from "./engine.ts";
import { Random } from "./random.ts";
import { useCasesOn, Workload } from "./workload.ts";

export interface SimResult {
  seed: number;
  /** Steps overridden to run plainly (a shrunk schedule). */
  calm?: ReadonlySet<number> | undefined;
  violations: SimViolation[];
  trace: string[];
  /** sha256 of the trace: equal for two runs of one seed. */
  hash: string;
  steps: number;
  crashes: number;
}

/** How a store family is opened for one schedule: fresh and empty. */
export type StoreFamily = (seed: number) => Promise<StoreUnderTest & { close(): Promise<void> }>;

export const memoryFamily: StoreFamily = async () => {
  const raw = createMemoryStores();
  // A second outbox over the same documents: reading it leaves the relays' own batch bookkeeping alone.
  const observer = new MemoryOutbox(raw.pets as MemoryPets, raw.orders as MemoryOrders);
  return { raw, pendingEvents: () => observer.pending(100_000), close: async () => {} };
};

const LEVELS = [0, 0, 0.004, 0.015, 0.04];

/**
 * Swarm testing: each seed draws its own mix of faults, so some schedules are calm and others hostile. Late copies
 * are drawn from a stream of their own, so the other draws of a seed are what they were before late copies existed.
 */
const ratesFor = (random: Random, late: Random, crashFactor: number, lateFactor: number): FaultRates => ({
  "throw-before": random.pick(LEVELS),
  "throw-after": random.pick(LEVELS),
  twice: random.pick(LEVELS),
  "crash-before": (random.pick(LEVELS) / 2) * crashFactor,
  "crash-after": (random.pick(LEVELS) / 2) * crashFactor,
  "stall-before": random.pick(LEVELS) / 2,
  "stall-after": random.pick(LEVELS) / 2,
  jump: random.pick(LEVELS),
  "again-later": late.pick(LEVELS) * lateFactor,
  "arrive-later": (late.pick(LEVELS) / 2) * lateFactor,
});

export const replayCommand = (seed: number, calm?: ReadonlySet<number>): string =>
  `npm run simulate -- --seed ${seed}${calm && calm.size > 0 ? ` --calm ${[...calm].sort((a, b) => a - b).join(",")}` : ""} --verbose`;

/** One schedule: set-up, the scheduled workload, recovery and relay to the end, then every check. */
export const runSeed = async (
  seed: number,
  family: StoreFamily = memoryFamily,
  calm?: ReadonlySet<number>,
): Promise<SimResult> => {
  const store = await family(seed);
  try {
    const setup = new Random(seed ^ 0x5eed);
    const engine = new Engine(store, {
      seed,
      rates: ratesFor(setup, new Random(seed ^ 0x1a7e), store.scale?.crashFactor ?? 1, store.scale?.lateFactor ?? 1),
      maxCrashes: 3 * (store.scale?.crashFactor ?? 1),
      maxSteps: 5_000,
      calm,
    });
    // The world before the clients come: three categories (the last empty) and three pets with some stock.
    const direct = useCasesOn(engine.instance("setup", 0).stores, engine);
    // A webhook subscriber to every event: each relayed event must be fanned out to it once.
    await store.raw.webhooks.add({
      id: SUBSCRIBER,
      url: "https://hooks.example/simulation",
      events: [...webhookEventTypes],
      description: undefined,
      secrets: [{ value: "simulation-secret-0123456789abcdef", expiresAt: undefined }],
      createdAt: engine.clock.now(),
    });
    const categories: number[] = [];
    for (const name of ["Dogs", "Cats", "Fish"]) categories.push((await direct.createCategory.execute({ name })).id);
    const pets: number[] = [];
    for (let i = 0; i < 3; i++) {
      const pet = await direct.createPet.execute({ name: `pet ${i + 1}`, categoryId: categories[i % 2]! });
      pets.push(pet.id);
      const stock = setup.between(0, 4);
      if (stock > 0) await direct.setInventory.execute(pet.id, stock);
    }
    await direct.relay.execute();
    const workload = new Workload(engine, pets, categories, store.scale?.relaySeconds ?? 5);
    const clients = setup.between(2, store.scale?.maxClients ?? 6);
    engine.note(`seed ${seed}: ${clients} clients; stock ${JSON.stringify([...engine.observed.given])}`);
    await engine.schedule(() => workload.begin(clients));

    // Every process stops; one last instance finishes what is left, past every grace period.
    const last = useCasesOn(engine.instance("final", 0).stores, engine);
    for (let i = 0; i < 10; i++) {
      engine.clock.advance(GRACE_MS + 1000);
      const report = await last.recover.execute();
      let relayed = 0;
      while ((await last.relay.execute()) > 0) relayed += 1;
      const done = Object.entries(report).filter(([, n]) => n > 0);
      engine.note(`final recovery: ${done.map(([what, n]) => `${what} ${n}`).join(", ") || "nothing to do"}`);
      if (Object.values(report).every((n) => n === 0) && relayed === 0) break;
    }
    const violations = await checkWorld(
      store.raw,
      workload.ledger,
      engine.observed,
      store.loggedEvents && (() => store.loggedEvents!()),
    );
    if (engine.stepsLimitHit)
      violations.push({ rule: "left-unfinished", message: "the schedule did not end within its step limit" });
    const hash = createHash("sha256").update(engine.trace.join("\n")).digest("hex").slice(0, 16);
    return { seed, calm, violations, trace: engine.trace, hash, steps: engine.steps, crashes: engine.crashes };
  } finally {
    await store.close();
  }
};

/** The report of a failed seed: its violations and the command that replays it. */
export const describeFailure = (result: SimResult): string =>
  [
    `seed ${result.seed} failed (${result.steps} steps, ${result.crashes} crashes, trace ${result.hash}):`,
    ...result.violations.map((v) => `  ${v.rule}: ${v.message}`),
    `  replay: ${replayCommand(result.seed, result.calm)}`,
  ].join("\n");

const FAULTED =
  / (throw-before|throw-after|twice|crash-before|crash-after|stall-before|stall-after|again-later|arrive-later|jump)$/;

/**
 * Shrinks a failing schedule: turns its faults into plain runs one at a time, latest first, keeping each change
 * after which a rule it broke still breaks; stops when no single fault can go. The result replays with --calm.
 */
export const shrink = async (failed: SimResult, family: StoreFamily = memoryFamily): Promise<SimResult> => {
  const rules = new Set(failed.violations.map((v) => v.rule));
  let best = failed;
  const calm = new Set(failed.calm);
  for (let rounds = 0; rounds < 200; rounds++) {
    const faulted = best.trace
      .filter((line) => FAULTED.test(line))
      .map((line) => Number(line.split(" ", 1)[0]))
      .filter((step) => !calm.has(step))
      .reverse();
    let smaller: SimResult | undefined;
    for (const step of faulted) {
      const tried = new Set([...calm, step]);
      const result = await runSeed(failed.seed, family, tried);
      if (result.violations.some((v) => rules.has(v.rule))) {
        smaller = result;
        calm.add(step);
        break;
      }
    }
    if (!smaller) break;
    best = smaller;
  }
  // Only the steps whose fault was calmed in the end matter to the replay.
  const needed = new Set(
    best.trace.filter((line) => line.includes("(calmed: ")).map((line) => Number(line.split(" ", 1)[0])),
  );
  return { ...best, calm: needed };
};
