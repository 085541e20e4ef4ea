import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { ADMIN_KEY } from "./test-petstore.ts";

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** Every line the service wrote to stdout and stderr so far. */
  output: string[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `bootstrap/main.ts` as a real process on an ephemeral loopback port and waits until it listens; `cwd`: the
 * tree to run it from (another version's checkout), this one by default.
 */
export const startServiceProcess = async (
  env: Record<string, string> = {},
  { cwd }: { cwd?: string } = {},
): Promise<ServiceProcess> => {
  const child = spawn(process.execPath, ["bootstrap/main.ts"], {
    cwd,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", PETSTORE_ADMIN_KEY: ADMIN_KEY, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const exit = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  createInterface({ input: child.stderr! }).on("line", (line) => output.push(line));
  const url = await new Promise<string>((resolve, reject) => {
    // Generous: on a loaded machine a start on a new database (its indexes) may take a minute; a hang still fails.
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output.join("\n")}`)), 120_000);
    void exit.then(() => reject(new Error(`service exited during start-up:\n${output.join("\n")}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      output.push(line);
      if (!line.includes('"petstore listening"')) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { url: string }).url.replace(/\/$/, ""));
    });
  });
  return { child, url, output, exit };
};
