import { describe, expect, it } from "vitest";
import { RevokeApiKey } from "../../core/access/revoke-api-key.ts";
import { UpdateApiKey } from "../../core/access/update-api-key.ts";
import type { Stores } from "../../core/stores.ts";
import { SystemClock } from "../../adapters/clock/system-clock.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { anApiKey } from "./mothers.ts";

export const adminGuardContract = (harness: ContractHarness): void => {
  describe(`AdminGuard contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const guard = () => stores().adminGuard;

    it("tracks admins; releases any of them but the last", async () => {
      await guard().track(3);
      await guard().track(1);
      await guard().track(3);
      expect(await guard().tracked()).toEqual([1, 3]);
      expect(await guard().release(3, { retire: false })).toBe(true);
      expect(await guard().release(1, { retire: false })).toBe(false);
      expect(await guard().tracked()).toEqual([1]);
    });

    it("releases an untracked key at once, even when one admin is left", async () => {
      await guard().track(1);
      expect(await guard().release(2, { retire: true })).toBe(true);
      expect(await guard().tracked()).toEqual([1]);
    });

    it("never tracks a retired key again; a key released without retiring may come back", async () => {
      await guard().track(1);
      await guard().track(2);
      await guard().track(3);
      expect(await guard().release(2, { retire: true })).toBe(true);
      expect(await guard().release(3, { retire: false })).toBe(true);
      await guard().track(2);
      await guard().track(3);
      expect(await guard().tracked()).toEqual([1, 3]);
    });

    it("starts empty, and the first uses at once all see one guard", async () => {
      expect(await guard().tracked()).toEqual([]);
      await Promise.all([1, 2, 3, 4].map((id) => guard().track(id)));
      expect(await guard().tracked()).toEqual([1, 2, 3, 4]);
    });

    it("under concurrency, releasing every tracked admin at once leaves exactly one", async () => {
      const ids = [1, 2, 3, 4, 5, 6];
      for (const id of ids) await guard().track(id);
      const other = harness.sibling?.() ?? stores();
      const released = await Promise.all(
        ids.map((id, i) => (i % 2 === 0 ? stores() : other).adminGuard.release(id, { retire: i % 3 === 0 })),
      );
      expect(released.filter((r) => r)).toHaveLength(5);
      expect(await guard().tracked()).toHaveLength(1);
    });

    it("two admins revoking each other at once, on two instances: one succeeds, the other gets last_admin_key", async () => {
      const other = harness.sibling?.() ?? stores();
      const clock = new SystemClock();
      const revoke = (s: Stores, id: number) => new RevokeApiKey({ ...s, clock }).execute(id);
      const demote = (s: Stores, id: number) => new UpdateApiKey(s).execute(id, { role: "staff" });
      await stores().apiKeys.add(anApiKey({ id: 100, role: "admin" }));
      await guard().track(100);
      let survivor = 100;
      for (let round = 0; round < 6; round += 1) {
        // Each round: the surviving admin and a new one race to remove each other.
        const newcomer = round + 1;
        await stores().apiKeys.add(anApiKey({ id: newcomer, role: "admin" }));
        await guard().track(newcomer);
        const outcomes = await Promise.allSettled(
          round % 2 === 0
            ? [revoke(stores(), survivor), revoke(other, newcomer)]
            : [demote(stores(), survivor), revoke(other, newcomer)],
        );
        expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
        expect(outcomes.find((o) => o.status === "rejected")).toMatchObject({ reason: { code: "last_admin_key" } });
        const admins = (await stores().apiKeys.list({ limit: 200 })).filter((k) => k.role === "admin" && !k.revokedAt);
        expect(admins).toHaveLength(1);
        expect(await guard().tracked()).toEqual([admins[0]!.id]);
        survivor = admins[0]!.id;
      }
    });
  });
};
