import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startChildServer } from "../../bench/child-server.ts";
import { freeLoopbackPort } from "../support/free-port.ts";
import { peerRequest } from "../support/peer-requests.ts";

/** `npm run bench -- --smoke`: everything the benchmark does runs and reports; its timings are not looked at. */
describe("npm run bench -- --smoke", () => {
  it("prints each scenario for the service, the Fastify peer and bare h3 with nothing failed, and every memory load", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["bench/run.ts", "--smoke"], { timeout: 590_000 });
    const lines = stdout.split("\n");
    // Three sets of processes by default: their rounds are pooled.
    expect(stdout).toMatch(/^petstore bench \(smoke: timings mean nothing\): .*, 3 set\(s\) of processes, /m);

    const scenarios = ["keyed read", "varied order", "mixed", "one-body order (extra)"];
    for (const scenario of scenarios) {
      // The CPU table's row comes first, then the latency table's.
      const [cpuRow, latencyRow] = lines.filter((line) => line.startsWith(`${scenario} `));
      expect(cpuRow, `${scenario} in\n${stdout}`).toBeDefined();
      const cells = cpuRow!.trim().split(/\s{2,}/);
      expect(cells, cpuRow).toHaveLength(7);
      expect(cells.at(-1), `failed requests in ${cpuRow}`).toBe("0");
      for (const [i, side] of ["service", "Fastify peer", "bare h3"].entries())
        expect(Number(cells[1 + i]), `${side} CPU µs in ${cpuRow}`).toBeGreaterThan(0);
      expect(cells[4], cpuRow).toMatch(/^\d+\.\d{3} \(\d+\.\d\d–\d+\.\d\d\)$/);
      // The service's and the peer's log lines reached their shippers' pipes.
      const shipped = /(\d+\.\d\d) \/ (\d+\.\d\d)$/.exec(latencyRow ?? "");
      expect(shipped, `log lines in ${latencyRow}`).not.toBeNull();
      expect(Number(shipped![1]), latencyRow).toBeGreaterThan(0);
      expect(Number(shipped![2]), latencyRow).toBeGreaterThan(0);
    }
    // Each set's own ratio, a column a set, a row a scenario.
    const bySet = lines.indexOf(lines.find((line) => line.startsWith("service ÷ peer by set of processes"))!);
    expect(bySet, stdout).toBeGreaterThan(0);
    expect(lines[bySet + 1]!.trim().split(/\s{2,}/), stdout).toEqual(["scenario", "set 1", "set 2", "set 3"]);
    expect(lines[bySet + 3], stdout).toMatch(/^keyed read\s+\d+\.\d{3}\s+\d+\.\d{3}\s+\d+\.\d{3}$/);
    expect(
      lines.some((line) => /^5,000 distinct Idempotency-Keys, one API key\s+\d+ MiB\s+\d+ MiB\s+-?\d+$/.test(line)),
      stdout,
    ).toBe(true);
    expect(
      lines.some((line) => /^5,000 distinct client addresses, limiter adapter\s+\d+ MiB\s+\d+ MiB\s+-?\d+$/.test(line)),
      stdout,
    ).toBe(true);
    // Each request of the HTTP row came from an address of its own: all 401 (no key), none 429.
    expect(
      lines.some((line) =>
        /^5,000 distinct client addresses over HTTP \(5,000 answered 401\)\s+\d+ MiB\s+\d+ MiB\s+-?\d+$/.test(line),
      ),
      stdout,
    ).toBe(true);
    // The memory store's scaling scenario: keyed orders, none refused, and the GET probe's rows for both phases.
    expect(
      lines.some((line) =>
        /^memory store: 5,000 orders over HTTP with an Idempotency-Key each \(0 failed\)/.test(line),
      ),
      stdout,
    ).toBe(true);
    expect(
      lines.some((line) => /^after 1 s idle\s+\d+$/.test(line)),
      stdout,
    ).toBe(true);
    expect(
      lines.some((line) => /^during the load\s+[1-9]\d*\s/.test(line)),
      stdout,
    ).toBe(true);
    // The targets are judged on the run's own figures (a smoke run's mean nothing, but the table is there).
    for (const target of [
      /^keyed read: service CPU ≤ 0\.8× the Fastify peer's\s+\d+\.\d{3} \(\d+\.\d\d–\d+\.\d\d\)\s+(met|NOT MET)$/,
      /^varied order: service CPU ≤ 0\.8× the Fastify peer's\s+\d+\.\d{3} /,
      /^mixed: service CPU ≤ 0\.8× the Fastify peer's\s+\d+\.\d{3} /,
      /^mixed: service p99 ≤ the Fastify peer's\s+\d+\.\d \/ \d+\.\d ms\s+(met|NOT MET)$/,
      /^varied order: bare h3 CPU ÷ service ≥ 0\.6\s+\d+\.\d{3}\s+(met|NOT MET)$/,
    ]) {
      expect(
        lines.some((line) => target.test(line)),
        `${target} in\n${stdout}`,
      ).toBe(true);
    }
  }, 600_000);
});

