import { describe, expect, it } from "vitest";
import { MemoryApiKeys } from "../../adapters/memory/memory-api-keys.repository.ts";
import { MemoryRateLimiter } from "../../adapters/memory/memory-rate-limiter.ts";
import { NodeSecrets } from "../../adapters/crypto/node-secrets.ts";
import { CachedApiKeys, KEY_CACHE_MS } from "../../core/access/cached-api-keys.ts";
import type { ApiKeys } from "../../core/access/api-keys.port.ts";
import { AdmitRequest } from "../../core/rate-limiting/admit-request.ts";
import { anApiKey } from "../contracts/mothers.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { ban, untilBanned } from "../support/limits.ts";

/** The memory store, counting the look-ups that reach it. */
const aCountingStore = () => {
  const store = new MemoryApiKeys();
  let lookUps = 0;
  const counted = new Proxy(store, {
    get(target, property) {
      if (property === "activeOfSecretHash") {
        return (hash: string) => {
          lookUps += 1;
          return target.activeOfSecretHash(hash);
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as ApiKeys;
  return { store, counted, lookUps: () => lookUps };
};

describe("CachedApiKeys", () => {
  const hash = "hash-of-key-1";

  it("asks the store once per bound for a validated key, and again after it", async () => {
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const { store, counted, lookUps } = aCountingStore();
    await store.add(anApiKey());
    const keys = new CachedApiKeys(counted, clock);

    for (let i = 0; i < 5; i++) expect(await keys.activeOfSecretHash(hash)).toMatchObject({ id: 1 });
    clock.advance(KEY_CACHE_MS - 1);
    await keys.activeOfSecretHash(hash);
    expect(lookUps()).toBe(1);
    clock.advance(1);
    await keys.activeOfSecretHash(hash);
    expect(lookUps()).toBe(2);
  });

  it("reads the store once for a key that many requests present at once, and again once the bound has passed", async () => {
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const { store, counted, lookUps } = aCountingStore();
    await store.add(anApiKey());
    const keys = new CachedApiKeys(counted, clock);

    const seen = await Promise.all([1, 2, 3, 4, 5].map(() => keys.activeOfSecretHash(hash)));
    expect(seen.every((key) => key?.id === 1)).toBe(true);
    expect(lookUps()).toBe(1);
    clock.advance(KEY_CACHE_MS);
    await Promise.all([1, 2, 3].map(() => keys.activeOfSecretHash(hash)));
    expect(lookUps()).toBe(2);
  });

  it("shares no read that failed: the next request reads the store again", async () => {
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const { store, counted, lookUps } = aCountingStore();
    await store.add(anApiKey());
    const activeOfSecretHash = store.activeOfSecretHash.bind(store);
    store.activeOfSecretHash = () => Promise.reject(new Error("store down"));
    const keys = new CachedApiKeys(counted, clock);

    const failed = await Promise.allSettled([1, 2].map(() => keys.activeOfSecretHash(hash)));
    expect(failed.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);
    expect(lookUps()).toBe(1);
    store.activeOfSecretHash = activeOfSecretHash;
    expect(await keys.activeOfSecretHash(hash)).toMatchObject({ id: 1 });
    expect(lookUps()).toBe(2);
  });

  it("reads a key by id for open streams once per bound, however many ask at once; a change here shows at once", async () => {
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const store = new MemoryApiKeys();
    await store.add(anApiKey());
    let reads = 0;
    const ofId = store.ofId.bind(store);
    store.ofId = (id) => ((reads += 1), ofId(id));
    const keys = new CachedApiKeys(store, clock);

    const seen = await Promise.all([1, 2, 3, 4, 5].map(() => keys.recentOfId(1)));
    expect(seen.every((key) => key?.id === 1)).toBe(true);
    clock.advance(KEY_CACHE_MS - 1);
    await keys.recentOfId(1);
    expect(reads).toBe(1);
    clock.advance(1);
    await keys.recentOfId(1);
    expect(reads).toBe(2);

    // Another instance's revocation shows once the bound has passed; one made here, at once.
    const revokedAt = clock.now();
    await store.revoke(1, revokedAt);
    expect((await keys.recentOfId(1))?.revokedAt).toBeUndefined();
    clock.advance(KEY_CACHE_MS);
    expect((await keys.recentOfId(1))?.revokedAt).toEqual(revokedAt);
    await store.add(anApiKey({ id: 2, secretHash: "hash-of-key-2" }));
    await keys.recentOfId(2);
    await keys.ban(2, { at: clock.now(), until: new Date(clock.now().getTime() + 60_000), forgetBefore: new Date(0) });
    expect((await keys.recentOfId(2))?.bannedUntil).toBeDefined();
  });

  it("sees a change made through it at once: revoke, settings, ban, unban", async () => {
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const store = new MemoryApiKeys();
    await store.add(anApiKey());
    const keys = new CachedApiKeys(store, clock);
    await keys.activeOfSecretHash(hash);

    await keys.replaceSettings({ id: 1, label: "renamed", role: "staff", plan: "pro", limits: undefined }, anApiKey());
    expect(await keys.activeOfSecretHash(hash)).toMatchObject({ role: "staff", plan: "pro" });
    const until = new Date("2026-11-21T12:15:00.000Z");
    await keys.ban(1, { at: clock.now(), until, forgetBefore: new Date(0) });
    expect(await keys.activeOfSecretHash(hash)).toMatchObject({ bannedUntil: until });
    await keys.unban(1);
    expect(await keys.activeOfSecretHash(hash)).toMatchObject({ bannedUntil: undefined });
    await keys.revoke(1, clock.now());
    expect(await keys.activeOfSecretHash(hash)).toBeUndefined();
  });

  it("sees a change made elsewhere (another instance) within the bound, not before", async () => {
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const store = new MemoryApiKeys();
    await store.add(anApiKey());
    const keys = new CachedApiKeys(store, clock);
    await keys.activeOfSecretHash(hash);

    await store.revoke(1, clock.now());
    expect(await keys.activeOfSecretHash(hash)).toMatchObject({ id: 1 });
    clock.advance(KEY_CACHE_MS);
    expect(await keys.activeOfSecretHash(hash)).toBeUndefined();
  });

  it("remembers an unknown hash too, and a key created through it is found at once", async () => {
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const { counted, lookUps } = aCountingStore();
    const keys = new CachedApiKeys(counted, clock);

    expect(await keys.activeOfSecretHash(hash)).toBeUndefined();
    expect(await keys.activeOfSecretHash(hash)).toBeUndefined();
    expect(lookUps()).toBe(1);
    await keys.add(anApiKey());
    expect(await keys.activeOfSecretHash(hash)).toMatchObject({ id: 1 });
  });

  it("does not remember a look-up that overlapped a change", async () => {
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const store = new MemoryApiKeys();
    await store.add(anApiKey());
    const keys = new CachedApiKeys(store, clock);

    const overlapping = keys.activeOfSecretHash(hash); // reads the store before the revocation lands
    await keys.revoke(1, clock.now());
    expect(await overlapping).toMatchObject({ id: 1 });
    expect(await keys.activeOfSecretHash(hash)).toBeUndefined();
  });

  it("says a key from memory may be stale until something changes through it", async () => {
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const store = new MemoryApiKeys();
    await store.add(anApiKey());
    await store.add(anApiKey({ id: 2 }));
    const keys = new CachedApiKeys(store, clock);

    await keys.activeOfSecretHash(hash);
    const fromMemory = (await keys.activeOfSecretHash(hash))!;
    expect(keys.mayBeStale(fromMemory)).toBe(true);
    await keys.unban(2);
    expect(keys.mayBeStale(fromMemory)).toBe(false);
  });
});

describe("AdmitRequest with remembered keys on two instances", () => {
  it("answers 403 from the request after a ban the other instance started, though its key predates the ban", async () => {
    const clock = new ManualClock("2026-11-21T12:00:10.000Z");
    const secrets = new NodeSecrets();
    const store = new MemoryApiKeys();
    const limiter = new MemoryRateLimiter();
    const secret = "a-free-key-0123456789abcdefghijklmnopqrstuvw";
    await store.add(anApiKey({ secretHash: secrets.hash(secret) }));
    const instance = () => new AdmitRequest({ apiKeys: new CachedApiKeys(store, clock), secrets, limiter, clock }, ban);
    const [a, b] = [instance(), instance()];
    const request = { secret, address: "10.0.0.1", keyRequired: true };

    await b.execute(request); // b remembers the key, unbanned
    const onA = [];
    // The rest of the minute admitted, then the strikes refused: a bans.
    for (let i = 1; i < untilBanned; i++) onA.push(await a.execute(request));
    expect(onA.filter((r) => r.refusal?.code === "rate_limited")).toHaveLength(ban.strikes);
    expect((await a.execute(request)).refusal?.code).toBe("api_key_banned");

    expect((await b.execute(request)).refusal?.code).toBe("api_key_banned");
  });
});
