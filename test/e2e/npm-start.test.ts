/**
 * What a user or a process manager starts as documented (`npm start`) stops on SIGTERM sent to that process: npm
 * passes the signal on, and the service is the process that gets it (not a shell that would die and leave it serving).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY } from "../support/test-petstore.ts";

/** Every live process below `root` (children, grandchildren…), from /proc. */
const descendantsOf = (root: number): number[] => {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in parentheses and may hold spaces: the fields after its closing one are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z") parents.set(Number(entry), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
};

const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
};

describe("npm start under a supervisor", () => {
  it("stops the service when SIGTERM goes to the npm process: the port closes and no process is left", async () => {
    const npm = spawn("npm", ["start", "--silent"], {
      env: {
        ...process.env,
        PORT: "0",
        HOST: "127.0.0.1",
        PETSTORE_STORE: "memory",
        PETSTORE_ADMIN_KEY: ADMIN_KEY,
        PETSTORE_SEED_DEMO: "false",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = once(npm, "exit");
    let below: number[] = [];
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("npm start did not listen in 30 s")), 30_000);
        createInterface({ input: npm.stdout! }).on("line", (line) => {
          if (!line.includes('"petstore listening"')) return;
          clearTimeout(timer);
          resolve((JSON.parse(line) as { url: string }).url.replace(/\/$/, ""));
        });
        npm.stderr!.resume();
      });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      below = descendantsOf(npm.pid!);
      expect(below.length).toBeGreaterThan(0);

      npm.kill("SIGTERM");
      await exited;
      await expect.poll(() => below.filter(alive), { timeout: 20_000, interval: 100 }).toEqual([]);
      await expect(fetch(`${url}/healthz`, { headers: { connection: "close" } })).rejects.toThrow();
    } finally {
      for (const pid of [npm.pid!, ...below]) if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  }, 60_000);
});
