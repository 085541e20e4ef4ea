import { AsyncLocalStorage } from "node:async_hooks";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { OrderRecord } from "../../core/orders/order-record.ts";
import type { Stores } from "../../core/stores.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { Random } from "./random.ts";

/** A failure the simulation injected (what a driver error or a lost connection looks like to core). */
export class InjectedFault extends Error {
  constructor(kind: string, where: string) {
    super(`injected ${kind} at ${where}`);
    this.name = "InjectedFault";
  }
}

/** What the seed decides at one store call. */
export type Decision =
  | "run"
  | "throw-before"
  | "throw-after"
  | "twice"
  | "crash-before"
  | "crash-after"
  | "stall-before"
  | "stall-after"
  | "again-later"
  | "arrive-later"
  | "jump";

/** How often each decision is taken, per store call (the rest run plainly): drawn per seed, so some seeds are calm. */
export type FaultRates = Record<Exclude<Decision, "run">, number>;

/** Who is calling: set by the workload around each request, read at every store call. */
export interface CallContext {
  actor: string;
  /** One per request: which writes it made is how "answered 503 but placed" is found. */
  attempt: number;
}

export const context = new AsyncLocalStorage<CallContext>();

/** One process of the service: its own use cases and caches over the shared store; it dies at a crash. */
export interface Instance {
  name: string;
  generation: number;
  alive: boolean;
  /** Resolves when it crashes; never otherwise. */
  crashed: Promise<"crashed">;
  stores: Stores;
}

