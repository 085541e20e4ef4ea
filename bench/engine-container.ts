/**
 * A container of the MongoDB test image (test/support/test-mongo-image.ts) of the benchmark's own, with a memory cap,
 * whose CPU time and memory are read from its cgroup on the host (cgroup v1 or v2), else through `docker exec`.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { freeLoopbackPort } from "../test/support/free-port.ts";
import { TEST_MONGO_IMAGE, testMongoEnvironment } from "../test/support/test-mongo-image.ts";

const run = promisify(execFile);

export interface EngineContainer {
  url: string;
  /** CPU time of every process in the container so far, µs. */
  cpuMicros(): Promise<number>;
  /** Memory charged to the container now and at most so far (the cgroup's peak), bytes. */
  memory(): Promise<{ current: number; peak: number }>;
  /** PostgreSQL's SQL inside the container, as its superuser (psql's aligned output). */
  sql(statement: string): Promise<string>;
  remove(): Promise<void>;
}

const readFirst = (paths: string[]): string | undefined => {
  for (const path of paths) {
    try {
      return readFileSync(path, "utf8");
    } catch {
      // not this cgroup layout
    }
  }
  return undefined;
};

export const startEngineContainer = async (memoryCap = "4g", image = TEST_MONGO_IMAGE): Promise<EngineContainer> => {
  const port = await freeLoopbackPort();
  const env = Object.entries(testMongoEnvironment(port)).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  const { stdout } = await run("docker", [
    "run",
    "-d",
    "--rm",
    "--network",
    "host",
    "--memory",
    memoryCap,
    "--label",
    "petstore.test=bench",
    ...env,
    image,
  ]);
  const id = stdout.trim();
  const deadline = Date.now() + 90_000;
  for (;;) {
    const logs = await run("docker", ["logs", id]).catch(() => ({ stdout: "", stderr: "" }));
    if (/petstore-test-mongo ready/.test(logs.stdout)) break;
    if (Date.now() > deadline) {
      await run("docker", ["rm", "-f", id]).catch(() => undefined);
      throw new Error(`engine container ${id.slice(0, 12)} not ready within 90 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  const v1 = (controller: string, file: string) => `/sys/fs/cgroup/${controller}/docker/${id}/${file}`;
  const v2 = (file: string) => [
    `/sys/fs/cgroup/system.slice/docker-${id}.scope/${file}`,
    `/sys/fs/cgroup/docker/${id}/${file}`,
  ];
  const inside = async (file: string) => (await run("docker", ["exec", id, "cat", file])).stdout;
  return {
    url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    async cpuMicros() {
      const usage = readFirst([v1("cpuacct", "cpuacct.usage")]);
      if (usage !== undefined) return Number(usage) / 1000;
      const stat = readFirst(v2("cpu.stat")) ?? (await inside("/sys/fs/cgroup/cpu.stat").catch(() => ""));
      const match = /usage_usec (\d+)/.exec(stat);
      if (match) return Number(match[1]);
      return Number(await inside("/sys/fs/cgroup/cpuacct/cpuacct.usage")) / 1000;
    },
    async memory() {
      const current = readFirst([v1("memory", "memory.usage_in_bytes"), ...v2("memory.current")]);
      const peak = readFirst([v1("memory", "memory.max_usage_in_bytes"), ...v2("memory.peak")]);
      if (current !== undefined) return { current: Number(current), peak: Number(peak ?? current) };
      const now = Number(
        await inside("/sys/fs/cgroup/memory.current").catch(() =>
          inside("/sys/fs/cgroup/memory/memory.usage_in_bytes"),
        ),
      );
      return { current: now, peak: now };
    },
    async sql(statement: string) {
      const psql = [
        "runuser",
        "-u",
        "postgres",
        "--",
        "psql",
        "-X",
        "-q",
        "-h",
        "/var/run/postgresql",
        "-d",
        "postgres",
      ];
      return (await run("docker", ["exec", id, ...psql, "-c", statement])).stdout;
    },
    async remove() {
      await run("docker", ["rm", "-f", id]).catch(() => undefined);
    },
  };
};
