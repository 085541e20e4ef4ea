import { describe, expect, it } from "vitest";
import { expectError } from "../support/http-assertions.ts";
import { usePetstore } from "../support/http-fixtures.ts";

const NOW = "2026-11-21T12:00:00.000Z";
/** Names the test resolver knows: the rest do not resolve. */
const dns: Record<string, string[]> = {
  "hooks.example": ["93.184.215.14"],
  "v6.hooks.example": ["2606:4700::1111"],
  "inside.example": ["10.1.2.3"],
  "rebind.example": ["93.184.215.14", "127.0.0.1"],
  "metadata.example": ["169.254.169.254"],
  "ula.example": ["fd12:3456::1"],
};

describe("admin: webhooks", () => {
  const { t } = usePetstore({
    keys: false,
    overrides: {
      addressResolver: {
        resolve: async (host) => {
          const found = dns[host];
          if (!found) throw new Error("ENOTFOUND");
          return found;
        },
      },
    },
  });

  const admin = () => ({ key: t.adminKey });
  const subscribe = (body: unknown) => t.client.post("/admin/webhooks", { ...admin(), body });

  it("creates a subscription: 201, Location, the secret only in this answer", async () => {
    const res = await subscribe({
      url: "https://hooks.example/petstore",
      events: ["order.placed", "inventory.changed"],
      description: " warehouse ",
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe("/admin/webhooks/1");
    expect(res.body).toEqual({
      id: 1,
      url: "https://hooks.example/petstore",
      events: ["order.placed", "inventory.changed"],
      description: "warehouse",
      createdAt: NOW,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) as unknown,
    });
    const { secret: _secret, ...view } = res.body as Record<string, unknown>;
    expect((await t.client.get("/admin/webhooks/1", admin())).body).toEqual(view);
    expect((await t.client.get("/admin/webhooks", admin())).body).toEqual([view]);
  });

  it("lists in pages with a Link to the next", async () => {
    for (let i = 0; i < 3; i++) await subscribe({ url: `https://hooks.example/${i}`, events: ["order.placed"] });
    const first = await t.client.get("/admin/webhooks?limit=2", admin());
    expect(first.body.map((w: { id: number }) => w.id)).toEqual([1, 2]);
    expect(first.headers.get("link")).toMatch(/after=2>; rel="next"$/);
    expect(
      (await t.client.get("/admin/webhooks?limit=2&after=2", admin())).body.map((w: { id: number }) => w.id),
    ).toEqual([3]);
  });

  it("rotates the secret: a new one, shown once; the previous one keeps signing for 24 hours", async () => {
    const created = await subscribe({ url: "https://hooks.example/a", events: ["order.placed"] });
    const rotated = await t.client.post("/admin/webhooks/1/rotate-secret", admin());
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(rotated.body.previousSecretExpiresAt).toBe("2026-11-22T12:00:00.000Z");
    expect((await t.client.get("/admin/webhooks/1", admin())).body.secret).toBeUndefined();
  });

  it("deletes: 204, then 404 everywhere", async () => {
    await subscribe({ url: "https://hooks.example/a", events: ["order.placed"] });
    expect((await t.client.delete("/admin/webhooks/1", admin())).status).toBe(204);
    expectError(await t.client.get("/admin/webhooks/1", admin()), 404, "not_found");
    expectError(await t.client.delete("/admin/webhooks/1", admin()), 404, "not_found");
    expectError(await t.client.post("/admin/webhooks/1/rotate-secret", admin()), 404, "not_found");
    expectError(await t.client.get("/admin/webhooks/1/deliveries", admin()), 404, "not_found");
  });

  it("shows no attempts for a new subscription", async () => {
    await subscribe({ url: "https://hooks.example/a", events: ["order.placed"] });
    const res = await t.client.get("/admin/webhooks/1/deliveries", admin());
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: [] });
  });

  it.each([
    "http://127.0.0.1:8080/hook",
    "http://10.0.0.8/",
    "http://172.20.1.1/",
    "http://192.168.0.10/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]:9000/",
    "http://[fd00::1]/",
    "http://[fe80::1]/",
    "http://[::ffff:10.0.0.1]/",
    "http://[::ffff:0:7f00:1]/",
    "http://[::ffff:0:127.0.0.1]/",
    "http://[2002:808:808::1]/",
    "http://0.0.0.0/",
    "http://2130706433/",
    "http://inside.example/",
    "http://rebind.example/",
    "http://metadata.example/",
    "https://ula.example/",
    "http://unresolvable.example/",
    "ftp://hooks.example/",
    "http://user:secret@hooks.example/",
  ])("refuses %s with 422 webhook_target_refused, storing nothing", async (url) => {
    expectError(await subscribe({ url, events: ["order.placed"] }), 422, "webhook_target_refused");
    expect((await t.client.get("/admin/webhooks", admin())).body).toEqual([]);
  });

  it("accepts public IPv4 and IPv6 targets", async () => {
    expect((await subscribe({ url: "http://93.184.215.14:8080/x", events: ["order.placed"] })).status).toBe(201);
    expect((await subscribe({ url: "https://v6.hooks.example/", events: ["order.placed"] })).status).toBe(201);
  });

  it.each([
    [{ url: "not a url", events: ["order.placed"] }],
    [{ url: "https://hooks.example/", events: [] }],
    [{ url: "https://hooks.example/", events: ["order.shipped"] }],
    [{ url: "https://hooks.example/" }],
    [{ url: "https://hooks.example/", events: ["order.placed"], secret: "mine" }],
    [{ url: `https://hooks.example/${"a".repeat(2048)}`, events: ["order.placed"] }],
    [{ url: "https://hooks.example/", events: ["order.placed"], description: "x".repeat(501) }],
  ])("refuses a bad body with 400 validation_failed: %j", async (body) => {
    expectError(await subscribe(body), 400, "validation_failed");
  });

  it("is for admins only", async () => {
    const staff = await t.newKey("staff");
    expectError(
      await t.client.post("/admin/webhooks", {
        key: staff,
        body: { url: "https://hooks.example/", events: ["order.placed"] },
      }),
      403,
      "forbidden",
    );
    expectError(await t.client.get("/admin/webhooks", { key: staff }), 403, "forbidden");
    expectError(await t.client.get("/admin/webhooks", {}), 401, "unauthorized");
  });
});