interface Call {
  seq: number;
  instance: Instance;
  actor: string;
  where: string;
  invoke: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  releaseAt?: number;
  /** Set once a stalled-after call has applied: the answer it will get. */
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

/** A copy of a write in the network, landing at `releaseAt` whoever sent it. */
interface Copy {
  seq: number;
  releaseAt: number;
  what: string;
  land: () => Promise<unknown>;
}

interface Sleeper {
  seq: number;
  instance: { alive: boolean };
  wakeAt: number;
  resolve: () => void;
}

/** What the engine reports to the checks about every store call that reached the store. */
export interface Observations {
  /** Per pet: the net units staff gave it (sum of every applied stock setting's change). */
  given: Map<number, number>;
  /** Every event seen pending on a document, by id: each must reach the event log once. */
  pendingSeen: Map<string, DomainEvent>;
  /** Order inserts that applied, by the attempt that made them. */
  insertedBy: Map<number, number[]>;
  /** Highest id handed out, per kind. */
  maxId: Map<string, number>;
  /**
   * Writes of the pet and order ports whose copy applied after the write had applied, and late copies that made an
   * event the relay had taken pending again (each must be refused).
   */
  appliedAgain: string[];
}

/** A fault the store family applies below the adapters (between them and the driver), at its `at`-th driver call. */
export type DriverFault =
  "throw-before" | "throw-after" | "twice" | "crash-before" | "crash-after" | "again-later" | "arrive-later";

/** A copy of a write the network delivers later: it lands at some later step, whoever sent it and whatever became of them. */
export type Later = (where: string, land: () => Promise<unknown>, stockSettingOf?: number) => void;

export interface ArmedFault {
  /** Resolves when a crash fault fired: the port call it was in never settles. */
  crashed: Promise<"crashed">;
  /** Takes the fault back; true when it fired. */
  disarm(): boolean;
}

/** The store under test, as the engine needs it: raw ports, and a way to see pending events without disturbing relays. */
export interface StoreUnderTest {
  raw: Stores;
  /** Every event pending on a pet or order document (side-effect free). */
  pendingEvents(): Promise<DomainEvent[]>;
  /** Every event in the event log (default: read through `raw.eventLog`). */
  loggedEvents?(): Promise<DomainEvent[]>;
  /** One instance's own adapters (default: the raw ports, shared). */
  instanceStores?(): Stores;
  /** Faults below the adapters; without it they are applied at the port call. */
  arm?(fault: DriverFault, at: number, note: (line: string) => void, later: Later): ArmedFault;
  /** A process's start-up code before it serves (migrations): one scheduling point. */
  startUp?(): Promise<void>;
  /**
   * How many clients at most, the relay's greatest interval in seconds (fewer round trips on a slow store), and how
   * much likelier crashes are (few schedules must still restart instances often, start-up code included), and late
   * copies (few schedules, and a fault lands on one driver call of a port call: late copies must still land often).
   */
  scale?: { maxClients: number; relaySeconds: number; crashFactor: number; lateFactor?: number };
}

const never = new Promise<never>(() => {});
const WRITES_OBSERVED = new Set(["pets", "orders"]);
/** Calls of those ports that only read: no event can appear through them. */
const READS = new Set(["ofId", "list", "settlingBefore", "provisional", "withMarks", "anyNaming"]);
/** Writes whose copies the network may deliver late ("again-later", "arrive-later"): those of the pet and order ports. */
const lateCopyOf = (where: string): boolean => {
  const [port, method] = where.split(".") as [string, string];
  return WRITES_OBSERVED.has(port) && !READS.has(method);
};
/** A write of the pet or order port that changed something: `{ applied: true }`, or true (an insert, a removal). */
const appliedWrite = (result: unknown): boolean =>
  result === true ||
  (typeof result === "object" && result !== null && (result as { applied?: unknown }).applied === true);

/** Which pet or order a write is about, for the report. */
const subjectOf = (port: string, arg: unknown): string => {
  const { petId, orderId, id } = (typeof arg === "object" && arg !== null ? arg : {}) as Record<string, unknown>;
  const ofPort = port === "orders" ? (orderId ?? id) : (petId ?? id);
  return `${port === "orders" ? "order" : "pet"} ${String(typeof arg === "number" ? arg : ofPort)}`;
};

export const GRACE_MS = 30_000;

export interface EngineOptions {
  seed: number;
  rates: FaultRates;
  maxCrashes: number;
  maxSteps: number;
  /** Steps whose decision is overridden to "run" (the seed's draw is still taken): how a schedule is shrunk. */
  calm?: ReadonlySet<number> | undefined;
}

/**
 * The scheduler: every store call of a simulated instance parks at a gate; one at a time, the seed picks a parked
 * call and what happens to it. Between two picks every actor is parked, asleep, or dead, so the run is a function
 * of the seed alone.
 */
export class Engine {
  readonly clock = new ManualClock("2026-11-21T12:00:00.000Z");
  readonly random: Random;
  readonly trace: string[] = [];
  readonly observed: Observations = {
    given: new Map(),
    pendingSeen: new Map(),
    insertedBy: new Map(),
    maxId: new Map(),
    appliedAgain: [],
  };
  readonly #store: StoreUnderTest;
  readonly #options: EngineOptions;
  #ready: Call[] = [];
  #stalled: Call[] = [];
  #copies: Copy[] = [];
  #sleepers: Sleeper[] = [];
  #seq = 0;
  readonly #deaths = new Map<Instance, () => void>();
  #crashes = 0;
  /** Outside a schedule (set-up, final recovery, checks) calls go straight to the store, still observed. */
  #direct = true;
  steps = 0;
  stepsLimitHit = false;

  constructor(store: StoreUnderTest, options: EngineOptions) {
    this.#store = store;
    this.#options = options;
    this.random = new Random(options.seed);
  }

  get crashes(): number {
    return this.#crashes;
  }

  note(line: string): void {
    this.trace.push(`${this.steps} ${line}`);
  }

  /** A new instance (generation) over the shared store, whose ports park at the gates. */
  instance(name: string, generation: number): Instance {
    let died: (value: "crashed") => void = () => {};
    const crashed = new Promise<"crashed">((resolve) => {
      died = resolve;
    });
    const instance: Instance = { name, generation, alive: true, crashed, stores: undefined as unknown as Stores };
    this.#deaths.set(instance, () => died("crashed"));
    const raw = (this.#store.instanceStores?.() ?? this.#store.raw) as unknown as Record<string, unknown>;
    const stores: Record<string, unknown> = { ...raw };
    for (const [port, target] of Object.entries(raw)) {
      if (typeof target !== "object" || target === null) continue;
      stores[port] = new Proxy(target, {
        get: (t, property, receiver) => {
          const value = Reflect.get(t, property, receiver) as unknown;
          if (typeof value !== "function") return value;
          return (...args: unknown[]) =>
            this.#call(instance, port, String(property), args, () =>
              (value as (...a: unknown[]) => Promise<unknown>).apply(t, args),
            );
        },
      });
    }
    instance.stores = stores as unknown as Stores;
    return instance;
  }

