import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import type { ControlReply, ControlRequest } from "./server-control.ts";

/** `taskset` when the machine has it and at least two cores: the server on core 0, the load generator on core 1. */
export const pinning = (): { server: string[]; available: boolean } => {
  const available = spawnSync("taskset", ["--version"], { stdio: "ignore" }).status === 0 && (globalThis.navigator?.hardwareConcurrency ?? 1) >= 2;
  return { server: available ? ["taskset", "-c", "0"] : [], available };
};

/** Pins this process (every thread) to a core; false when it could not. */
export const pinSelf = (core: number): boolean =>
  spawnSync("taskset", ["-a", "-p", "-c", String(core), String(process.pid)], { stdio: "ignore" }).status === 0;

/**
 * The node flags the service runs with, here as under `npm start`, `npm run dev` and the image's CMD
 * (test/bootstrap/node-flags.test.ts holds them equal): young-generation semi-spaces of at most 32 MiB. Left to
 * itself, Node 24 on a machine with 24 GiB lets a busy service's young generation grow to 64 MiB semi-spaces, which
 * stay committed after a full GC: 200,000 client addresses then left 270 MiB of RSS instead of 215.
 */
export const SERVICE_NODE_ARGS = ["--max-semi-space-size=32"];

export interface ChildServer {
  url: string;
  /** The server process's CPU time so far, user + system, in µs. */
  cpuMicros(): Promise<number>;
  /** Its RSS and heap in MiB (after a full GC when started with --expose-gc). */
  memory(): Promise<{ rss: number; heap: number }>;
  stop(): Promise<void>;
}

/**
 * Starts `file` under this Node with an IPC channel, stdout to /dev/null (the service's log sink), stderr inherited,
 * and waits for its `ready`.
 */
export const startChildServer = async (
  file: string,
  port: number,
  env: Record<string, string>,
  options: { prefix: string[]; nodeArgs?: string[] },
): Promise<ChildServer> => {
  const argv = [...options.prefix, process.execPath, ...(options.nodeArgs ?? []), file];
  const child: ChildProcess = spawn(argv[0]!, argv.slice(1), {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
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
  const ask = (type: "cpu" | "memory") =>
    new Promise<ControlReply>((resolve) => {
      const id = nextId++;
      pending.set(id, (reply) => {
        pending.delete(id);
        resolve(reply);
      });
      send({ type, id });
    });
  return {
    url: `http://127.0.0.1:${port}`,
    cpuMicros: async () => {
      const reply = await ask("cpu");
      return reply.type === "cpu" ? reply.micros : Number.NaN;
    },
    memory: async () => {
      const reply = await ask("memory");
      return reply.type === "memory" ? { rss: reply.rss, heap: reply.heap } : { rss: Number.NaN, heap: Number.NaN };
    },
    async stop() {
      if (child.exitCode !== null) return;
      send({ type: "stop" });
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
};
