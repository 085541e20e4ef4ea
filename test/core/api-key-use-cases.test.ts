import { describe, expect, it } from "vitest";
import { NodeSecrets } from "../../adapters/crypto/node-secrets.ts";
import { CreateApiKey } from "../../core/access/create-api-key.ts";
import { EnsureAdminKey } from "../../core/access/ensure-admin-key.ts";
import { RevokeApiKey } from "../../core/access/revoke-api-key.ts";
import { UnbanApiKey } from "../../core/access/unban-api-key.ts";
import { UpdateApiKey } from "../../core/access/update-api-key.ts";
import { aWorld, type World } from "./world.ts";

const withSecrets = (world: World) => ({ ...world, secrets: new NodeSecrets() });
const enterpriseLimits = { perMinute: 5_000, perDay: 1_000_000 };

describe("CreateApiKey", () => {
  it("issues a secret once and stores only its hash", async () => {
    const world = aWorld();
    const ports = withSecrets(world);

    const { key, secret } = await new CreateApiKey(ports).execute({ label: "shop", role: "customer", plan: "free" });

    expect(secret.length).toBeGreaterThanOrEqual(43);
    expect(key).toEqual({
      id: 1,
      label: "shop",
      role: "customer",
      plan: "free",
      limits: undefined,
      secretHash: ports.secrets.hash(secret),
      createdAt: world.clock.now(),
      revokedAt: undefined,
      bannedUntil: undefined,
      recentBans: [],
    });
    expect(JSON.stringify(await world.apiKeys.ofId(1))).not.toContain(secret);
    expect(await world.apiKeys.activeOfSecretHash(ports.secrets.hash(secret))).toEqual(key);
  });

  it("accepts limits for the enterprise plan", async () => {
    const { key } = await new CreateApiKey(withSecrets(aWorld())).execute({
      label: "partner",
      role: "staff",
      plan: "enterprise",
      limits: enterpriseLimits,
    });

    expect(key.limits).toEqual(enterpriseLimits);
  });

  it("refuses the enterprise plan without limits with validation_failed", async () => {
    const world = aWorld();

    await expect(
      new CreateApiKey(withSecrets(world)).execute({ label: "partner", role: "staff", plan: "enterprise" }),
    ).rejects.toMatchObject({ code: "validation_failed" });
    expect(await world.apiKeys.list({ limit: 10 })).toEqual([]);
  });

  it.each(["free", "pro", "business"] as const)(
    "refuses limits on the %s plan with validation_failed",
    async (plan) => {
      await expect(
        new CreateApiKey(withSecrets(aWorld())).execute({
          label: "shop",
          role: "customer",
          plan,
          limits: enterpriseLimits,
        }),
      ).rejects.toMatchObject({ code: "validation_failed" });
    },
  );
});