/** `npm run bench:compare -- HEAD`: two builds in alternating rounds, and its own temporary worktree gone after. */
describe("npm run bench:compare", () => {
  // Only this run's worktree: another bench:compare in the same repository may have one of its own meanwhile.
  it("prints each side's CPU and this tree ÷ the ref for the scenario, then removes the ref's worktree", async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["bench/compare.ts", "HEAD", "GET /pets/1 (extra)"],
      {
        timeout: 170_000,
        env: { ...process.env, BENCH_ROUNDS: "1", BENCH_SECONDS: "0.25" },
      },
    );

    expect(stdout).toMatch(/^GET \/pets\/1 \(extra\)\s+\d+\s+\d+\s+\d+\.\d\d \(\d+\.\d\d–\d+\.\d\d\)\s+0$/m);
    const worktree = /^bench:compare worktree: (.+)$/m.exec(stderr)?.[1];
    expect(worktree, stderr).toMatch(/petstore-compare-/);
    const listed = execFileSync("git", ["worktree", "list", "--porcelain"], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.startsWith("worktree "))
      .map((line) => line.slice("worktree ".length));
    expect(listed).not.toContain(worktree);
    expect(existsSync(worktree!)).toBe(false);
  }, 180_000);
});

/** `npm run bench:trees`: bare h3 and each named tree, twice here (two processes of this checkout, one at 32 MiB). */
describe("npm run bench:trees", () => {
  it("prints bare h3 and a row per side, with its CPU by thread and bare h3's CPU ÷ its own", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["bench/trees.ts", "varied order", "here=.", "here32=.|--max-semi-space-size=32"],
      { timeout: 170_000, env: { ...process.env, BENCH_ROUNDS: "1", BENCH_SECONDS: "0.25" } },
    );

    const row = String.raw`\s+\d+\.\d\s+(?:\d+\.\d|-)\s+(?:\d+\.\d|-)\s+\d+\.\d\d$`;
    expect(stdout).toMatch(/^varied order: 1 alternating rounds/m);
    expect(stdout).toMatch(new RegExp(`^bare h3${row}`, "m"));
    expect(stdout).toMatch(new RegExp(`^here${row}`, "m"));
    expect(stdout).toMatch(new RegExp(`^here32${row}`, "m"));
  }, 180_000);

  it("refuses an unknown scenario or no tree, and says how it is called", async () => {
    const refused = await promisify(execFile)(process.execPath, ["bench/trees.ts", "GET /nowhere", "here=."]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringMatching(/^usage: npm run bench:trees/) });
  });
});

