/**
 * The service runs with the same node flags wherever it runs: `npm start`, `npm run dev`, the image's CMD, and the
 * benchmark's service process (whose memory figures would otherwise describe another runtime).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SERVICE_NODE_ARGS } from "../../bench/child-server.ts";

const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
/** The flags between `node` and `bootstrap/main.ts` in a command line. */
const flagsOf = (command: string): string[] => {
  const words = command.split(/\s+/);
  const main = words.indexOf("bootstrap/main.ts");
  const node = words.lastIndexOf("node", main);
  return words.slice(node + 1, main).filter((word) => word !== "--watch");
};

describe("the service's node flags", () => {
  it("are the benchmark's, under npm start and npm run dev", () => {
    expect(SERVICE_NODE_ARGS).toEqual(["--max-semi-space-size=16"]);
    expect(flagsOf(scripts.start!)).toEqual(SERVICE_NODE_ARGS);
    expect(flagsOf(scripts.dev!)).toEqual(SERVICE_NODE_ARGS);
  });

  it("are the benchmark's in the image's CMD", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync("Dockerfile", "utf8"));
    const argv = JSON.parse(cmd![1]!) as string[];
    expect(argv[0]).toBe("node");
    expect(argv.at(-1)).toBe("bootstrap/main.ts");
    expect(argv.slice(1, -1)).toEqual(SERVICE_NODE_ARGS);
  });
});
