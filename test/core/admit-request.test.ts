import { describe, expect, it } from "vitest";
import { NodeSecrets } from "../../adapters/crypto/node-secrets.ts";
import type { ApiKeyDraft } from "../../core/access/api-key.ts";
import { CreateApiKey } from "../../core/access/create-api-key.ts";
import { RevokeApiKey } from "../../core/access/revoke-api-key.ts";
import { AdmitRequest, type Admission, type AdmissionRequest } from "../../core/rate-limiting/admit-request.ts";
import { ban, free } from "../support/limits.ts";
import { aWorld } from "./world.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A fresh key (free plan unless told otherwise) and a gate with the default ban policy. */
const aGate = async (draft: ApiKeyDraft = { label: "shop", role: "customer", plan: "free" }) => {
  const world = aWorld();
  const secrets = new NodeSecrets();
  const ports = { ...world, secrets };
  const { key, secret } = await new CreateApiKey(ports).execute(draft);
  const admit = new AdmitRequest({ apiKeys: world.apiKeys, secrets, limiter: world.limiter, clock: world.clock }, ban);
  const request = (overrides: Partial<AdmissionRequest> = {}): Promise<Admission> =>
    admit.execute({ secret, address: "203.0.113.7", keyRequired: true, ...overrides });
  return { world, ports, key, secret, request };
};

const sequentially = async (n: number, send: () => Promise<Admission>): Promise<Admission[]> => {
  const results: Admission[] = [];
  for (let i = 0; i < n; i++) results.push(await send());
  return results;
};

const codesOf = (admissions: Admission[]) => admissions.map((a) => a.refusal?.code ?? "admitted");

/** Sends requests until the strikes that earn a ban were refused with rate_limited. */
const earnBan = async (send: () => Promise<Admission>): Promise<void> => {
  let strikes = 0;
  for (let i = 0; i < 2 * free.perDay && strikes < ban.strikes; i++) {
    const { refusal } = await send();
    if (refusal) {
      expect(refusal.code).toBe("rate_limited");
      strikes += 1;
    }
  }
  expect(strikes).toBe(ban.strikes);
};

/** The ban's length as the next request learns it. */
const banSeconds = async (send: () => Promise<Admission>): Promise<number | undefined> => {
  const { refusal } = await send();
  expect(refusal?.code).toBe("api_key_banned");
  return refusal?.retryAfterSeconds;
};

