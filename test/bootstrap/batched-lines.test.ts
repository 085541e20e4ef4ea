import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { batchedLines } from "../../bootstrap/logger.ts";

const aSink = () => {
  const chunks: string[] = [];
  let atExit: (() => void) | undefined;
  const sink = batchedLines({ write: (chunk: string) => chunks.push(chunk) }, (flush) => (atExit = flush));
  return { sink, chunks, exit: () => atExit?.() };
};
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("batched log lines", () => {
  it("writes the lines of one event-loop turn in one call, in order, at the end of the turn", async () => {
    const { sink, chunks } = aSink();
    sink.write("one");
    sink.write("two");
    expect(chunks).toEqual([]);

    await nextTurn();
    sink.write("three");
    await nextTurn();

    expect(chunks).toEqual(["one\ntwo\n", "three\n"]);
  });

  it("writes at once past 64 KiB waiting, and on flush", () => {
    const { sink, chunks } = aSink();
    const long = "x".repeat(40_000);
    sink.write(long);
    sink.write(long);
    sink.write("last");
    expect(chunks).toEqual([`${long}\n${long}\n`]);

    sink.flush();
    expect(chunks).toEqual([`${long}\n${long}\n`, "last\n"]);
  });

  it("writes what is pending when the process exits", () => {
    const { sink, chunks, exit } = aSink();
    sink.write("stopped");
    exit();
    expect(chunks).toEqual(["stopped\n"]);
  });

  it("loses no line of a real process that logs and calls process.exit in the same turn, even to a slow reader", async () => {
    const script = `
      import { createLogger } from "./bootstrap/logger.ts";
      const logger = createLogger("info");
      for (let i = 0; i < 5000; i++) logger.info("request", { i });
      process.exit(0);`;
    // The reader takes nothing for 300 ms: the pipe (64 KiB) fills long before the 5,000 lines are written.
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    child.stdout.pause();
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.stdout.resume();
    await new Promise((resolve) => child.once("close", resolve));
    const lines = Buffer.concat(chunks).toString().trimEnd().split("\n").map((line) => JSON.parse(line) as { i: number });

    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });
});
