import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/** `npm run bench -- --smoke`: everything the benchmark does runs and reports; its timings are not looked at. */
describe("npm run bench -- --smoke", () => {
  it("prints a row per scenario with nothing refused or failed, and every memory load", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["bench/run.ts", "--smoke"], { timeout: 110_000 });
    const lines = stdout.split("\n");
    // Two pairs of processes by default: their rounds are pooled.
    expect(stdout).toMatch(/^petstore bench \(smoke: timings mean nothing\): .*, 2 pair\(s\) of processes, /m);

    for (const scenario of [
      "GET /pets?ids=1",
      "GET /pets/1",
      "GET /store/inventory",
      "POST /store/orders",
      "POST /pets",
    ]) {
      const row = lines.find((line) => line.startsWith(`${scenario} `));
      expect(row, `${scenario} in\n${stdout}`).toBeDefined();
      const cells = row!.trim().split(/\s{2,}/);
      expect(cells, row).toHaveLength(9);
      expect(cells.at(-1), `failed requests in ${row}`).toBe("0");
      expect(Number(cells[5]), `service CPU µs in ${row}`).toBeGreaterThan(0);
    }
    // Each pair's own ratio, a column a pair, a row a scenario.
    const byPair = lines.indexOf(lines.find((line) => line.startsWith("ratio by pair of processes"))!);
    expect(byPair, stdout).toBeGreaterThan(0);
    expect(lines[byPair + 1]!.trim().split(/\s{2,}/), stdout).toEqual(["scenario", "pair 1", "pair 2"]);
    expect(lines[byPair + 3], stdout).toMatch(/^GET \/pets\?ids=1\s+\d+\.\d\d\s+\d+\.\d\d$/);
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
      /^keyed GET \/pets\?ids=1: CPU ratio ≥ 0\.7\s+\d+\.\d{3}\s+(met|NOT MET)$/,
      /^POST \/store\/orders: p99 ≤ 2× bare h3\s+\d+\.\d\d×\s+(met|NOT MET)$/,
    ]) {
      expect(
        lines.some((line) => target.test(line)),
        `${target} in\n${stdout}`,
      ).toBe(true);
    }
  }, 120_000);
});

/** `npm run bench:compare -- HEAD`: two builds in alternating rounds, and its own temporary worktree gone after. */
describe("npm run bench:compare", () => {
  // Only this run's worktree: another bench:compare in the same repository may have one of its own meanwhile.
  it("prints each side's CPU and this tree ÷ the ref for the scenario, then removes the ref's worktree", async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["bench/compare.ts", "HEAD", "GET /pets/1"],
      {
        timeout: 110_000,
        env: { ...process.env, BENCH_ROUNDS: "1", BENCH_SECONDS: "0.25" },
      },
    );

    expect(stdout).toMatch(/^GET \/pets\/1\s+\d+\s+\d+\s+\d+\.\d\d \(\d+\.\d\d–\d+\.\d\d\)\s+0$/m);
    const worktree = /^bench:compare worktree: (.+)$/m.exec(stderr)?.[1];
    expect(worktree, stderr).toMatch(/petstore-compare-/);
    const listed = execFileSync("git", ["worktree", "list", "--porcelain"], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.startsWith("worktree "))
      .map((line) => line.slice("worktree ".length));
    expect(listed).not.toContain(worktree);
    expect(existsSync(worktree!)).toBe(false);
  }, 120_000);
});

/** `npm run bench:trees`: bare h3 and each named tree, twice here (two processes of this checkout, one at 32 MiB). */
describe("npm run bench:trees", () => {
  it("prints bare h3 and a row per side, with its CPU by thread and bare h3's CPU ÷ its own", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["bench/trees.ts", "GET /pets/1", "here=.", "here32=.|--max-semi-space-size=32"],
      { timeout: 110_000, env: { ...process.env, BENCH_ROUNDS: "1", BENCH_SECONDS: "0.25" } },
    );

    const row = String.raw`\s+\d+\.\d\s+(?:\d+\.\d|-)\s+(?:\d+\.\d|-)\s+\d+\.\d\d$`;
    expect(stdout).toMatch(/^GET \/pets\/1: 1 alternating rounds/m);
    expect(stdout).toMatch(new RegExp(`^bare h3${row}`, "m"));
    expect(stdout).toMatch(new RegExp(`^here${row}`, "m"));
    expect(stdout).toMatch(new RegExp(`^here32${row}`, "m"));
  }, 120_000);

  it("refuses an unknown scenario or no tree, and says how it is called", async () => {
    const refused = await promisify(execFile)(process.execPath, ["bench/trees.ts", "GET /nowhere", "here=."]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringMatching(/^usage: npm run bench:trees/) });
  });
});