  /** The family's start-up code (migrations) on a (re)started instance: one call at a gate, faults included. */
  startUp(instance: Instance): Promise<unknown> {
    const startUp = this.#store.startUp;
    if (!startUp) return Promise.resolve();
    return this.#call(instance, "start-up", "migrations", [], () => startUp());
  }

  /** Resolves after `ms` of simulated time (never, if the instance dies first). */
  sleep(instance: { alive: boolean }, ms: number): Promise<void> {
    if (!instance.alive) return never;
    return new Promise((resolve) => {
      this.#sleepers.push({ seq: this.#seq++, instance, wakeAt: this.clock.now().getTime() + ms, resolve });
    });
  }

  #call(instance: Instance, port: string, method: string, args: unknown[], invoke: () => Promise<unknown>) {
    const where = `${port}.${method}`;
    const caller = context.getStore();
    if (this.#direct) return this.#observed(port, method, args, invoke, caller?.attempt);
    if (!instance.alive) return never;
    const actor = caller?.actor ?? "?";
    // Every copy of this one write ("twice", "again later"): once it applied, each further copy must be refused.
    let applied = 0;
    const copy = async () => {
      const result = await this.#observed(port, method, args, invoke, caller?.attempt);
      if (WRITES_OBSERVED.has(port) && !READS.has(method) && appliedWrite(result) && ++applied > 1)
        this.observed.appliedAgain.push(`a copy of ${actor}'s ${where} of ${subjectOf(port, args[0])} applied again`);
      return result;
    };
    return new Promise((resolve, reject) => {
      this.#ready.push({
        seq: this.#seq++,
        instance,
        actor,
        where,
        invoke: copy,
        resolve,
        reject,
      });
    });
  }

  /** What the call in progress still has to record if it never returns (its instance crashed inside it). */
  #unfinished: (() => Promise<void>) | undefined;

  /** Runs a call against the store, recording what the checks need (stock given, events, inserts, ids). */
  async #observed(
    port: string,
    method: string,
    args: unknown[],
    invoke: () => Promise<unknown>,
    attempt: number | undefined,
  ): Promise<unknown> {
    const raw = this.#store.raw;
    const petId = port === "pets" && method === "setStock" ? (args[0] as { petId: number }).petId : undefined;
    const stockBefore = petId === undefined ? undefined : (await raw.pets.ofId(petId))?.stock;
    // Calls run one at a time, so any change of the stock between the two reads is this setting's.
    const record = async () => {
      this.#unfinished = undefined;
      if (petId !== undefined && stockBefore !== undefined) {
        const after = (await raw.pets.ofId(petId))?.stock;
        if (after !== undefined && after !== stockBefore)
          this.observed.given.set(petId, (this.observed.given.get(petId) ?? 0) + after - stockBefore);
      }
      if (WRITES_OBSERVED.has(port) && !READS.has(method)) await this.observePending();
    };
    this.#unfinished = record;
    let result: unknown;
    let failed: unknown;
    try {
      result = await invoke();
    } catch (error) {
      failed = error ?? new Error("undefined rejection");
    }
    if (failed === undefined) {
      if (port === "orders" && method === "insert" && result === true && attempt !== undefined) {
        const order = args[0] as OrderRecord;
        this.observed.insertedBy.set(attempt, [...(this.observed.insertedBy.get(attempt) ?? []), order.id]);
      }
      if (port === "ids" && method === "next") {
        const kind = String(args[0]);
        this.observed.maxId.set(kind, Math.max(this.observed.maxId.get(kind) ?? 0, Number(result)));
      }
    }
    await record();
    if (failed !== undefined) throw failed;
    return result;
  }

  async observePending(): Promise<void> {
    for (const event of await this.#store.pendingEvents()) this.observed.pendingSeen.set(event.id, event);
  }

  /** Runs `body` with calls going through the gates, and schedules until every actor is done, dead or stuck. */
  async schedule(start: () => void): Promise<void> {
    this.#direct = false;
    start();
    try {
      await this.#loop();
    } finally {
      this.#direct = true;
    }
  }

  /** Lets every runnable continuation run until it parks: only microtasks run between gates. */
  async #settle(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  #now(): number {
    return this.clock.now().getTime();
  }

  /** Wakes sleepers and releases stalled calls whose time has come, in the order they were parked. */
  async #releaseDue(): Promise<boolean> {
    const now = this.#now();
    let any = false;
    const due = this.#sleepers.filter((s) => s.wakeAt <= now).sort((a, b) => a.seq - b.seq);
    this.#sleepers = this.#sleepers.filter((s) => s.wakeAt > now);
    for (const sleeper of due) {
      any = true;
      if (sleeper.instance.alive) sleeper.resolve();
    }
    const landing = this.#copies.filter((c) => c.releaseAt <= now).sort((a, b) => a.seq - b.seq);
    this.#copies = this.#copies.filter((c) => c.releaseAt > now);
    for (const copy of landing) {
      any = true;
      this.note(`${copy.what} lands late`);
      await copy.land().catch(() => undefined);
    }
    const released = this.#stalled.filter((c) => c.releaseAt! <= now).sort((a, b) => a.seq - b.seq);
    this.#stalled = this.#stalled.filter((c) => c.releaseAt! > now);
    for (const call of released) {
      any = true;
      if (call.outcome) {
        this.note(`${call.actor} ${call.where} answer delivered late`);
        if (call.instance.alive) this.#deliver(call, call.outcome);
      } else if (call.instance.alive) {
        this.note(`${call.actor} ${call.where} resumes after its stall`);
        this.#ready.push(call);
      } else {
        // Its process is gone, but the write it had sent still lands.
        this.note(`${call.actor} ${call.where} lands after its instance died`);
        await call.invoke().catch(() => undefined);
      }
    }
    return any;
  }

  #deliver(call: Call, outcome: NonNullable<Call["outcome"]>): void {
    if (outcome.ok) call.resolve(outcome.value);
    else call.reject(outcome.error);
  }

  async #outcomeOf(call: Call): Promise<NonNullable<Call["outcome"]>> {
    try {
      return { ok: true, value: await call.invoke() };
    } catch (error) {
      return { ok: false, error };
    }
  }

  #decide(): Decision {
    const rates = this.#options.rates;
    let roll = this.random.next();
    for (const [decision, rate] of Object.entries(rates) as [Exclude<Decision, "run">, number][]) {
      if (roll < rate) {
        if ((decision === "crash-before" || decision === "crash-after") && this.#crashes >= this.#options.maxCrashes)
          return "run";
        return decision;
      }
      roll -= rate;
    }
    return "run";
  }

  /** Set by the workload: what a crashed instance's replacement runs (start-up, recovery, its loops). */
  onCrash: (instance: Instance) => void = () => {};

  #crash(instance: Instance): void {
    this.#crashes += 1;
    instance.alive = false;
    this.#deaths.get(instance)?.();
    this.#ready = this.#ready.filter((c) => c.instance !== instance);
    this.#sleepers = this.#sleepers.filter((s) => s.instance !== instance);
    this.note(`CRASH ${instance.name}#${instance.generation}`);
    this.onCrash(instance);
  }

  /** The fault lands on one of the driver calls the port call makes (if it makes that many; else it runs clean). */
  async #applyBelow(call: Call, fault: DriverFault, arm: NonNullable<StoreUnderTest["arm"]>): Promise<void> {
    const armed = arm(
      fault,
      this.random.between(1, 3),
      (line) => this.note(`  ${line}`),
      (where, land, stockSettingOf) => this.#later(`${call.actor} driver ${where}`, land, stockSettingOf),
    );
    const outcome = await Promise.race([this.#outcomeOf(call), armed.crashed]);
    const fired = armed.disarm();
    if (outcome === "crashed") {
      await this.#unfinished?.();
      this.#crash(call.instance);
      return;
    }
    if (!fired && fault.startsWith("crash")) {
      this.#crash(call.instance);
      return;
    }
    this.#deliver(call, outcome);
  }

  async #loop(): Promise<void> {
    for (;;) {
      await this.#settle();
      if (await this.#releaseDue()) continue;
      if (this.#ready.length === 0) {
        const next = Math.min(
          ...this.#sleepers.map((s) => s.wakeAt),
          ...this.#stalled.map((c) => c.releaseAt!),
          ...this.#copies.map((c) => c.releaseAt),
        );
        if (!Number.isFinite(next)) return;
        this.clock.set(new Date(Math.max(next, this.#now())));
        continue;
      }
      this.steps += 1;
      if (this.steps > this.#options.maxSteps) {
        this.stepsLimitHit = true;
        this.note("STEP LIMIT: the schedule did not end");
        return;
      }
      const call = this.#ready.splice(this.random.int(this.#ready.length), 1)[0]!;
      let drawn = this.#decide();
      if ((drawn === "again-later" || drawn === "arrive-later") && !lateCopyOf(call.where)) drawn = "run";
      const decision = this.#options.calm?.has(this.steps) ? "run" : drawn;
      const calmed = decision !== drawn ? ` (calmed: ${drawn})` : "";
      this.note(`${call.actor}@${call.instance.name}#${call.instance.generation} ${call.where} ${decision}${calmed}`);
      await this.#apply(call, decision);
    }
  }

  /**
   * A copy of a write lands 1–120 simulated seconds from now: recovery (every 10 s, 30 s grace) may act first. A copy
   * that makes an event pending again after the relay took it (seen pending before, not just before the copy) applied
   * again, whatever the event log would keep: nothing may depend on how long the log remembers an id.
   */
  #later(what: string, land: () => Promise<unknown>, stockSettingOf?: number): void {
    const raw = this.#store.raw;
    const measured = async () => {
      const before = stockSettingOf === undefined ? undefined : (await raw.pets.ofId(stockSettingOf))?.stock;
      const pendingBefore = new Set((await this.#store.pendingEvents()).map((e) => e.id));
      // As seen before the copy: a copy of a port call records what it pushes itself.
      const seenBefore = new Set(this.observed.pendingSeen.keys());
      try {
        return await land();
      } finally {
        const after = stockSettingOf === undefined ? undefined : (await raw.pets.ofId(stockSettingOf))?.stock;
        if (before !== undefined && after !== undefined && after !== before)
          this.observed.given.set(stockSettingOf!, (this.observed.given.get(stockSettingOf!) ?? 0) + after - before);
        for (const event of await this.#store.pendingEvents())
          if (!pendingBefore.has(event.id) && seenBefore.has(event.id))
            this.observed.appliedAgain.push(`${what} landed late and brought back ${event.type} ${event.id}, relayed`);
        await this.observePending();
      }
    };
    const releaseAt = this.#now() + this.random.between(1, 120) * 1000;
    this.#copies.push({ seq: this.#seq++, releaseAt, what, land: measured });
  }

  async #apply(call: Call, decision: Decision): Promise<void> {
    const fault = () => new InjectedFault(decision, call.where);
    if (this.#store.arm && decision !== "run" && decision !== "jump" && !decision.startsWith("stall")) {
      await this.#applyBelow(call, decision as DriverFault, this.#store.arm);
      return;
    }
    switch (decision) {
      case "run":
        this.#deliver(call, await this.#outcomeOf(call));
        return;
      case "jump": {
        const ms = this.random.between(1, 45) * 1000;
        this.clock.advance(ms);
        this.note(`clock +${ms / 1000}s`);
        this.#deliver(call, await this.#outcomeOf(call));
        return;
      }
      case "throw-before":
        call.reject(fault());
        return;
      case "throw-after":
        await this.#outcomeOf(call);
        call.reject(fault());
        return;
      case "twice":
        await this.#outcomeOf(call);
        this.#deliver(call, await this.#outcomeOf(call));
        return;
      case "crash-before":
        this.#crash(call.instance);
        return;
      case "crash-after":
        await this.#outcomeOf(call);
        this.#crash(call.instance);
        return;
      case "again-later":
        this.#deliver(call, await this.#outcomeOf(call));
        this.#later(`a copy of ${call.actor} ${call.where}`, call.invoke);
        return;
      case "arrive-later":
        this.#later(`${call.actor} ${call.where}, given up on by its caller,`, call.invoke);
        call.reject(fault());
        return;
      case "stall-before":
      case "stall-after": {
        call.releaseAt = this.#now() + GRACE_MS + this.random.between(1, 60) * 1000;
        if (decision === "stall-after") call.outcome = await this.#outcomeOf(call);
        this.#stalled.push(call);
        return;
      }
    }
  }
}
