/**
 * A rolling update on one MongoDB database: an instance of the last release (its code from git history, at the commit
 * `Release <version>` of CHANGELOG.md's latest entry) serves, an instance of this tree starts beside it (its start-up
 * migrations run while the old one serves), both serve the same data crosswise, then the old one stops. What
 * docs/operations.md ("Releases") promises about mixing versions rests on this.
 *
 * The old tree runs on this tree's node_modules: its production dependencies are a subset of ours at the same locked
 * versions, which the first test checks.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";
import { ADMIN_KEY } from "../support/test-petstore.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

const latestRelease = /^## \[(\d+\.\d+\.\d+)\] - /m.exec(readFileSync("CHANGELOG.md", "utf8"))![1]!;

/** The release's commit; a clone without the history cannot run this test, and says so. */
const releaseCommit = (): string => {
  const commit = execFileSync("git", ["log", "--format=%H", `--grep=^Release ${latestRelease}`, "-1"], {
    encoding: "utf8",
  }).trim();
  if (!commit) throw new Error(`no commit "Release ${latestRelease}" in the git history (a shallow clone?)`);
  return commit;
};

type Lock = { packages: Record<string, { version?: string }> };
const lockedVersion = (lock: Lock, name: string) => lock.packages[`node_modules/${name}`]?.version;

