/**
 * `npm run admin -- …` as an operator runs it: a real process on the configured store (a MongoDB database of the
 * run's test server), next to a real service process on the same database.
 */
import { execFile } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";
import { ADMIN_KEY } from "../support/test-petstore.ts";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The last stdout line, parsed. */
  json: any;
}

const admin = (args: string[], env: Record<string, string>): Promise<Run> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ["bootstrap/admin-cli.ts", ...args],
      { env: { ...process.env, PETSTORE_LOG_LEVEL: "silent", ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const last = stdout.trimEnd().split("\n").at(-1) ?? "";
        let json: unknown;
        try {
          json = JSON.parse(last);
        } catch {
          json = undefined;
        }
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr, json });
      },
    );
  });

describe("admin command line without a store to administer", () => {
  it("on the memory store: says there is nothing to administer offline, exit 2", async () => {
    const run = await admin(["list-keys"], { PETSTORE_STORE: "memory" });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^admin: PETSTORE_STORE is memory: .*nothing to administer offline.*\n$/);
  });

  it("with a bad setting: the settings loader's one line, exit 2", async () => {
    const run = await admin(["list-keys"], { PETSTORE_STORE: "mongo", MONGODB_URL: "http://db" });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'admin: Invalid setting MONGODB_URL: expected a mongodb:// or mongodb+srv:// URL (got "http://db")\n',
    );
  });

  it("without a command: the usage, exit 2", async () => {
    const run = await admin([], {});
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^usage: npm run admin -- <command>\n(.*\n)*  create-key /);
  });
  it("refuses a malformed command line with one line and exit 2, before opening any store", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["create-key", "--label", "x", "--plan", "free"], /--role must be one of customer, staff, admin/],
      [["create-key", "--label", "x", "--role", "boss", "--plan", "free"], /--role must be one of/],
      [
        ["create-key", "--label", "x", "--role", "staff", "--plan", "pro", "--per-minute", "5"],
        /--per-minute and --per-day go together/,
      ],
      [
        ["create-key", "--label", "x", "--role", "staff", "--plan", "pro", "--colour", "red"],
        /Unknown option '--colour'/,
      ],
      [["revoke-key", "abc"], /expected a key id/],
      [["revoke-key"], /revoke-key takes 1 argument/],
      [["drop-database"], /unknown command "drop-database"/],
    ];
    // A store that is never reached: the command line is refused first.
    const runs = await Promise.all(
      cases.map(([args]) => admin(args, { PETSTORE_STORE: "mongo", MONGODB_URL: "mongodb://127.0.0.1:9/" })),
    );
    runs.forEach((run, i) => {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(cases[i]![1]);
      expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    });
  }, 60_000);
});

describeMongo("admin command line on MongoDB", () => {
  let database: FreshMongoDatabase;
  let service: ServiceProcess;
  let env: Record<string, string>;
  const call = (path: string, key: string) => fetch(`${service.url}${path}`, { headers: { "x-api-key": key } });
  /** The service remembers a validated key for up to 1 s (core/access/cached-api-keys.ts): a change made by another
   * process shows within that. */
  const statusSoon = async (path: string, key: string, expected: number): Promise<number> => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const { status } = await call(path, key);
      if (status === expected || Date.now() > deadline) return status;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  beforeAll(async () => {
    database = await freshMongoDatabase("admin_cli");
    env = { PETSTORE_STORE: "mongo", MONGODB_URL: mongoUrl(), MONGODB_DB: database.db.databaseName };
    service = await startServiceProcess(env);
  });
  afterAll(async () => {
    service?.child.kill("SIGKILL");
    await database?.close();
  }, 60_000);

  it("create-key prints the new key's JSON with its secret as the last line; the service accepts it at once", async () => {
    const run = await admin(["create-key", "--label", "warehouse", "--role", "staff", "--plan", "pro"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({
      label: "warehouse",
      role: "staff",
      plan: "pro",
      revoked: false,
      key: expect.any(String),
    });
    expect((await call("/store/inventory", run.json.key)).status).toBe(200);

    const enterprise = await admin(
      [
        "create-key",
        "--label",
        "big",
        "--role",
        "customer",
        "--plan",
        "enterprise",
        "--per-minute",
        "500",
        "--per-day",
        "90000",
      ],
      env,
    );
    expect(enterprise.json).toMatchObject({ plan: "enterprise", limits: { perMinute: 500, perDay: 90000 } });
  }, 60_000);

  it("list-keys prints every key as JSON, without secrets", async () => {
    const run = await admin(["list-keys"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.map((k: { label: string }) => k.label)).toEqual(
      expect.arrayContaining(["bootstrap admin (PETSTORE_ADMIN_KEY)", "warehouse", "big"]),
    );
    expect(run.stdout).not.toMatch(/"key"|secretHash/);
  }, 60_000);

  it("revoke-key: the key answers 401 from then on; unban answers the key, then says it is revoked; unknown ids fail with exit 1", async () => {
    const created = await admin(["create-key", "--label", "temp", "--role", "customer", "--plan", "free"], env);
    const id = String(created.json.id);
    expect((await call("/pets", created.json.key)).status).toBe(200);
    const unbanned = await admin(["unban", id], env);
    expect(unbanned).toMatchObject({ code: 0, json: { id: created.json.id, revoked: false } });
    const revoked = await admin(["revoke-key", id], env);
    expect(revoked).toMatchObject({ code: 0, json: { id: created.json.id, revoked: true } });
    expect(await statusSoon("/pets", created.json.key, 401)).toBe(401);

    const [unbanRevoked, missingRevoke, missingUnban] = await Promise.all([
      admin(["unban", id], env),
      admin(["revoke-key", "99999"], env),
      admin(["unban", "99999"], env),
    ]);
    expect(unbanRevoked.code).toBe(1);
    expect(unbanRevoked.stderr).toBe(`admin: not_found: API key ${id} is revoked\n`);
    for (const run of [missingRevoke, missingUnban]) {
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^admin: not_found: .*99999.*\n$/);
    }
  }, 120_000);

  it("a domain refusal (custom limits on a fixed plan) is one line with its code, exit 1", async () => {
    const run = await admin(
      ["create-key", "--label", "x", "--role", "staff", "--plan", "pro", "--per-minute", "5", "--per-day", "9"],
      env,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^admin: validation_failed: The pro plan has fixed limits.*\n$/);
  }, 60_000);

  it("rotate-admin-key: a new admin key works, the bootstrap admin key is revoked", async () => {
    expect((await call("/admin/api-keys", ADMIN_KEY)).status).toBe(200);
    const run = await admin(["rotate-admin-key"], env);
    expect(run.code, run.stderr).toBe(0);
    const [revokedLine] = run.stdout.trimEnd().split("\n");
    expect(JSON.parse(revokedLine!).revoked).toHaveLength(1);
    expect(run.json).toMatchObject({ role: "admin", label: "admin (rotate-admin-key)", key: expect.any(String) });
    expect((await call("/admin/api-keys", run.json.key)).status).toBe(200);
    expect(await statusSoon("/admin/api-keys", ADMIN_KEY, 401)).toBe(401);

    // Rotating again replaces the rotated key.
    const again = await admin(["rotate-admin-key"], env);
    expect(JSON.parse(again.stdout.split("\n")[0]!).revoked).toEqual([run.json.id]);
    expect(await statusSoon("/admin/api-keys", run.json.key, 401)).toBe(401);
    expect((await call("/admin/api-keys", again.json.key)).status).toBe(200);
  }, 60_000);
});