describe("UpdateApiKey", () => {
  const given = async (world: World, draft: Parameters<CreateApiKey["execute"]>[0]) =>
    (await new CreateApiKey(withSecrets(world)).execute(draft)).key;

  it("changes what it is given and keeps the rest", async () => {
    const world = aWorld();
    const key = await given(world, { label: "shop", role: "customer", plan: "free" });

    const updated = await new UpdateApiKey(world).execute(key.id, { role: "staff", plan: "pro" });

    expect(updated).toEqual({ ...key, role: "staff", plan: "pro" });
    expect(await world.apiKeys.ofId(key.id)).toEqual(updated);
  });

  it("keeps an enterprise key's limits when they are not given", async () => {
    const world = aWorld();
    const key = await given(world, { label: "partner", role: "staff", plan: "enterprise", limits: enterpriseLimits });

    expect((await new UpdateApiKey(world).execute(key.id, { label: "renamed" })).limits).toEqual(enterpriseLimits);
  });

  it("drops the limits when an enterprise key moves to a fixed plan", async () => {
    const world = aWorld();
    const key = await given(world, { label: "partner", role: "staff", plan: "enterprise", limits: enterpriseLimits });

    const updated = await new UpdateApiKey(world).execute(key.id, { plan: "business" });

    expect(updated.limits).toBeUndefined();
    expect((await world.apiKeys.ofId(key.id))?.limits).toBeUndefined();
  });

  it("refuses a move to enterprise without limits, and limits on a fixed plan, with validation_failed", async () => {
    const world = aWorld();
    const key = await given(world, { label: "shop", role: "customer", plan: "free" });
    const update = new UpdateApiKey(world);

    await expect(update.execute(key.id, { plan: "enterprise" })).rejects.toMatchObject({ code: "validation_failed" });
    await expect(update.execute(key.id, { limits: enterpriseLimits })).rejects.toMatchObject({
      code: "validation_failed",
    });
    expect(await world.apiKeys.ofId(key.id)).toEqual(key);
  });

  it("answers not_found for a revoked or missing key", async () => {
    const world = aWorld();
    const key = await given(world, { label: "shop", role: "customer", plan: "free" });
    await new RevokeApiKey(withSecrets(world)).execute(key.id);
    const update = new UpdateApiKey(world);

    await expect(update.execute(key.id, { label: "again" })).rejects.toMatchObject({ code: "not_found" });
    await expect(update.execute(99, { label: "again" })).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("RevokeApiKey and UnbanApiKey", () => {
  it("revokes a key so its secret no longer finds it; revoking twice keeps the first time", async () => {
    const world = aWorld();
    const ports = withSecrets(world);
    const { key, secret } = await new CreateApiKey(ports).execute({ label: "shop", role: "customer", plan: "free" });
    const revoke = new RevokeApiKey(ports);

    await revoke.execute(key.id);
    world.clock.advance(60_000);
    await revoke.execute(key.id);

    expect(await world.apiKeys.activeOfSecretHash(ports.secrets.hash(secret))).toBeUndefined();
    expect((await world.apiKeys.ofId(key.id))?.revokedAt).toEqual(new Date("2026-11-21T12:00:00.000Z"));
  });

  it("lifts a ban", async () => {
    const world = aWorld();
    const ports = withSecrets(world);
    const { key } = await new CreateApiKey(ports).execute({ label: "shop", role: "customer", plan: "free" });
    const now = world.clock.now();
    await world.apiKeys.ban(key.id, { at: now, until: new Date(now.getTime() + 900_000), forgetBefore: new Date(0) });

    const unbanned = await new UnbanApiKey(ports.apiKeys).execute(key.id);

    expect(unbanned.bannedUntil).toBeUndefined();
    await expect(new UnbanApiKey(ports.apiKeys).execute(99)).rejects.toMatchObject({
      code: "not_found",
      message: "API key 99 does not exist",
    });
  });

  it("says a revoked key is revoked when asked to lift its ban", async () => {
    const world = aWorld();
    const ports = withSecrets(world);
    const { key } = await new CreateApiKey(ports).execute({ label: "shop", role: "customer", plan: "free" });
    await new RevokeApiKey(ports).execute(key.id);

    await expect(new UnbanApiKey(ports.apiKeys).execute(key.id)).rejects.toMatchObject({
      code: "not_found",
      message: `API key ${key.id} is revoked`,
    });
  });
});

describe("EnsureAdminKey", () => {
  const adminSecret = "configured-admin-secret-with-at-least-32-characters";

  it("makes a configured secret a valid admin key on the business plan, once", async () => {
    const world = aWorld();
    const ports = withSecrets(world);
    const ensure = new EnsureAdminKey(ports);

    expect(await ensure.execute(adminSecret)).toEqual({ generatedSecret: undefined });
    expect(await ensure.execute(adminSecret)).toEqual({ generatedSecret: undefined });

    expect(await world.apiKeys.activeOfSecretHash(ports.secrets.hash(adminSecret))).toMatchObject({
      role: "admin",
      plan: "business",
    });
    expect(await world.apiKeys.list({ limit: 10 })).toHaveLength(1);
  });

  it("without a configured secret, generates an admin key when none exists and returns its secret", async () => {
    const world = aWorld();
    const ports = withSecrets(world);

    const { generatedSecret } = await new EnsureAdminKey(ports).execute(undefined);

    expect(generatedSecret).toBeDefined();
    expect(await world.apiKeys.activeOfSecretHash(ports.secrets.hash(generatedSecret!))).toMatchObject({
      role: "admin",
      plan: "business",
    });
  });

  it("without a configured secret, leaves things alone when an admin key exists", async () => {
    const world = aWorld();
    const ports = withSecrets(world);
    await new CreateApiKey(ports).execute({ label: "root", role: "admin", plan: "pro" });

    expect(await new EnsureAdminKey(ports).execute(undefined)).toEqual({ generatedSecret: undefined });
    expect(await world.apiKeys.list({ limit: 10 })).toHaveLength(1);
  });

  it("tracks every active admin key at start-up (untracked ones too), so the last one cannot be revoked", async () => {
    const world = aWorld();
    const ports = withSecrets(world);
    const { key: first } = await new CreateApiKey(ports).execute({ label: "one", role: "admin", plan: "pro" });
    const { key: second } = await new CreateApiKey(ports).execute({ label: "two", role: "admin", plan: "pro" });
    // As after a crash between writing a key and tracking it: the first admin is not tracked.
    await world.adminGuard.release(first.id, { retire: false });
    expect(await world.adminGuard.tracked()).toEqual([second.id]);

    await new EnsureAdminKey(ports).execute(undefined);

    expect(await world.adminGuard.tracked()).toEqual([first.id, second.id]);
    await new RevokeApiKey(ports).execute(first.id);
    await expect(new RevokeApiKey(ports).execute(second.id)).rejects.toMatchObject({ code: "last_admin_key" });
  });

  it("lets go of tracked keys that are no active admins at start-up (left by a crash), so the last real admin cannot go", async () => {
    const world = aWorld();
    const ports = withSecrets(world);
    const create = new CreateApiKey(ports);
    const { key: admin } = await create.execute({ label: "root", role: "admin", plan: "pro" });
    const { key: customer } = await create.execute({ label: "shop", role: "customer", plan: "pro" });
    const { key: revoked } = await create.execute({ label: "old root", role: "admin", plan: "pro" });
    // As after crashes: one between tracking a key and checking its role, one between revoking and releasing.
    await world.adminGuard.track(customer.id);
    await world.apiKeys.revoke(revoked.id, world.clock.now());
    expect(await world.adminGuard.tracked()).toEqual([admin.id, customer.id, revoked.id]);

    await new EnsureAdminKey(ports).execute(undefined);

    expect(await world.adminGuard.tracked()).toEqual([admin.id]);
    await expect(new RevokeApiKey(ports).execute(admin.id)).rejects.toMatchObject({ code: "last_admin_key" });
  });

  it("without a configured secret, generates a new admin key when the only one was revoked (a store from before the guard)", async () => {
    const world = aWorld();
    const ports = withSecrets(world);
    const { key } = await new CreateApiKey(ports).execute({ label: "root", role: "admin", plan: "pro" });
    await world.apiKeys.revoke(key.id, world.clock.now());

    expect((await new EnsureAdminKey(ports).execute(undefined)).generatedSecret).toBeDefined();
    expect(await world.apiKeys.anyActiveWithRole("admin")).toBe(true);
  });
});
