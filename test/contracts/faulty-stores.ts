import type { Stores } from "../../core/stores.ts";

/** How the N-th store call fails. */
export type Fault =
  /** It throws before reaching the store: nothing written. */
  | "throw-before"
  /** It reaches the store, then the answer is lost: written, but the caller sees an error. */
  | "throw-after"
  /** The process dies before the call: it and every later call never settle. */
  | "crash-before"
  /** The process dies after the store applied the call: it and every later call never settle. */
  | "crash-after"
  /** It applies, its answer is lost, and the driver sends it again: the caller sees the second answer. */
  | "retry-after";

export const faults: readonly Fault[] = ["throw-before", "throw-after", "crash-before", "crash-after"];

const WRAPPED = ["pets", "orders", "categories", "ids"] as const;

export interface CallPlan {
  /** 1-based number of the call the fault or the hook applies to. */
  at: number;
  fault?: Fault;
  /** Runs to completion just before call `at` reaches the store: a competing request, or recovery. */
  before?: () => Promise<unknown>;
}

export interface FaultyStores {
  stores: Stores;
  /** Store calls made so far. */
  calls(): number;
  /** Settles once every call that reached the store has finished there (crashes included). */
  quiet(): Promise<void>;
  /** Resolves when the process "died": from then on no call settles. */
  crashed: Promise<"crashed">;
}

const never = new Promise<never>(() => {});

/**
 * The same stores, with every call of the ports the use cases write through counted, and the plan applied: a
 * fault at one call, or a competing action run just before it.
 */
export const faultyStores = (inner: Stores, plan: CallPlan | undefined): FaultyStores => {
  let count = 0;
  let crashed = false;
  let died: (value: "crashed") => void = () => {};
  const crashedSignal = new Promise<"crashed">((resolve) => {
    died = resolve;
  });
  const reached: Promise<unknown>[] = [];
  const wrap = <T extends object>(port: T): T =>
    new Proxy(port, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          if (crashed) return never;
          count += 1;
          const n = count;
          if (plan && n === plan.at) {
            if (plan.before) await plan.before();
            if (plan.fault === "throw-before") throw new Error(`injected failure before store call ${n}`);
            if (plan.fault === "crash-before") {
              crashed = true;
              died("crashed");
              return never;
            }
          }
          const call = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          reached.push(call.catch(() => undefined));
          if (plan && n === plan.at && plan.fault === "throw-after") {
            await call.catch(() => undefined);
            throw new Error(`injected failure after store call ${n}`);
          }
          if (plan && n === plan.at && plan.fault === "retry-after") {
            await call.catch(() => undefined);
            const retry = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            reached.push(retry.catch(() => undefined));
            return retry;
          }
          if (plan && n === plan.at && plan.fault === "crash-after") {
            crashed = true;
            died("crashed");
            return never;
          }
          return call;
        };
      },
    });
  const stores = { ...inner } as Stores;
  for (const name of WRAPPED) (stores as unknown as Record<string, object>)[name] = wrap(inner[name]);
  return {
    stores,
    calls: () => count,
    crashed: crashedSignal,
    quiet: async () => {
      await Promise.all(reached);
    },
  };
};
