import { describe, expect, it } from "vitest";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { anApiKey, at } from "./mothers.ts";

export const apiKeysContract = (harness: ContractHarness): void => {
  describe(`ApiKeys contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const apiKeys = () => stores().apiKeys;

    it("gives back every field, dates to the millisecond, and undefined for an unknown id", async () => {
      const key = anApiKey({
        id: 3,
        label: "partner",
        role: "staff",
        plan: "enterprise",
        limits: { perMinute: 5_000, perDay: 2_000_000 },
        secretHash: "a1b2c3",
        createdAt: at("2026-11-20T08:15:30.123Z"),
        revokedAt: at("2026-11-22T09:00:00.456Z"),
        bannedUntil: at("2026-11-21T12:15:00.789Z"),
        recentBans: [at("2026-11-21T11:00:00.001Z"), at("2026-11-21T12:00:00.999Z")],
      });
      await apiKeys().add(key);

      expect(await apiKeys().ofId(3)).toEqual(key);
      expect((await apiKeys().ofId(3))?.recentBans.map((d) => d.getTime())).toEqual(
        key.recentBans.map((d) => d.getTime()),
      );
      expect(await apiKeys().ofId(4)).toBeUndefined();
    });

    it("reads several ids at once: the keys that exist, revoked ones included, every field", async () => {
      const revoked = anApiKey({ id: 2, label: "old till", revokedAt: at("2026-11-22T09:00:00.456Z") });
      await apiKeys().add(anApiKey({ id: 1, label: "storefront" }));
      await apiKeys().add(revoked);
      await apiKeys().add(anApiKey({ id: 3, label: "warehouse" }));

      const read = await apiKeys().ofIds([2, 9, 1]);
      expect(read.toSorted((a, b) => a.id - b.id)).toEqual([anApiKey({ id: 1, label: "storefront" }), revoked]);
      expect(await apiKeys().ofIds([])).toEqual([]);
      expect(await apiKeys().ofIds([7])).toEqual([]);
    });

    it("stores and returns copies", async () => {
      const added = anApiKey({ id: 1, plan: "enterprise", limits: { perMinute: 10, perDay: 100 } });
      await apiKeys().add(added);
      added.limits!.perMinute = 1;
      added.recentBans.push(at("2026-01-01T00:00:00.000Z"));
      const read = await apiKeys().ofId(1);
      read!.limits!.perDay = 1;
      read!.recentBans.push(at("2026-01-02T00:00:00.000Z"));
      read!.createdAt.setUTCFullYear(2000);

      expect(await apiKeys().ofId(1)).toEqual(
        anApiKey({ id: 1, plan: "enterprise", limits: { perMinute: 10, perDay: 100 } }),
      );
    });

    describe("activeOfSecretHash", () => {
      it("finds an active key by its secret hash", async () => {
        await apiKeys().add(anApiKey({ id: 1, secretHash: "h1" }));
        await apiKeys().add(anApiKey({ id: 2, secretHash: "h2" }));

        expect(await apiKeys().activeOfSecretHash("h2")).toEqual(anApiKey({ id: 2, secretHash: "h2" }));
        expect(await apiKeys().activeOfSecretHash("unknown")).toBeUndefined();
      });

      it("skips a revoked key", async () => {
        await apiKeys().add(anApiKey({ id: 1, secretHash: "h1" }));
        await apiKeys().revoke(1, at("2026-11-21T12:00:00.000Z"));

        expect(await apiKeys().activeOfSecretHash("h1")).toBeUndefined();
      });

      it("finds the active key when a revoked one had the same hash (a re-issued bootstrap secret)", async () => {
        await apiKeys().add(anApiKey({ id: 1, secretHash: "same", revokedAt: at("2026-11-21T12:00:00.000Z") }));
        await apiKeys().add(anApiKey({ id: 2, secretHash: "same" }));

        expect((await apiKeys().activeOfSecretHash("same"))?.id).toBe(2);
      });
    });

    it("pages in ascending id order, revoked keys included", async () => {
      for (const id of [3, 1, 2]) await apiKeys().add(anApiKey({ id }));
      await apiKeys().revoke(2, at("2026-11-21T12:00:00.000Z"));

      expect((await apiKeys().list({ limit: 2 })).map((k) => k.id)).toEqual([1, 2]);
      expect((await apiKeys().list({ limit: 2, after: 2 })).map((k) => k.id)).toEqual([3]);
      expect(await apiKeys().list({ limit: 2, after: 3 })).toEqual([]);
    });

    it("tells whether an active key has a role", async () => {
      expect(await apiKeys().anyActiveWithRole("admin")).toBe(false);
      await apiKeys().add(anApiKey({ id: 1, role: "admin" }));
      await apiKeys().add(anApiKey({ id: 2, role: "customer" }));

      expect(await apiKeys().anyActiveWithRole("admin")).toBe(true);
      expect(await apiKeys().anyActiveWithRole("staff")).toBe(false);
      await apiKeys().revoke(1, at("2026-11-21T12:00:00.000Z"));
      expect(await apiKeys().anyActiveWithRole("admin")).toBe(false);
    });

    describe("replaceSettings", () => {
      it("replaces label, role, plan and limits and nothing else", async () => {
        const original = anApiKey({
          id: 1,
          bannedUntil: at("2026-11-21T12:15:00.000Z"),
          recentBans: [at("2026-11-21T12:00:00.000Z")],
        });
        await apiKeys().add(original);
        const settings = {
          id: 1,
          label: "partner",
          role: "staff",
          plan: "enterprise",
          limits: { perMinute: 7, perDay: 70 },
        } as const;

        expect(await apiKeys().replaceSettings(settings, original)).toBe(true);
        expect(await apiKeys().ofId(1)).toEqual({ ...original, ...settings });
      });

      it("clears limits when the new settings have none", async () => {
        const original = anApiKey({ id: 1, plan: "enterprise", limits: { perMinute: 7, perDay: 70 } });
        await apiKeys().add(original);

        expect(
          await apiKeys().replaceSettings(
            { id: 1, label: "downgraded", role: "customer", plan: "pro", limits: undefined },
            original,
          ),
        ).toBe(true);

        expect((await apiKeys().ofId(1))?.limits).toBeUndefined();
      });

      it("refuses a missing or revoked key", async () => {
        const original = anApiKey({ id: 1, label: "old", revokedAt: at("2026-11-21T12:00:00.000Z") });
        await apiKeys().add(original);
        const settings = { label: "new", role: "admin", plan: "pro", limits: undefined } as const;

        expect(await apiKeys().replaceSettings({ id: 1, ...settings }, original)).toBe(false);
        expect(await apiKeys().replaceSettings({ id: 2, ...settings }, original)).toBe(false);
        expect((await apiKeys().ofId(1))?.label).toBe("old");
        expect(await apiKeys().ofId(2)).toBeUndefined();
      });

      const read = {
        label: "shop",
        role: "customer",
        plan: "enterprise",
        limits: { perMinute: 7, perDay: 70 },
      } as const;
      it.each([
        ["label", { label: "renamed" }],
        ["role", { role: "admin" }],
        ["plan", { plan: "business", limits: undefined }],
        ["limits.perMinute", { limits: { perMinute: 8, perDay: 70 } }],
        ["limits.perDay", { limits: { perMinute: 7, perDay: 71 } }],
      ] as const)(
        "refuses when the %s changed since the settings were read, and changes nothing",
        async (_field, since) => {
          await apiKeys().add(anApiKey({ id: 1, ...read }));
          await apiKeys().replaceSettings({ id: 1, ...read, ...since }, read);
          const stored = await apiKeys().ofId(1);

          expect(await apiKeys().replaceSettings({ id: 1, ...read, label: "late write" }, read)).toBe(false);
          expect(await apiKeys().ofId(1)).toEqual(stored);
        },
      );

      it("refuses when limits were added since the settings were read (none expected)", async () => {
        const noLimits = { label: "shop", role: "customer", plan: "pro", limits: undefined } as const;
        await apiKeys().add(anApiKey({ id: 1, ...noLimits }));
        await apiKeys().replaceSettings(
          { id: 1, ...noLimits, plan: "enterprise", limits: { perMinute: 7, perDay: 70 } },
          noLimits,
        );

        expect(await apiKeys().replaceSettings({ id: 1, ...noLimits, label: "late write" }, noLimits)).toBe(false);
        expect(await apiKeys().ofId(1)).toMatchObject({ label: "shop", plan: "enterprise" });
      });

      it("applies when the settings are still those read, whatever else changed (a ban)", async () => {
        await apiKeys().add(anApiKey({ id: 1, ...read }));
        await apiKeys().ban(1, {
          at: at("2026-11-21T12:00:00.000Z"),
          until: at("2026-11-21T12:15:00.000Z"),
          forgetBefore: at("2026-11-20T12:00:00.000Z"),
        });

        expect(
          await apiKeys().replaceSettings(
            { id: 1, ...read, label: "renamed" },
            { ...read, limits: { perMinute: 7, perDay: 70 } },
          ),
        ).toBe(true);
        expect(await apiKeys().ofId(1)).toMatchObject({
          label: "renamed",
          bannedUntil: at("2026-11-21T12:15:00.000Z"),
        });
      });
    });

    it("revokes a key at the given time; a missing key cannot be revoked", async () => {
      await apiKeys().add(anApiKey({ id: 1 }));

      expect(await apiKeys().revoke(1, at("2026-11-21T12:34:56.789Z"))).toBe(true);
      expect((await apiKeys().ofId(1))?.revokedAt).toEqual(at("2026-11-21T12:34:56.789Z"));
      expect(await apiKeys().revoke(2, at("2026-11-21T12:34:56.789Z"))).toBe(false);
    });

    describe("ban and unban", () => {
      it("bans until the given time and records when the ban started", async () => {
        await apiKeys().add(anApiKey({ id: 1 }));

        await apiKeys().ban(1, {
          at: at("2026-11-21T12:00:00.123Z"),
          until: at("2026-11-21T12:15:00.123Z"),
          forgetBefore: at("2026-11-20T12:00:00.123Z"),
        });

        const key = await apiKeys().ofId(1);
        expect(key?.bannedUntil).toEqual(at("2026-11-21T12:15:00.123Z"));
        expect(key?.recentBans).toEqual([at("2026-11-21T12:00:00.123Z")]);
      });

      it("forgets bans from before `forgetBefore` and keeps later ones", async () => {
        const forgotten = at("2026-11-20T09:00:00.000Z");
        const remembered = [at("2026-11-20T13:00:00.000Z"), at("2026-11-21T10:00:00.000Z")];
        await apiKeys().add(anApiKey({ id: 1, recentBans: [forgotten, ...remembered] }));

        await apiKeys().ban(1, {
          at: at("2026-11-21T12:00:00.000Z"),
          until: at("2026-11-21T14:00:00.000Z"),
          forgetBefore: at("2026-11-20T12:00:00.000Z"),
        });

        expect((await apiKeys().ofId(1))?.recentBans).toEqual([...remembered, at("2026-11-21T12:00:00.000Z")]);
      });

      it("starts no second ban while one is running, and records only the first", async () => {
        await apiKeys().add(anApiKey({ id: 1 }));
        const first = {
          at: at("2026-11-21T12:00:00.000Z"),
          until: at("2026-11-21T12:15:00.000Z"),
          forgetBefore: at("2026-11-20T12:00:00.000Z"),
        };
        const racing = await Promise.all([apiKeys().ban(1, first), apiKeys().ban(1, first), apiKeys().ban(1, first)]);

        expect(racing.filter(Boolean)).toHaveLength(1);
        expect(await apiKeys().ban(1, { ...first, until: at("2026-11-21T13:00:00.000Z") })).toBe(false);
        const key = await apiKeys().ofId(1);
        expect(key?.bannedUntil).toEqual(at("2026-11-21T12:15:00.000Z"));
        expect(key?.recentBans).toEqual([at("2026-11-21T12:00:00.000Z")]);

        const afterIt = {
          at: at("2026-11-21T12:15:00.000Z"),
          until: at("2026-11-21T12:45:00.000Z"),
          forgetBefore: at("2026-11-20T12:15:00.000Z"),
        };
        expect(await apiKeys().ban(1, afterIt)).toBe(true);
        expect((await apiKeys().ofId(1))?.bannedUntil).toEqual(at("2026-11-21T12:45:00.000Z"));
      });

      it("lifts a ban but remembers it for escalation", async () => {
        await apiKeys().add(anApiKey({ id: 1 }));
        await apiKeys().ban(1, {
          at: at("2026-11-21T12:00:00.000Z"),
          until: at("2026-11-21T12:15:00.000Z"),
          forgetBefore: at("2026-11-20T12:00:00.000Z"),
        });

        expect(await apiKeys().unban(1)).toBe(true);
        const key = await apiKeys().ofId(1);
        expect(key?.bannedUntil).toBeUndefined();
        expect(key?.recentBans).toEqual([at("2026-11-21T12:00:00.000Z")]);
      });

      it("cannot unban a missing or revoked key", async () => {
        await apiKeys().add(
          anApiKey({ id: 1, bannedUntil: at("2026-11-21T12:15:00.000Z"), revokedAt: at("2026-11-21T12:05:00.000Z") }),
        );

        expect(await apiKeys().unban(1)).toBe(false);
        expect(await apiKeys().unban(2)).toBe(false);
        expect((await apiKeys().ofId(1))?.bannedUntil).toEqual(at("2026-11-21T12:15:00.000Z"));
      });
    });
  });
};
