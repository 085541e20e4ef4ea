import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ControlReply, ControlRequest } from "./server-control.ts";

/**
 * `taskset` when the machine has it and at least two cores: the server on core 0, the load generator and the log
 * shippers on core 1.
 */
export const pinning = (): { server: string[]; loader: string[]; available: boolean } => {
  const available =
    spawnSync("taskset", ["--version"], { stdio: "ignore" }).status === 0 &&
    (globalThis.navigator?.hardwareConcurrency ?? 1) >= 2;
  return {
    server: available ? ["taskset", "-c", "0"] : [],
    loader: available ? ["taskset", "-c", "1"] : [],
    available,
  };
};

/** Pins this process (every thread) to a core; false when it could not. */
export const pinSelf = (core: number): boolean =>
  spawnSync("taskset", ["-a", "-p", "-c", String(core), String(process.pid)], { stdio: "ignore" }).status === 0;

/**
 * The node flags the service runs with, here as under `npm start`, `npm run dev` and the image's CMD
 * (test/bootstrap/node-flags.test.ts holds them equal): young-generation semi-spaces of at most 16 MiB. Left to
 * itself, Node 24 on a large machine lets a busy service's young generation grow to 64 MiB semi-spaces, which stay
 * committed after a full GC; what each size cost in RSS and CPU is in docs/performance.md.
 */
export const SERVICE_NODE_ARGS = ["--max-semi-space-size=16"];

export interface ChildServer {
  url: string;
  /** The server process's CPU time so far, user + system, in µs. */
  cpuMicros(): Promise<number>;
  /** Its RSS and heap in MiB (after a full GC when started with --expose-gc). */
  memory(): Promise<{ rss: number; heap: number }>;
  /**
   * Its CPU time so far in µs by kind of thread, from /proc (undefined where there is none): `main` (JavaScript),
   * `v8` (V8's helper threads `V8Worker`: garbage collection, compilation), `profiler` (the CPU profiler's sampler)
   * and `other` (libuv's pool and the rest).
   */
  threadCpuMicros(): Record<ThreadKind, number> | undefined;
  /** Its resident set now, MiB, from /proc without collecting garbage first (undefined without /proc). */
  rssNow(): number | undefined;
  /** Stops its process (SIGSTOP), so that it sends a shared store nothing while another server is measured. */
  pause(): void;
  /** Lets it run again (SIGCONT). */
  resume(): void;
  /** Sets its clock to read `at` (ms since the epoch) now; only a server started with bench/clock-warp.ts answers. */
  setClock(at: number): Promise<void>;
  /** Log lines its shipper has read so far (undefined when its output goes to /dev/null). */
  logLines(): Promise<number | undefined>;
  stop(): Promise<void>;
}

/** A process reading a server's output from a pipe (bench/log-shipper.ts), and how to ask it for its count. */
const startShipper = (prefix: string[]) => {
  const argv = [...prefix, process.execPath, fileURLToPath(new URL("./log-shipper.ts", import.meta.url))];
  const shipper = spawn(argv[0]!, argv.slice(1), { stdio: ["pipe", "ignore", "inherit", "ipc"] });
  const waiting = new Map<number, (lines: number) => void>();
  let nextId = 1;
  shipper.on("message", (reply: { id: number; lines: number }) => waiting.get(reply.id)?.(reply.lines));
  const exited = new Promise<void>((resolve) => shipper.once("exit", () => resolve()));
  return {
    pipe: shipper.stdin!,
    lines: () =>
      shipper.connected
        ? new Promise<number>((resolve) => {
            const id = nextId++;
            waiting.set(id, (lines) => {
              waiting.delete(id);
              resolve(lines);
            });
            shipper.send({ id });
          })
        : Promise.resolve(Number.NaN),
    stop: async () => {
      const timer = setTimeout(() => shipper.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
};

/**
 * Starts `file` under this Node with an IPC channel, stdout to /dev/null or, with `shipLogs`, into a pipe a log
 * shipper reads (started under that prefix), stderr inherited, and waits for its `ready`.
 */
export const startChildServer = async (
  file: string,
  port: number,
  env: Record<string, string>,
  options: { prefix: string[]; nodeArgs?: string[]; shipLogs?: { prefix: string[] } },
): Promise<ChildServer> => {
  const argv = [...options.prefix, process.execPath, ...(options.nodeArgs ?? []), file];
  const shipper = options.shipLogs && startShipper(options.shipLogs.prefix);
  const child: ChildProcess = spawn(argv[0]!, argv.slice(1), {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", shipper ? shipper.pipe : "ignore", "inherit", "ipc"],
  });
  // The server holds the pipe's writing end now; the shipper sees its end when the server exits.
  shipper?.pipe.destroy();
  const pending = new Map<number, (reply: ControlReply) => void>();
  let nextId = 1;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${file} exited with ${code} before it was ready`)));
    child.on("message", (reply: ControlReply) => {
      if (reply.type === "ready") resolve();
      else pending.get(reply.id)?.(reply);
    });
  });
  const send = (request: ControlRequest) => child.send(request);
  const ask = (request: { type: "cpu" } | { type: "memory" } | { type: "clock"; at: number }) =>
    new Promise<ControlReply>((resolve) => {
      const id = nextId++;
      pending.set(id, (reply) => {
        pending.delete(id);
        resolve(reply);
      });
      send({ ...request, id });
    });
  return {
    url: `http://127.0.0.1:${port}`,
    threadCpuMicros: () => (child.pid === undefined ? undefined : threadCpuMicrosOf(child.pid)),
    rssNow: () => {
      try {
        const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
        return kib === undefined ? undefined : Number(kib) / 1024;
      } catch {
        return undefined;
      }
    },
    cpuMicros: async () => {
      const reply = await ask({ type: "cpu" });
      return reply.type === "cpu" ? reply.micros : Number.NaN;
    },
    memory: async () => {
      const reply = await ask({ type: "memory" });
      return reply.type === "memory" ? { rss: reply.rss, heap: reply.heap } : { rss: Number.NaN, heap: Number.NaN };
    },
    pause: () => child.kill("SIGSTOP"),
    resume: () => child.kill("SIGCONT"),
    setClock: (at) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${file} did not answer a clock message: is it started with bench/clock-warp.ts?`)),
          5_000,
        );
        void ask({ type: "clock", at }).then(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
    logLines: async () => shipper?.lines(),
    async stop() {
      if (child.exitCode === null) {
        send({ type: "stop" });
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
      }
      await shipper?.stop();
    },
  };
};

const clockTicks = (): number => Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

type ThreadKind = "main" | "v8" | "profiler" | "other";

const kindOf = (pid: number, task: string, name: string): ThreadKind =>
  task === String(pid)
    ? "main"
    : name.startsWith("V8Worker")
      ? "v8"
      : name.startsWith("v8:Prof")
        ? "profiler"
        : "other";

/** User + system CPU of each thread of `pid` (Linux /proc), summed by kind of thread; undefined without /proc. */
const threadCpuMicrosOf = (pid: number): Record<ThreadKind, number> | undefined => {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const perTick = 1e6 / clockTicks();
  const sums = { main: 0, v8: 0, profiler: 0, other: 0 };
  for (const task of tasks) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const micros = (Number(fields[11]) + Number(fields[12])) * perTick;
    sums[kindOf(pid, task, name)] += micros;
  }
  return sums;
};