describeMongo(`a rolling update from ${latestRelease} on one MongoDB database`, () => {
  let mongo: FreshMongoDatabase;
  let oldTree: string;
  let commit: string;
  let old: ServiceProcess | undefined;
  let next: ServiceProcess | undefined;
  let receiver: WebhookReceiver;
  const keys: Record<string, string> = {};
  /** The ids the two instances gave orders and pets (blocks of ids on this tree, one by one on 1.1.0). */
  const ids = { orders: [] as number[], category: 0, hamster: 0, gerbil: 0 };

  const call = async (service: ServiceProcess, method: string, path: string, key: string, body?: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined };
  };
  const environment = () => ({
    PETSTORE_STORE: "mongo",
    MONGODB_URL: mongoUrl(),
    MONGODB_DB: mongo.db.databaseName,
    MONGODB_TIMEOUT_MS: "15000",
    PETSTORE_ADMIN_KEY: ADMIN_KEY,
    PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
    PETSTORE_WEBHOOK_POLL_MS: "50",
  });

  beforeAll(async () => {
    commit = releaseCommit();
    receiver = await startWebhookReceiver([204]);
    mongo = await freshMongoDatabase("rolling_update");
    oldTree = mkdtempSync(join(tmpdir(), `petstore-${latestRelease}-`));
    const archive = execFileSync("git", [
      "archive",
      commit,
      "core",
      "adapters",
      "bootstrap",
      "package.json",
      "package-lock.json",
    ]);
    execFileSync("tar", ["-x", "-C", oldTree], { input: archive });
    symlinkSync(realpathSync("node_modules"), join(oldTree, "node_modules"));
  }, 60_000);
  afterAll(async () => {
    old?.child.kill("SIGKILL");
    next?.child.kill("SIGKILL");
    await receiver?.close();
    if (oldTree) rmSync(oldTree, { recursive: true, force: true });
    await mongo?.close();
  });

  it("runs the release's code on its own locked dependency versions", () => {
    const theirs = JSON.parse(readFileSync(join(oldTree, "package-lock.json"), "utf8")) as Lock;
    const ours = JSON.parse(readFileSync("package-lock.json", "utf8")) as Lock;
    const { dependencies } = JSON.parse(readFileSync(join(oldTree, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    for (const name of [...Object.keys(dependencies), "bson"])
      expect(lockedVersion(ours, name), name).toBe(lockedVersion(theirs, name));
  });

  it("the old instance serves, then the new one starts on its database", async () => {
    old = await startServiceProcess(environment(), { cwd: oldTree });
    const admin = ADMIN_KEY;
    for (const [label, role] of [
      ["staff", "staff"],
      ["alice", "customer"],
    ] as const) {
      const created = await call(old, "POST", "/admin/api-keys", admin, { label, role, plan: "business" });
      expect(created.status).toBe(201);
      keys[label] = created.body.key as string;
    }
    const subscribed = await call(old, "POST", "/admin/webhooks", admin, {
      url: receiver.url,
      events: ["order.placed"],
    });
    expect(subscribed.status).toBe(201);
    const category = await call(old, "POST", "/categories", keys.staff!, { name: "Rodents" });
    expect(category.status).toBe(201);
    ids.category = category.body.id as number;
    for (const name of ["Hamster 10", "hamster 2"]) {
      const pet = await call(old, "POST", "/pets", keys.staff!, { name, categoryId: category.body.id });
      expect(pet.status).toBe(201);
      ids.hamster ||= pet.body.id as number;
      expect((await call(old, "PUT", `/store/inventory/${pet.body.id}`, keys.staff!, { quantity: 5 })).status).toBe(
        200,
      );
    }
    const order = await call(old, "POST", "/store/orders", keys.alice!, { petId: ids.hamster, quantity: 2 });
    expect(order.status).toBe(201);
    ids.orders.push(order.body.id as number);

    next = await startServiceProcess(environment());
  }, 180_000);

  it("both serve the same data crosswise: keys, pets, name order, orders placed, cancelled and completed", async () => {
    const [a, b] = [old!, next!];
    // Keys made by the old instance admit on the new one, and the reverse.
    const bob = await call(b, "POST", "/admin/api-keys", ADMIN_KEY, {
      label: "bob",
      role: "customer",
      plan: "business",
    });
    expect(bob.status).toBe(201);
    expect((await call(a, "GET", "/me", bob.body.key as string)).body).toMatchObject({ label: "bob" });
    expect((await call(b, "GET", "/me", keys.alice!)).body).toMatchObject({ label: "alice" });

    // A pet made by the new instance, after its migrations, is listed and found by name on the old one.
    const gerbil = await call(b, "POST", "/pets", keys.staff!, { name: "Gerbil", categoryId: ids.category });
    expect(gerbil.status).toBe(201);
    ids.gerbil = gerbil.body.id as number;
    expect((await call(b, "PUT", `/store/inventory/${gerbil.body.id}`, keys.staff!, { quantity: 3 })).status).toBe(200);
    const names = (service: ServiceProcess) =>
      call(service, "GET", "/pets?sort=name", keys.staff!).then((r) => r.body.map((p: { name: string }) => p.name));
    expect(await names(b)).toEqual(["Gerbil", "hamster 2", "Hamster 10"]);
    expect((await names(a)).sort()).toEqual(["Gerbil", "Hamster 10", "hamster 2"]);
    expect((await call(a, "GET", "/pets?name=ger", keys.staff!)).body.map((p: { id: number }) => p.id)).toEqual([
      gerbil.body.id,
    ]);

    // Orders cross over: placed on one, read, cancelled and completed on the other.
    const onNew = await call(b, "POST", "/store/orders", bob.body.key as string, { petId: ids.hamster, quantity: 3 });
    expect(onNew.status).toBe(201);
    expect((await call(a, "GET", `/store/inventory/${ids.hamster}`, keys.staff!)).body).toMatchObject({
      quantity: 0,
      status: "pending",
    });
    expect((await call(b, "DELETE", `/store/orders/${ids.orders[0]}`, keys.alice!)).status).toBe(204);
    expect((await call(a, "GET", `/store/orders/${onNew.body.id}`, keys.staff!)).body).toMatchObject({ quantity: 3 });
    expect((await call(a, "DELETE", `/store/orders/${onNew.body.id}`, bob.body.key as string)).status).toBe(204);
    const onOld = await call(a, "POST", "/store/orders", keys.alice!, { petId: gerbil.body.id, quantity: 3 });
    expect(onOld.status).toBe(201);
    ids.orders.push(onNew.body.id as number, onOld.body.id as number);
    expect(new Set(ids.orders).size).toBe(3);
    const completed = await call(b, "PATCH", `/store/orders/${onOld.body.id}`, keys.staff!, { complete: true });
    expect(completed.status).toBe(200);

    for (const service of [a, b]) {
      expect((await call(service, "GET", `/store/inventory/${ids.hamster}`, keys.staff!)).body).toMatchObject({
        quantity: 5,
        status: "available",
      });
      expect((await call(service, "GET", `/store/inventory/${gerbil.body.id}`, keys.staff!)).body).toMatchObject({
        quantity: 0,
        status: "sold",
      });
    }
  }, 120_000);

  it("relays and delivers every order's event once, whichever version recorded or relays it", async () => {
    await receiver.waitFor(3, 30_000);
    const placed = receiver.received.map((w) => (JSON.parse(w.body) as { data: { id: number } }).data.id);
    expect(placed.sort()).toEqual([...ids.orders].sort());
  }, 60_000);

  it("the old instance stops cleanly and the new one serves on", async () => {
    old!.child.kill("SIGTERM");
    expect((await old!.exit).code).toBe(0);
    const orders = await call(next!, "GET", "/store/orders?limit=10", keys.staff!);
    expect(orders.status).toBe(200);
    // The two cancelled orders are gone; the completed one stays, as the new instance reads it.
    expect(orders.body).toEqual([expect.objectContaining({ petId: ids.gerbil, quantity: 3, complete: true })]);
    expect([...old!.output, ...next!.output].filter((line) => /"level":"error"/.test(line))).toEqual([]);
    next!.child.kill("SIGTERM");
    expect((await next!.exit).code).toBe(0);
    // Stopped, neither can send anything more: each order's event came once.
    expect(receiver.received).toHaveLength(3);
  }, 60_000);
});
