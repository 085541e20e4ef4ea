import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { batchedLines, createLogger } from "../../bootstrap/logger.ts";

const aSink = (delayMs = 20) => {
  const chunks: string[] = [];
  let atExit: (() => void) | undefined;
  // The sink's buffer is used again after each write: what it wrote is read at once.
  const sink = batchedLines(
    { write: (chunk) => chunks.push(Buffer.from(chunk).toString()) },
    (flush) => (atExit = flush),
    delayMs,
  );
  return { sink, chunks, exit: () => atExit?.() };
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("batched log lines", () => {
  it("writes the lines of a short while in one call, in order, once the first has waited its delay", async () => {
    const { sink, chunks } = aSink(30);
    sink.write("one");
    await nextTurn();
    sink.write("two");
    await nextTurn();
    expect(chunks).toEqual([]);

    await sleep(60);
    sink.write("three");
    await sleep(60);

    expect(chunks).toEqual(["one\ntwo\n", "three\n"]);
  });

  it("has warnings and errors written at once, info and debug lines batched", () => {
    const written: [string, boolean][] = [];
    const logger = createLogger("debug", (line, urgent) =>
      written.push([(JSON.parse(line) as { level: string }).level, urgent]),
    );
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");
    expect(written).toEqual([
      ["debug", false],
      ["info", false],
      ["warn", true],
      ["error", true],
    ]);
  });

  it("writes what waits at once when the next line would take it past 64 KiB, a longer line by itself, and all on flush", () => {
    const { sink, chunks } = aSink();
    const long = "x".repeat(40_000);
    const longer = "é".repeat(40_000); // 80,000 bytes in UTF-8
    sink.write(long);
    sink.write(long);
    expect(chunks).toEqual([`${long}\n`]);
    sink.write(longer);
    expect(chunks).toEqual([`${long}\n`, `${long}\n`, `${longer}\n`]);
    sink.write("last");
    sink.write("é");

    sink.flush();
    expect(chunks).toEqual([`${long}\n`, `${long}\n`, `${longer}\n`, "last\né\n"]);
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
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout.pause();
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.stdout.resume();
    await new Promise((resolve) => child.once("close", resolve));
    const lines = Buffer.concat(chunks)
      .toString()
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { i: number });

    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });

  it("writes the lines still waiting when an uncaught exception ends the process", async () => {
    const script = `
      import { createLogger } from "./bootstrap/logger.ts";
      const logger = createLogger("info");
      logger.info("before the crash");
      setTimeout(() => { throw new Error("crash"); }, 1);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    const code = await new Promise((resolve) => child.once("close", resolve));

    expect(code).toBe(1);
    expect(Buffer.concat(chunks).toString()).toContain('"message":"before the crash"');
  });
});
