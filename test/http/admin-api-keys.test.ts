import { beforeEach, describe, expect, it } from "vitest";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { SETTINGS_ATTEMPTS } from "../../core/access/update-api-key.ts";
import { expectError, expectValidationFailed, limitOf } from "../support/http-assertions.ts";
import { usePetstore } from "../support/http-fixtures.ts";
import { ADMIN_KEY, startTestPetstore } from "../support/test-petstore.ts";
import { planLimits } from "../../core/rate-limiting/plans.ts";

const NOW = "2026-11-21T12:00:00.000Z";

describe("admin: API keys", () => {
  const { t } = usePetstore({ keys: false });

  const admin = () => ({ key: t.adminKey });
  const create = (body: unknown) => t.client.post("/admin/api-keys", { ...admin(), body });

  describe("POST /admin/api-keys", () => {
    it("creates a key: 201, Location, and the secret only in this response", async () => {
      const res = await create({ label: " Partner shop ", role: "customer", plan: "pro" });
      expect(res.status).toBe(201);
      expect(res.headers.get("location")).toBe("/admin/api-keys/2");
      expect(res.body).toEqual({
        id: 2,
        key: expect.any(String),
        label: "Partner shop",
        role: "customer",
        plan: "pro",
        limits: planLimits.pro,
        createdAt: NOW,
        revoked: false,
      });
      const secret: string = res.body.key;
      // At least 32 random bytes: 43 base64url characters.
      expect(secret.replace(/^pk_/, "")).toMatch(/^[A-Za-z0-9_-]{43,}$/);

      const fetched = await t.client.get(res.headers.get("location")!, admin());
      const { key: _secret, ...view } = res.body;
      expect(fetched.body).toEqual(view);
      const listed = await t.client.get("/admin/api-keys", admin());
      for (const body of [fetched.body, listed.body]) {
        expect(JSON.stringify(body)).not.toContain(secret);
        expect(JSON.stringify(body)).not.toMatch(/"key"|secretHash|hash/i);
      }
    });

    it("stores the secret only as a hash", async () => {
      const secret = (await create({ label: "a", role: "customer", plan: "free" })).body.key;
      const stored = await t.stores.apiKeys.ofId(2);
      expect(stored?.secretHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(stored)).not.toContain(secret);
    });

    it("makes a different secret every time, each usable at once with its role", async () => {
      const a = (await create({ label: "a", role: "customer", plan: "free" })).body.key;
      const b = (await create({ label: "b", role: "staff", plan: "free" })).body.key;
      expect(a).not.toBe(b);
      expect((await t.client.get("/pets", { key: a })).status).toBe(200);
      expectError(await t.client.post("/categories", { key: a, body: { name: "X" } }), 403, "forbidden");
      expect((await t.client.post("/categories", { key: b, body: { name: "X" } })).status).toBe(201);
    });

    it("creates an enterprise key with its own limits", async () => {
      const res = await create({
        label: "big",
        role: "staff",
        plan: "enterprise",
        limits: { perMinute: 5000, perDay: 2_000_000 },
      });
      expect(res.status).toBe(201);
      expect(res.body.limits).toEqual({ perMinute: 5000, perDay: 2_000_000 });
    });

    it.each([
      ["enterprise without limits", { label: "x", role: "customer", plan: "enterprise" }],
      ["free with limits", { label: "x", role: "customer", plan: "free", limits: { perMinute: 5, perDay: 10 } }],
      ["pro with limits", { label: "x", role: "customer", plan: "pro", limits: { perMinute: 5, perDay: 10 } }],
    ])("answers 400 validation_failed for %s and creates nothing", async (_, body) => {
      expectError(await create(body), 400, "validation_failed");
      expect((await t.client.get("/admin/api-keys", admin())).body).toHaveLength(1);
    });

    it.each([
      ["a missing label", { role: "customer", plan: "free" }, "body.label"],
      ["an empty label", { label: "  ", role: "customer", plan: "free" }, "body.label"],
      ["a label of 101 characters", { label: "l".repeat(101), role: "customer", plan: "free" }, "body.label"],
      ["a bad role", { label: "x", role: "owner", plan: "free" }, "body.role"],
      ["a missing role", { label: "x", plan: "free" }, "body.role"],
      ["a bad plan", { label: "x", role: "customer", plan: "gold" }, "body.plan"],
      [
        "limits of 0 per minute",
        { label: "x", role: "customer", plan: "enterprise", limits: { perMinute: 0, perDay: 10 } },
        "body.limits.perMinute",
      ],
      [
        "fractional limits",
        { label: "x", role: "customer", plan: "enterprise", limits: { perMinute: 1.5, perDay: 10 } },
        "body.limits.perMinute",
      ],
      [
        "limits without perDay",
        { label: "x", role: "customer", plan: "enterprise", limits: { perMinute: 5 } },
        "body.limits.perDay",
      ],
      ["a secret chosen by the client", { label: "x", role: "customer", plan: "free", key: "my-own-secret" }, "body"],
    ])("answers 400 validation_failed for %s", async (_, body, path) => {
      expectValidationFailed(await create(body), path);
      expect((await t.client.get("/admin/api-keys", admin())).body).toHaveLength(1);
    });
  });

  describe("GET /admin/api-keys and /admin/api-keys/{keyId}", () => {
    it("lists every key, the bootstrap admin key first, revoked ones marked", async () => {
      await create({ label: "shop", role: "customer", plan: "free" });
      await create({ label: "gone", role: "staff", plan: "business" });
      await t.client.delete("/admin/api-keys/3", admin());
      const res = await t.client.get("/admin/api-keys", admin());
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        {
          id: 1,
          label: "bootstrap admin (PETSTORE_ADMIN_KEY)",
          role: "admin",
          plan: "business",
          limits: planLimits.business,
          createdAt: NOW,
          revoked: false,
        },
        {
          id: 2,
          label: "shop",
          role: "customer",
          plan: "free",
          limits: planLimits.free,
          createdAt: NOW,
          revoked: false,
        },
        {
          id: 3,
          label: "gone",
          role: "staff",
          plan: "business",
          limits: planLimits.business,
          createdAt: NOW,
          revoked: true,
        },
      ]);
    });

    it("answers one key, and 404 for an id that names none", async () => {
      expect((await t.client.get("/admin/api-keys/1", admin())).body).toMatchObject({ id: 1, role: "admin" });
      expectError(await t.client.get("/admin/api-keys/2", admin()), 404, "not_found");
    });
  });

  describe("PATCH /admin/api-keys/{keyId}", () => {
    let secret: string;
    beforeEach(async () => {
      secret = (await create({ label: "shop", role: "customer", plan: "free" })).body.key;
    });
    const patch = (body: unknown, id = 2) => t.client.patch(`/admin/api-keys/${id}`, { ...admin(), body });

    it("changes label, role and plan, answers the full key, and the change shows on the key's next request", async () => {
      expect(limitOf(await t.client.get("/pets", { key: secret }))).toBe(planLimits.free.perMinute);
      const res = await patch({ label: "Shop", role: "staff", plan: "business" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: 2,
        label: "Shop",
        role: "staff",
        plan: "business",
        limits: planLimits.business,
        createdAt: NOW,
        revoked: false,
      });
      const next = await t.client.post("/categories", { key: secret, body: { name: "Staff made this" } });
      expect(next.status).toBe(201);
      expect(limitOf(next)).toBe(planLimits.business.perMinute);
    });

    it("changes only what is sent", async () => {
      expect((await patch({ label: "renamed" })).body).toMatchObject({
        label: "renamed",
        role: "customer",
        plan: "free",
      });
      expect((await patch({})).body).toMatchObject({ label: "renamed", role: "customer", plan: "free" });
    });

    it("moves a key to enterprise with limits, changes the limits alone, and back to a fixed plan", async () => {
      expect((await patch({ plan: "enterprise", limits: { perMinute: 7, perDay: 70 } })).body.limits).toEqual({
        perMinute: 7,
        perDay: 70,
      });
      expect(limitOf(await t.client.get("/pets", { key: secret }))).toBe(7);
      expect((await patch({ limits: { perMinute: 9, perDay: 90 } })).body).toMatchObject({
        plan: "enterprise",
        limits: { perMinute: 9, perDay: 90 },
      });
      expect((await patch({ label: "still enterprise" })).body.limits).toEqual({ perMinute: 9, perDay: 90 });
      expect((await patch({ plan: "pro" })).body).toMatchObject({
        plan: "pro",
        limits: planLimits.pro,
      });
      expect(limitOf(await t.client.get("/pets", { key: secret }))).toBe(planLimits.pro.perMinute);
    });

    it("answers 400 validation_failed for enterprise without limits and for limits on a fixed plan, changing nothing", async () => {
      expectError(await patch({ plan: "enterprise" }), 400, "validation_failed");
      expectError(await patch({ limits: { perMinute: 5, perDay: 50 } }), 400, "validation_failed");
      expectError(await patch({ plan: "pro", limits: { perMinute: 5, perDay: 50 } }), 400, "validation_failed");
      expect((await t.client.get("/admin/api-keys/2", admin())).body).toMatchObject({
        plan: "free",
        limits: planLimits.free,
      });
    });

    it.each([
      ["an empty label", { label: "" }, "body.label"],
      ["a bad role", { role: "root" }, "body.role"],
      ["a bad plan", { plan: "platinum" }, "body.plan"],
      ["an unknown property", { revoked: false }, "body"],
    ])("answers 400 validation_failed for %s", async (_, body, path) => {
      expectValidationFailed(await patch(body), path);
    });

    it("answers 404 for a missing or revoked key", async () => {
      expectError(await patch({ label: "x" }, 3), 404, "not_found");
      await t.client.delete("/admin/api-keys/2", admin());
      expectError(await patch({ label: "x" }), 404, "not_found");
      expect((await t.client.get("/admin/api-keys/2", admin())).body.label).toBe("shop");
    });
  });

  describe("DELETE /admin/api-keys/{keyId}", () => {
    it("revokes: 204 with an empty body, and the key answers 401 from then on", async () => {
      const secret = (await create({ label: "shop", role: "staff", plan: "free" })).body.key;
      expect((await t.client.get("/pets", { key: secret })).status).toBe(200);
      const res = await t.client.delete("/admin/api-keys/2", admin());
      expect(res.status).toBe(204);
      expect(res.body).toBe("");
      expectError(await t.client.get("/pets", { key: secret }), 401, "unauthorized");
      t.clock.advance(86_400_000);
      expectError(await t.client.get("/pets", { key: secret }), 401, "unauthorized");
      expect((await t.client.get("/admin/api-keys/2", admin())).body.revoked).toBe(true);
    });

    it("answers 204 again for a key already revoked, and 404 for an id that names none", async () => {
      await create({ label: "shop", role: "staff", plan: "free" });
      await t.client.delete("/admin/api-keys/2", admin());
      expect((await t.client.delete("/admin/api-keys/2", admin())).status).toBe(204);
      expectError(await t.client.delete("/admin/api-keys/3", admin()), 404, "not_found");
    });
  });

  describe("the last active admin key", () => {
    it("cannot be revoked or demoted: 409 last_admin_key, nothing changes; with a second admin it can", async () => {
      const me = (await t.client.get("/admin/api-keys", admin())).body.find(
        (k: { role: string }) => k.role === "admin",
      );
      const revoke = await t.client.delete(`/admin/api-keys/${me.id}`, admin());
      expectError(revoke, 409, "last_admin_key");
      const demote = await t.client.patch(`/admin/api-keys/${me.id}`, { ...admin(), body: { role: "staff" } });
      expectError(demote, 409, "last_admin_key");
      expect((await t.client.get(`/admin/api-keys/${me.id}`, admin())).body).toMatchObject({
        role: "admin",
        revoked: false,
      });

      // A staff key promoted to admin: now the first one may go, and the promoted one is the last.
      const other = await create({ label: "deputy", role: "staff", plan: "pro" });
      expect(
        (await t.client.patch(`/admin/api-keys/${other.body.id}`, { ...admin(), body: { role: "admin" } })).status,
      ).toBe(200);
      expect((await t.client.delete(`/admin/api-keys/${me.id}`, admin())).status).toBe(204);
      const deputy = { key: other.body.key as string };
      expectError(
        await t.client.patch(`/admin/api-keys/${other.body.id}`, { ...deputy, body: { role: "customer" } }),
        409,
        "last_admin_key",
      );
      expectError(await t.client.delete(`/admin/api-keys/${other.body.id}`, deputy), 409, "last_admin_key");
      expect((await t.client.get("/admin/api-keys", deputy)).status).toBe(200);
    });

    it("two admins revoking each other at once: one succeeds, the other answers 409", async () => {
      const me = (await t.client.get("/admin/api-keys", admin())).body[0];
      const other = await create({ label: "second admin", role: "admin", plan: "business" });
      const [a, b] = await Promise.all([
        t.client.delete(`/admin/api-keys/${other.body.id}`, admin()),
        t.client.delete(`/admin/api-keys/${me.id}`, { key: other.body.key }),
      ]);
      expect([a.status, b.status].sort()).toEqual([204, 409]);
      const admins = (
        await t.client.get("/admin/api-keys", a.status === 204 ? admin() : { key: other.body.key })
      ).body.filter((k: { role: string; revoked: boolean }) => k.role === "admin" && !k.revoked);
      expect(admins).toHaveLength(1);
    });
  });

  describe("the bootstrap admin key", () => {
    it("is the configured PETSTORE_ADMIN_KEY, an admin on the business plan", async () => {
      const res = await t.client.get("/admin/api-keys/1", { key: ADMIN_KEY });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ role: "admin", plan: "business", revoked: false });
      expect(limitOf(res)).toBe(planLimits.business.perMinute);
    });

    it("is generated when none is configured, and works", async () => {
      const generated = await startTestPetstore({ env: { PETSTORE_ADMIN_KEY: "" } });
      try {
        const secret = generated.petstore.generatedAdminKey;
        expect(secret).toEqual(expect.any(String));
        expect((await generated.client.get("/admin/api-keys", { key: secret })).body).toEqual([
          expect.objectContaining({ id: 1, role: "admin", plan: "business", label: "bootstrap admin (generated)" }),
        ]);
        expectError(await generated.client.get("/admin/api-keys", { key: ADMIN_KEY }), 401, "unauthorized");
      } finally {
        await generated.close();
      }
    });
  });
});