describe("AdmitRequest", () => {
  describe("with a valid key", () => {
    it("admits the caller as its key and describes the quota", async () => {
      const { key, request } = await aGate();

      expect(await request()).toEqual({
        actor: { keyId: key.id, role: "customer" },
        quota: {
          window: "minute",
          limit: free.perMinute,
          remaining: free.perMinute - 1,
          resetsAt: new Date("2026-11-21T12:01:00.000Z"),
          limits: free,
        },
        refusal: undefined,
      });
    });

    it("refuses the request past the minute's limit until the next minute begins", async () => {
      const { world, request } = await aGate();
      expect(codesOf(await sequentially(free.perMinute, request))).not.toContain("rate_limited");

      const refused = await request();
      expect(refused.refusal).toMatchObject({ code: "rate_limited", retryAfterSeconds: 60 });
      expect(refused.quota).toMatchObject({
        limit: free.perMinute,
        remaining: 0,
        resetsAt: new Date("2026-11-21T12:01:00.000Z"),
      });

      world.clock.set("2026-11-21T12:00:59.999Z");
      expect((await request()).refusal).toMatchObject({ code: "rate_limited", retryAfterSeconds: 1 });

      world.clock.set("2026-11-21T12:01:00.000Z");
      const admitted = await request();
      expect(admitted.refusal).toBeUndefined();
      expect(admitted.quota).toMatchObject({
        limit: free.perMinute,
        remaining: free.perMinute - 1,
        resetsAt: new Date("2026-11-21T12:02:00.000Z"),
      });
    });

    it("holds the day limit across minutes and resets it at UTC midnight", async () => {
      const { world, request } = await aGate({
        label: "partner",
        role: "staff",
        plan: "enterprise",
        limits: { perMinute: 5, perDay: 8 },
      });
      await sequentially(5, request);
      world.clock.set("2026-11-21T12:01:00.000Z");
      expect(codesOf(await sequentially(3, request))).toEqual(["admitted", "admitted", "admitted"]);

      const refused = await request();
      expect(refused.refusal).toMatchObject({ code: "rate_limited", retryAfterSeconds: 11 * 3600 + 59 * 60 });
      expect(refused.quota).toMatchObject({ limit: 8, remaining: 0, resetsAt: new Date("2026-11-22T00:00:00.000Z") });

      world.clock.set("2026-11-21T23:59:59.999Z");
      expect((await request()).refusal).toMatchObject({ code: "rate_limited", retryAfterSeconds: 1 });

      world.clock.set("2026-11-22T00:00:00.000Z");
      const admitted = await request();
      expect(admitted.refusal).toBeUndefined();
      expect(admitted.quota).toMatchObject({ limit: 5, remaining: 4 });
    });

    it("admits the free plan's day limit and no more", async () => {
      const { world, request } = await aGate();
      let admitted = 0;
      for (let minute = 0; minute <= Math.ceil(free.perDay / free.perMinute); minute++) {
        world.clock.set(new Date(Date.parse("2026-11-21T12:00:00.000Z") + minute * MINUTE));
        admitted += codesOf(await sequentially(free.perMinute + 1, request)).filter((c) => c === "admitted").length;
      }

      expect(admitted).toBe(free.perDay);
    });

    it("is exact under concurrency: a burst past the minute's limit on a fresh free key admits the limit, and the strikes earn a ban", async () => {
      const { request } = await aGate();

      const results = await Promise.all(Array.from({ length: free.perMinute + 2 * ban.strikes }, () => request()));

      const refusals = results.flatMap((r) => (r.refusal ? [r.refusal] : []));
      expect(results.length - refusals.length).toBe(free.perMinute);
      expect(refusals).toHaveLength(2 * ban.strikes);
      for (const refusal of refusals) {
        expect(refusal.code).toBe("rate_limited");
        expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      }
      expect(await banSeconds(request)).toBe(ban.seconds);
    });

    it("answers the request that earns the ban with rate_limited; the ban shows from the next one on", async () => {
      const { key, request } = await aGate();
      await sequentially(free.perMinute, request);

      const strikes = await sequentially(ban.strikes, request);

      expect(codesOf(strikes)).toEqual(Array(ban.strikes).fill("rate_limited"));
      const banned = await request();
      expect(banned).toMatchObject({
        actor: { keyId: key.id, role: "customer" },
        quota: { limit: free.perMinute, remaining: 0, resetsAt: new Date("2026-11-21T12:15:00.000Z") },
        refusal: { code: "api_key_banned", retryAfterSeconds: ban.seconds },
      });
    });

    it("keeps refusing a banned key until the ban ends, whatever the windows say", async () => {
      const { world, request } = await aGate();
      await earnBan(request);

      world.clock.set("2026-11-21T12:14:59.999Z");
      expect((await request()).refusal).toMatchObject({ code: "api_key_banned", retryAfterSeconds: 1 });

      world.clock.set("2026-11-21T12:15:00.000Z");
      expect((await request()).refusal).toBeUndefined();
    });

    it("doubles each further ban within 24 hours: 15, 30, then 60 minutes", async () => {
      const { world, request } = await aGate();

      await earnBan(request);
      expect(await banSeconds(request)).toBe(ban.seconds);
      world.clock.advance(ban.seconds * 1000);
      await earnBan(request);
      expect(await banSeconds(request)).toBe(2 * ban.seconds);
      world.clock.advance(2 * ban.seconds * 1000);
      await earnBan(request);
      expect(await banSeconds(request)).toBe(4 * ban.seconds);
    });

    it("never bans for longer than 24 hours", async () => {
      const { world, key, request } = await aGate();
      const lengths: (number | undefined)[] = [];
      for (let round = 0; round < 9; round++) {
        await earnBan(request);
        lengths.push(await banSeconds(request));
        await world.apiKeys.unban(key.id);
        world.clock.advance(MINUTE);
      }

      expect(lengths).toEqual(lengths.map((_, n) => Math.min(ban.seconds * 2 ** n, DAY / 1000)));
      expect(lengths.at(-1)).toBe(DAY / 1000);
    });

    it("starts again at 15 minutes when the last ban is more than 24 hours old", async () => {
      const { world, request } = await aGate();
      await earnBan(request);
      expect(await banSeconds(request)).toBe(ban.seconds);

      world.clock.advance(DAY + MINUTE);
      await earnBan(request);

      expect(await banSeconds(request)).toBe(ban.seconds);
    });
  });

  describe("without a valid key", () => {
    it.each([
      ["an unknown key", "pk_not-a-key-anyone-was-given"],
      ["no key", undefined],
    ])("refuses %s with unauthorized and the address's quota", async (_, secret) => {
      const { request } = await aGate();

      expect(await request({ secret })).toMatchObject({
        actor: undefined,
        quota: { limit: free.perMinute, remaining: free.perMinute - 1, limits: free },
        refusal: { code: "unauthorized" },
      });
    });

    it("refuses a revoked key with unauthorized", async () => {
      const { ports, key, request } = await aGate();
      await new RevokeApiKey(ports).execute(key.id);

      expect(await request()).toMatchObject({ actor: undefined, refusal: { code: "unauthorized" } });
    });

    it("limits such requests per address", async () => {
      const { request } = await aGate();
      const unknown = { secret: "pk_unknown", address: "198.51.100.1" };

      expect(codesOf(await sequentially(free.perMinute + 1, () => request(unknown))).slice(-2)).toEqual([
        "unauthorized",
        "rate_limited",
      ]);
      expect((await request({ ...unknown, address: "198.51.100.2" })).refusal?.code).toBe("unauthorized");
      expect((await request({ address: "198.51.100.1" })).refusal).toBeUndefined();
    });
  });

  describe("public requests (no key required)", () => {
    it("are admitted without an actor and limited per address on the free plan", async () => {
      const { request } = await aGate();
      const fromA = () => request({ keyRequired: false, secret: undefined, address: "192.0.2.1" });

      const results = await sequentially(free.perMinute + 1, fromA);

      expect(results[0]).toMatchObject({
        actor: undefined,
        refusal: undefined,
        quota: { limit: free.perMinute, remaining: free.perMinute - 1 },
      });
      expect(codesOf(results).slice(-2)).toEqual(["admitted", "rate_limited"]);
      expect((await request({ keyRequired: false, address: "192.0.2.2" })).refusal).toBeUndefined();
    });

    it("count against the address even when a valid key comes along, not against the key", async () => {
      const { request } = await aGate();

      const results = await sequentially(free.perMinute + 1, () =>
        request({ keyRequired: false, address: "192.0.2.1" }),
      );

      expect(results[0]?.actor).toBeUndefined();
      expect(codesOf(results).at(-1)).toBe("rate_limited");
      expect((await request({ address: "192.0.2.1" })).quota.remaining).toBe(free.perMinute - 1);
    });
  });

  describe("quota headers describe the window with the fewest requests remaining", () => {
    const enterprise = (perMinute: number, perDay: number): ApiKeyDraft => ({
      label: "partner",
      role: "staff",
      plan: "enterprise",
      limits: { perMinute, perDay },
    });

    it("the minute window when it has fewer left", async () => {
      const { request } = await aGate(enterprise(10, 1_000));

      expect((await request()).quota).toEqual({
        window: "minute",
        limit: 10,
        remaining: 9,
        resetsAt: new Date("2026-11-21T12:01:00.000Z"),
        limits: { perMinute: 10, perDay: 1_000 },
      });
    });

    it("the day window when it has fewer left", async () => {
      const { request } = await aGate(enterprise(100, 5));

      expect((await request()).quota).toMatchObject({
        window: "day",
        limit: 5,
        remaining: 4,
        resetsAt: new Date("2026-11-22T00:00:00.000Z"),
      });
    });

    it("the minute window on a tie", async () => {
      const { request } = await aGate(enterprise(5, 5));

      expect((await request()).quota).toMatchObject({
        window: "minute",
        limit: 5,
        remaining: 4,
        resetsAt: new Date("2026-11-21T12:01:00.000Z"),
      });
    });
  });
});