/** The peer the bench measures the service against does the benched routes' work, not less. */
describe("the Fastify peer (bench/peer-fastify/server.ts)", () => {
  it("checks keys, limits each key with its headers, validates, takes and returns stock, and logs a line a request", async () => {
    const keys = { customer: ["alice-key-0123456789", "bob-key-0123456789"], staff: "staff-key-0123456789" };
    const peer = await startChildServer(
      fileURLToPath(new URL("../../bench/peer-fastify/server.ts", import.meta.url)),
      await freeLoopbackPort(),
      { BENCH_SEEDED_PETS: "30", BENCH_SEEDED_STOCK: "3", BENCH_PEER_KEYS: JSON.stringify(keys) },
      { prefix: [], shipLogs: { prefix: [] } },
    );
    try {
      const send = (path: string, key?: string, init?: { method?: string; body?: unknown }) =>
        peerRequest(peer.url, path, key, init);
      const [alice, bob] = keys.customer as [string, string];
      // Fastify's "listening" line first, written asynchronously like every pino line: waited for, so not counted.
      const shippedLines = async (atLeast: number) => {
        let lines = 0;
        for (let tries = 0; tries < 200 && lines < atLeast; tries++) {
          lines = (await peer.logLines())!;
          if (lines < atLeast) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return lines;
      };
      const linesBefore = await shippedLines(1);

      expect(await send("/pets?ids=1")).toMatchObject({ status: 401, body: { code: "unauthorized", status: 401 } });
      expect((await send("/pets?ids=1", "alice-key-0123456789x")).status).toBe(401);
      const read = await send("/pets?ids=2,1", alice);
      expect(read.body).toEqual([
        { id: 2, name: "Rex 2", categoryId: 1, status: "available" },
        { id: 1, name: "Rex 1", categoryId: 1, status: "available" },
      ]);
      expect(read.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
      expect(Number(read.headers.get("x-ratelimit-remaining"))).toBeLessThan(
        Number(read.headers.get("x-ratelimit-limit")),
      );
      const page = await send("/pets?limit=20&after=5", alice);
      expect((page.body as { id: number }[]).map((p) => p.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 6));
      expect(page.headers.get("link")).toBe('</pets?limit=20&after=25>; rel="next"');

      expect(await send("/pets?ids=1&extra=1", alice)).toMatchObject({
        status: 400,
        body: { code: "validation_failed" },
      });
      expect((await send("/store/orders", alice, { method: "POST", body: { petId: 1, quantity: 0 } })).status).toBe(
        400,
      );
      expect(
        (await send("/store/orders", alice, { method: "POST", body: { petId: 1, quantity: 1, shipDate: "soon" } }))
          .status,
      ).toBe(400);
      expect(await send("/store/orders", alice, { method: "POST", body: { petId: 999, quantity: 1 } })).toMatchObject({
        status: 422,
        body: { code: "unknown_pet" },
      });
      const placed = await send("/store/orders", alice, {
        method: "POST",
        body: { petId: 3, quantity: 2, shipDate: "2027-01-02T10:00:00.000Z" },
      });
      expect(placed).toMatchObject({
        status: 201,
        body: { petId: 3, quantity: 2, shipDate: "2027-01-02T10:00:00.000Z", complete: false },
      });
      expect(await send("/store/orders", bob, { method: "POST", body: { petId: 3, quantity: 2 } })).toMatchObject({
        status: 409,
        body: { code: "insufficient_stock" },
      });
      const id = (placed.body as { id: number }).id;
      // Only the key that placed it may cancel it; cancelling gives the units back.
      expect((await send(`/store/orders/${id}`, bob, { method: "DELETE" })).status).toBe(404);
      expect((await send(`/store/orders/${id}`, alice, { method: "DELETE" })).status).toBe(204);
      expect((await send("/store/orders", bob, { method: "POST", body: { petId: 3, quantity: 3 } })).status).toBe(201);
      expect((await send("/pets", alice, { method: "POST", body: { name: "Iggy", categoryId: 1 } })).status).toBe(403);

      // One pino line a request (the 14 above), read from the pipe by the shipper.
      expect((await shippedLines(linesBefore + 14)) - linesBefore).toBe(14);
    } finally {
      await peer.stop();
    }
  }, 60_000);
});
