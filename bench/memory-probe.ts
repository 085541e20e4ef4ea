/**
 * RSS of a whole service process (memory store, composed as `npm start` composes it) before and after a hostile
 * load on one store, driven in process on the adapter every request reaches:
 *   idempotency N — N distinct Idempotency-Keys from one API key, each a completed order record;
 *   addresses N   — N distinct client addresses, one admission each (the limiter's per-address windows).
 * In process, so the figure is the adapter's own cost (bench/run.ts also sends distinct addresses over HTTP, through a
 * trusted X-Forwarded-For, for the whole service's; Idempotency-Keys over HTTP would also store an order each).
 * Prints one JSON line. Run with --expose-gc.
 */
import { randomUUID } from "node:crypto";
import { loadConfig } from "../bootstrap/config.ts";
import { createLogger } from "../bootstrap/logger.ts";
import { composePetstore } from "../bootstrap/petstore.ts";
import { windowsAt } from "../core/rate-limiting/windows.ts";
import { planLimits } from "../core/rate-limiting/plans.ts";

const [kind, countArg] = process.argv.slice(2);
const count = Number(countArg);
const MiB = 2 ** 20;

const settle = () => {
  for (let i = 0; i < 3; i++) globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss: rss / MiB, heap: heapUsed / MiB };
};

const petstore = await composePetstore(
  loadConfig({ PETSTORE_ADMIN_KEY: "bench-admin-key-0123456789abcdefghijklmnop", PETSTORE_SEED_DEMO: "false" }),
  createLogger("silent"),
);
const { idempotency, limiter } = petstore.stores;
const before = settle();
const now = new Date();

if (kind === "idempotency") {
  const expiresAt = new Date(now.getTime() + 86_400_000);
  const leaseUntil = new Date(now.getTime() + 60_000);
  for (let i = 0; i < count; i++) {
    const key = randomUUID();
    const claim = await idempotency.claim({
      scope: "key:2",
      key,
      fingerprint: `${key}fingerprint`.slice(0, 43),
      now,
      leaseUntil,
      expiresAt,
    });
    if (claim.outcome !== "claimed") throw new Error(`fresh key ${key} was not claimed`);
    await idempotency.complete("key:2", key, claim.token, {
      status: 201,
      body: JSON.stringify({ id: i + 1, petId: 1, quantity: 1, complete: false }),
      headers: { "content-type": "application/json; charset=utf-8", location: `/store/orders/${i + 1}` },
    });
  }
} else if (kind === "addresses") {
  const { minute, day } = windowsAt(now, planLimits.free);
  for (let i = 0; i < count; i++) {
    // As the service forms it: a flat address string (the socket's) behind "address:".
    const address = [10, (i >> 16) & 255, (i >> 8) & 255, i & 255].join(".");
    await limiter.consume(`address:${address}`, { minute, day });
  }
} else {
  throw new Error(`unknown probe ${kind}`);
}

const after = settle();
process.stdout.write(`${JSON.stringify({ kind, count, before, after, gc: typeof globalThis.gc === "function" })}\n`);
await petstore.close();
