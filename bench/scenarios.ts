/** What `npm run bench` (bench/run.ts) and `bench/profile.ts` drive, and how the service is made ready for it. */

export interface Scenario {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: string;
  /** Which key sends it. */
  as: "customer" | "staff";
}

export const allScenarios: Scenario[] = [
  { name: "GET /pets?ids=1", method: "GET", path: "/pets?ids=1", as: "customer" },
  { name: "GET /pets/1", method: "GET", path: "/pets/1", as: "customer" },
  { name: "GET /store/inventory", method: "GET", path: "/store/inventory", as: "customer" },
  {
    name: "POST /store/orders",
    method: "POST",
    path: "/store/orders",
    body: JSON.stringify({ petId: 1, quantity: 1 }),
    as: "customer",
  },
  {
    name: "POST /pets",
    method: "POST",
    path: "/pets",
    body: JSON.stringify({ name: "Rex", categoryId: 1 }),
    as: "staff",
  },
];

/** Pets in both stores before any round: lists and look-ups run on a store of this size (POST /pets runs last). */
export const SEEDED_PETS = 100;

/** The keys a benchmark sends, by role, and how to make the service ready for its next round. */
export interface PreparedService {
  readonly keys: Record<Scenario["as"], string>;
  /**
   * Before every round: new keys (the most a key may send is 1,000,000 requests a minute, and two fast rounds in one
   * minute could come near it) and pet 1's stock back to 1,000,000 (the most a stock may be; one round places fewer
   * orders than that). Nothing a round measures is spent on it.
   */
  nextRound(): Promise<void>;
}

/** Keys on the largest limits a key may have, a category, the seeded pets and a stock of pet 1 a round cannot sell out. */
export const prepareService = async (url: string, adminKey: string): Promise<PreparedService> => {
  const call = async (method: string, path: string, key: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`setup ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const limits = { perMinute: 1_000_000, perDay: 1_000_000_000 };
  const newKey = async (role: string) =>
    (await call("POST", "/admin/api-keys", adminKey, { label: `bench ${role}`, role, plan: "enterprise", limits }))
      .key as string;
  const keys = { customer: await newKey("customer"), staff: await newKey("staff") };
  const category = await call("POST", "/categories", keys.staff, { name: "Dogs" });
  for (let id = 1; id <= SEEDED_PETS; id++) {
    const pet = await call("POST", "/pets", keys.staff, { name: "Rex", categoryId: category.id });
    if (category.id !== 1 || pet.id !== id)
      throw new Error("setup expected category 1 and pets from 1 in a fresh service");
  }
  const nextRound = async () => {
    keys.customer = await newKey("customer");
    keys.staff = await newKey("staff");
    await restock(1);
  };
  // As much stock as the units earlier rounds' open orders hold leave room for (stock plus held units ≤ 1,000,000).
  const restock = async (petId: number) => {
    const res = await fetch(`${url}/store/inventory/${petId}`, {
      method: "PUT",
      headers: { "x-api-key": keys.staff, "content-type": "application/json" },
      body: JSON.stringify({ quantity: 1_000_000 }),
    });
    if (res.status === 200) return;
    const refusal = (await res.json()) as { code?: string; message?: string };
    const most = /at most (\d+)/.exec(refusal.message ?? "")?.[1];
    if (refusal.code !== "stock_limit_exceeded" || most === undefined)
      throw new Error(`setup PUT /store/inventory/${petId}: ${res.status} ${JSON.stringify(refusal)}`);
    await call("PUT", `/store/inventory/${petId}`, keys.staff, { quantity: Number(most) });
  };
  await nextRound();
  return { keys, nextRound };
};
