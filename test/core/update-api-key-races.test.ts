import { describe, expect, it } from "vitest";
import { NodeSecrets } from "../../adapters/crypto/node-secrets.ts";
import type { AdminGuard } from "../../core/access/admin-guard.port.ts";
import type { ApiKeyChanges } from "../../core/access/api-key.ts";
import type { ApiKeys } from "../../core/access/api-keys.port.ts";
import { CreateApiKey } from "../../core/access/create-api-key.ts";
import { RevokeApiKey } from "../../core/access/revoke-api-key.ts";
import { SETTINGS_ATTEMPTS, UpdateApiKey } from "../../core/access/update-api-key.ts";
import { aWorld, type World } from "./world.ts";

/** The object with some methods replaced; the others still act on it. */
const overriding = <T extends object>(target: T, overrides: Partial<T>): T =>
  new Proxy(target, {
    get(object, property) {
      if (property in overrides) return overrides[property as keyof T];
      const value: unknown = Reflect.get(object, property);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });

/**
 * An UpdateApiKey whose first `times` settings writes are each preceded by `competing` (another admin's request,
 * or another instance's, run to its end): it lands between the use case's read and its write.
 */
const racedBy = (world: World, competing: (round: number) => Promise<unknown>, times = 1) => {
  let round = 0;
  const apiKeys = overriding<ApiKeys>(world.apiKeys, {
    replaceSettings: async (key, expected) => {
      round += 1;
      if (round <= times) await competing(round);
      return world.apiKeys.replaceSettings(key, expected);
    },
  });
  return new UpdateApiKey({ apiKeys, adminGuard: world.adminGuard });
};

const given = async (world: World, role: "admin" | "customer", label: string = role) =>
  (await new CreateApiKey({ ...world, secrets: new NodeSecrets() }).execute({ label, role, plan: "pro" })).key.id;
const update = (world: World, id: number, changes: ApiKeyChanges) => new UpdateApiKey(world).execute(id, changes);
const revoke = (world: World, id: number) => new RevokeApiKey(world).execute(id);

/** Two admin keys (1 and 2) and a customer key (3). */
const aWorldWithKeys = async () => {
  const world = aWorld();
  const keys = {
    first: await given(world, "admin", "first"),
    second: await given(world, "admin", "second"),
    customer: await given(world, "customer"),
  };
  return { world, ...keys };
};

describe("UpdateApiKey racing other changes of the same key", () => {
  it("a label change does not undo a promotion made meanwhile; the other admin can then go, the promoted one cannot", async () => {
    const { world, first, second, customer } = await aWorldWithKeys();
    await revoke(world, first);

    await racedBy(world, () => update(world, customer, { role: "admin" })).execute(customer, { label: "renamed" });

    expect(await world.apiKeys.ofId(customer)).toMatchObject({ label: "renamed", role: "admin" });
    expect(await world.adminGuard.tracked()).toEqual([second, customer]);
    await revoke(world, second);
    expect(await world.apiKeys.anyActiveWithRole("admin")).toBe(true);
    await expect(revoke(world, customer)).rejects.toMatchObject({ code: "last_admin_key" });
  });

  it("a label change does not undo a demotion made meanwhile, and the guard does not count the demoted key", async () => {
    const { world, first, second } = await aWorldWithKeys();

    await racedBy(world, () => update(world, second, { role: "staff" })).execute(second, { label: "renamed" });

    expect(await world.apiKeys.ofId(second)).toMatchObject({ label: "renamed", role: "staff" });
    expect(await world.adminGuard.tracked()).toEqual([first]);
    await expect(revoke(world, first)).rejects.toMatchObject({ code: "last_admin_key" });
  });

  it("two demotions of the same admin: the later one applies to the key as the first left it; the guard lets it go once", async () => {
    const { world, first, second } = await aWorldWithKeys();

    const updated = await racedBy(world, () =>
      update(world, second, { role: "staff", label: "first demotion" }),
    ).execute(second, {
      role: "customer",
    });

    expect(updated).toMatchObject({ label: "first demotion", role: "customer" });
    expect(await world.apiKeys.ofId(second)).toMatchObject({ label: "first demotion", role: "customer" });
    expect(await world.adminGuard.tracked()).toEqual([first]);
    await expect(revoke(world, first)).rejects.toMatchObject({ code: "last_admin_key" });
  });

  it("two promotions of the same key: both changes are kept and the key is tracked", async () => {
    const { world, first, customer } = await aWorldWithKeys();

    await racedBy(world, () => update(world, customer, { role: "admin", label: "first promotion" })).execute(customer, {
      role: "admin",
      plan: "business",
    });

    expect(await world.apiKeys.ofId(customer)).toMatchObject({
      label: "first promotion",
      role: "admin",
      plan: "business",
    });
    expect(await world.adminGuard.tracked()).toEqual([first, 2, customer]);
  });

  it("a demotion racing the revocation of the other admin: the revocation is refused, the demotion applies", async () => {
    const { world, first, second } = await aWorldWithKeys();
    let refused: unknown;

    await racedBy(world, () => revoke(world, first).catch((error: unknown) => (refused = error))).execute(second, {
      role: "staff",
    });

    expect(refused).toMatchObject({ code: "last_admin_key" });
    expect(await world.apiKeys.ofId(first)).toMatchObject({ role: "admin", revokedAt: undefined });
    expect(await world.apiKeys.ofId(second)).toMatchObject({ role: "staff" });
    expect(await world.adminGuard.tracked()).toEqual([first]);
  });

  it("a demotion whose write lost to a label change (after it released the key) applies to the renamed key at the retry", async () => {
    const { world, first, second } = await aWorldWithKeys();
    const guardDuringRace: number[][] = [];

    await racedBy(world, async () => {
      guardDuringRace.push(await world.adminGuard.tracked());
      await update(world, second, { label: "renamed" });
    }).execute(second, { role: "staff" });

    expect(guardDuringRace).toEqual([[first]]);
    expect(await world.apiKeys.ofId(second)).toMatchObject({ label: "renamed", role: "staff" });
    expect(await world.adminGuard.tracked()).toEqual([first]);
  });

  it(`a demotion that loses ${SETTINGS_ATTEMPTS} times answers concurrent_update and leaves the key an admin the guard counts`, async () => {
    const { world, first, second } = await aWorldWithKeys();
    const competing = racedBy(
      world,
      (round) => update(world, second, { label: `renamed ${round}` }),
      SETTINGS_ATTEMPTS,
    );

    await expect(competing.execute(second, { role: "staff" })).rejects.toMatchObject({ code: "concurrent_update" });

    expect(await world.apiKeys.ofId(second)).toMatchObject({ label: `renamed ${SETTINGS_ATTEMPTS}`, role: "admin" });
    expect(await world.adminGuard.tracked()).toEqual([first, second]);
    await revoke(world, first);
    await expect(revoke(world, second)).rejects.toMatchObject({ code: "last_admin_key" });
  });

  it(`a change that loses ${SETTINGS_ATTEMPTS - 1} times applies at the last attempt`, async () => {
    const { world, customer } = await aWorldWithKeys();

    await racedBy(
      world,
      (round) => update(world, customer, { label: `renamed ${round}` }),
      SETTINGS_ATTEMPTS - 1,
    ).execute(customer, {
      plan: "business",
    });

    expect(await world.apiKeys.ofId(customer)).toMatchObject({
      label: `renamed ${SETTINGS_ATTEMPTS - 1}`,
      plan: "business",
    });
  });

  it("answers not_found when the key was revoked between the read and the write", async () => {
    const { world, customer } = await aWorldWithKeys();

    await expect(
      racedBy(world, () => revoke(world, customer)).execute(customer, { label: "renamed" }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("a demotion that writes between a promotion's tracking and its check still leaves the guard without the demoted key", async () => {
    const { world, first, second, customer } = await aWorldWithKeys();
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let demotionWaits = () => {};
    const demotionAtGate = new Promise<void>((resolve) => (demotionWaits = resolve));
    const demotion = new UpdateApiKey({
      apiKeys: overriding<ApiKeys>(world.apiKeys, {
        replaceSettings: async (key, expected) => {
          demotionWaits();
          await gate;
          return world.apiKeys.replaceSettings(key, expected);
        },
      }),
      adminGuard: world.adminGuard,
    });
    let demoted: Promise<unknown> = Promise.resolve();
    // The promotion has written the role; before it tracks the key, the demotion reads it and releases it (untracked),
    // then waits; the promotion tracks the key and checks the role (still admin); only then the demotion writes.
    const promotion = new UpdateApiKey({
      apiKeys: world.apiKeys,
      adminGuard: overriding<AdminGuard>(world.adminGuard, {
        track: async (id) => {
          demoted = demotion.execute(customer, { role: "customer" });
          await demotionAtGate;
          await world.adminGuard.track(id);
        },
      }),
    });

    await promotion.execute(customer, { role: "admin" });
    openGate();
    await demoted;

    expect(await world.apiKeys.ofId(customer)).toMatchObject({ role: "customer" });
    expect(await world.adminGuard.tracked()).toEqual([first, second]);
  });
});