describe("admin: a PATCH that keeps losing to concurrent changes of the key", () => {
  it(`answers 409 concurrent_update in the Error shape after ${SETTINGS_ATTEMPTS} lost writes, having changed nothing itself`, async () => {
    const stores = createMemoryStores();
    const replaceSettings = stores.apiKeys.replaceSettings.bind(stores.apiKeys);
    let competing = 0;
    let raced: number | undefined;
    // Another request (or instance) renames the key between this request's read and each of its writes.
    stores.apiKeys.replaceSettings = async (key, expected) => {
      if (key.id === raced) {
        const current = (await stores.apiKeys.ofId(key.id))!;
        const settings = { label: current.label, role: current.role, plan: current.plan, limits: current.limits };
        competing += 1;
        await replaceSettings({ ...settings, id: key.id, label: `renamed elsewhere ${competing}` }, settings);
      }
      return replaceSettings(key, expected);
    };
    const t = await startTestPetstore({ stores });
    try {
      const created = await t.client.post("/admin/api-keys", {
        key: t.adminKey,
        body: { label: "partner", role: "customer", plan: "pro" },
      });
      raced = created.body.id as number;

      const res = await t.client.patch(`/admin/api-keys/${raced}`, { key: t.adminKey, body: { plan: "business" } });

      expectError(res, 409, "concurrent_update");
      expect(competing).toBe(SETTINGS_ATTEMPTS);
      const after = await t.client.get(`/admin/api-keys/${raced}`, { key: t.adminKey });
      expect(after.body).toMatchObject({ label: `renamed elsewhere ${SETTINGS_ATTEMPTS}`, plan: "pro" });
      // Once the others stop, the same change applies.
      raced = undefined;
      const retried = await t.client.patch(`/admin/api-keys/${after.body.id}`, {
        key: t.adminKey,
        body: { plan: "business" },
      });
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({ label: `renamed elsewhere ${SETTINGS_ATTEMPTS}`, plan: "business" });
    } finally {
      await t.close();
    }
  });
});

