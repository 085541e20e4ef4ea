/** What `npm run bench` (bench/run.ts) and the other bench scripts drive, and how each server is made ready for it. */
import {
  constant,
  CUSTOMER_KEYS,
  keyedReads,
  mixed,
  SEEDED_PETS,
  variedOrders,
  type Keys,
  type Traffic,
} from "./traffic.ts";

export { SEEDED_PETS, type Keys } from "./traffic.ts";

export interface Scenario {
  name: string;
  /** What it sends, for the tables. */
  sends: string;
  /** Judged against the targets; the others are labelled extras. */
  judged: boolean;
  /** Run by `npm run bench` without BENCH_ONLY. */
  byDefault: boolean;
  traffic(keys: Keys): Traffic;
}

export const allScenarios: Scenario[] = [
  {
    name: "keyed read",
    sends: "GET /pets?ids= (2,000 texts, 1–3 of 1,000 pets)",
    judged: true,
    byDefault: true,
    traffic: keyedReads,
  },
  {
    name: "varied order",
    sends: "POST /store/orders (2,000 bodies)",
    judged: true,
    byDefault: true,
    traffic: variedOrders,
  },
  {
    name: "mixed",
    sends: "70% keyed reads, 10% pages, 15% orders, 5% cancels",
    judged: true,
    byDefault: true,
    traffic: mixed,
  },
  {
    name: "one-body order (extra)",
    sends: "POST /store/orders, one body text",
    judged: false,
    byDefault: true,
    traffic: constant({ method: "POST", path: "/store/orders", body: JSON.stringify({ petId: 1, quantity: 1 }) }),
  },
  {
    name: "GET /pets/1 (extra)",
    sends: "GET /pets/1",
    judged: false,
    byDefault: false,
    traffic: constant({ method: "GET", path: "/pets/1" }),
  },
  {
    name: "GET /store/inventory (extra)",
    sends: "GET /store/inventory",
    judged: false,
    byDefault: false,
    traffic: constant({ method: "GET", path: "/store/inventory" }),
  },
  {
    name: "POST /pets (extra)",
    sends: "POST /pets, one body text, staff",
    judged: false,
    byDefault: false,
    traffic: constant({ method: "POST", path: "/pets", body: JSON.stringify({ name: "Rex", categoryId: 1 }) }, "staff"),
  },
];

/** The scenarios BENCH_ONLY names (a part of their name), or those run by default. */
export const chosenScenarios = (only: string | undefined): Scenario[] =>
  only ? allScenarios.filter((s) => s.name.includes(only)) : allScenarios.filter((s) => s.byDefault);

/** The keys a benchmark sends, and how to make a server ready for its next round. */
export interface PreparedServer {
  readonly keys: Keys;
  /**
   * Before every round, on the service: new keys (the most a key may send is 1,000,000 requests a minute) and pet 1's
   * stock back to 1,000,000 (the most a stock may be), for the one-body order. Nothing a round measures is spent on it.
   */
  nextRound(): Promise<void>;
}

/** Stock of every seeded pet: more than a run's orders take (stock plus units held by open orders ≤ 1,000,000). */
export const SEEDED_STOCK = 1_000_000;

/** Runs `task` over `items`, `width` at a time. */
const eachOf = async <T>(items: readonly T[], width: number, task: (item: T) => Promise<void>) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
};

const setupCall = async (url: string, method: string, path: string, key: string, body: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`setup ${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
};

/** A key of the service's on the largest limits a key may have. */
export const newServiceKey = async (url: string, adminKey: string, role: string, label: string): Promise<string> => {
  const limits = { perMinute: 1_000_000, perDay: 1_000_000_000 };
  const created = await setupCall(url, "POST", "/admin/api-keys", adminKey, {
    label,
    role,
    plan: "enterprise",
    limits,
  });
  return created.key as string;
};

/**
 * On a fresh service: keys on the largest limits a key may have, a category, `pets` pets (ids 1 up; SEEDED_PETS unless
 * told) each with SEEDED_STOCK units.
 */
export const prepareService = async (url: string, adminKey: string, pets = SEEDED_PETS): Promise<PreparedServer> => {
  const call = (method: string, path: string, key: string, body: unknown) => setupCall(url, method, path, key, body);
  const newKey = (role: string, i = 0) => newServiceKey(url, adminKey, role, `bench ${role} ${i}`);
  const newKeys = async (): Promise<Keys> => ({
    customer: await Promise.all(Array.from({ length: CUSTOMER_KEYS }, (_, i) => newKey("customer", i))),
    staff: await newKey("staff"),
  });
  const keys = await newKeys();
  const category = await call("POST", "/categories", keys.staff, { name: "Dogs" });
  if (category.id !== 1) throw new Error("setup expected category 1 in a fresh service");
  const ids = Array.from({ length: pets }, (_, i) => i + 1);
  const made = new Set<unknown>();
  await eachOf(ids, 8, async (n) => {
    made.add((await call("POST", "/pets", keys.staff, { name: `Rex ${n}`, categoryId: category.id })).id);
  });
  if (ids.some((id) => !made.has(id))) throw new Error(`setup expected pets 1 to ${pets} in a fresh service`);
  await eachOf(ids, 8, async (id) => {
    await call("PUT", `/store/inventory/${id}`, keys.staff, { quantity: SEEDED_STOCK });
  });
  // As much stock as the units earlier rounds' open orders hold leave room for (stock plus held units ≤ 1,000,000).
  const restock = async (petId: number) => {
    const res = await fetch(`${url}/store/inventory/${petId}`, {
      method: "PUT",
      headers: { "x-api-key": keys.staff, "content-type": "application/json" },
      body: JSON.stringify({ quantity: SEEDED_STOCK }),
    });
    if (res.status === 200) return;
    const refusal = (await res.json()) as { code?: string; message?: string };
    const most = /at most (\d+)/.exec(refusal.message ?? "")?.[1];
    if (refusal.code !== "stock_limit_exceeded" || most === undefined)
      throw new Error(`setup PUT /store/inventory/${petId}: ${res.status} ${JSON.stringify(refusal)}`);
    await call("PUT", `/store/inventory/${petId}`, keys.staff, { quantity: Number(most) });
  };
  return {
    keys,
    nextRound: async () => {
      Object.assign(keys, await newKeys());
      await restock(1);
    },
  };
};

/**
 * The Fastify peer and bare h3 seed their own pets and stock at start (bench/peer-fastify/server.ts,
 * bench/baseline-server.ts); the peer accepts the keys it was started with for its whole life (its limit is far above
 * what a run sends), bare h3 checks none.
 */
export const preparedWith = (keys: Keys): PreparedServer => ({ keys, nextRound: async () => {} });