describe("admin: bans", () => {
  // One strike is enough here: the first refused request bans the key.
  const { t } = usePetstore({ keys: false, env: { PETSTORE_BAN_STRIKES: "1" } });

  const banned = async () => {
    const secret = await t.newKey("customer", "enterprise", { perMinute: 1, perDay: 100 });
    expect((await t.client.get("/pets", { key: secret })).status).toBe(200);
    expectError(await t.client.get("/pets", { key: secret }), 429, "rate_limited");
    expectError(await t.client.get("/pets", { key: secret }), 403, "api_key_banned");
    return secret;
  };

  it("shows the ban state in the list and on the key", async () => {
    await banned();
    const bannedUntil = "2026-11-21T12:15:00.000Z";
    expect((await t.client.get("/admin/api-keys/2", { key: t.adminKey })).body.bannedUntil).toBe(bannedUntil);
    const listed = (await t.client.get("/admin/api-keys", { key: t.adminKey })).body;
    expect(listed.map((k: { bannedUntil?: string }) => k.bannedUntil)).toEqual([undefined, bannedUntil]);
    t.clock.advance(15 * 60_000);
    expect((await t.client.get("/admin/api-keys/2", { key: t.adminKey })).body).not.toHaveProperty("bannedUntil");
  });

  it("POST /admin/api-keys/{keyId}/unban lifts a ban at once", async () => {
    const secret = await banned();
    t.clock.advance(60_000); // a new minute: the key has quota again, only the ban holds it back
    expectError(await t.client.get("/pets", { key: secret }), 403, "api_key_banned");
    const res = await t.client.post("/admin/api-keys/2/unban", { key: t.adminKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 2, revoked: false });
    expect(res.body).not.toHaveProperty("bannedUntil");
    expect((await t.client.get("/pets", { key: secret })).status).toBe(200);
  });

  it("unban answers 200 for a key that is not banned, and 404 for a missing or revoked one", async () => {
    await t.newKey("customer");
    expect((await t.client.post("/admin/api-keys/2/unban", { key: t.adminKey })).status).toBe(200);
    expectError(await t.client.post("/admin/api-keys/3/unban", { key: t.adminKey }), 404, "not_found");
    await t.client.delete("/admin/api-keys/2", { key: t.adminKey });
    expectError(await t.client.post("/admin/api-keys/2/unban", { key: t.adminKey }), 404, "not_found");
  });
});
