/**
 * The README's walk through the API, pasted into a shell against a started service: every answer it prints is the
 * one its `#` line shows (ids and times normalised). The walk is read from wherever "A walk through the API" is:
 * README.md, or a page under docs/ if it moves.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { documentationFiles } from "../support/markdown-links.ts";
import { startServiceProcess } from "../support/service-process.ts";
import { ADMIN_KEY } from "../support/test-petstore.ts";

const HEADING = /^#+ A walk through the API\s*$/m;

/** The sh block of the walk: the one under its heading that calls the API (the other starts the service). */
const walkBlock = (): { file: string; script: string } => {
  const files = ["README.md", ...documentationFiles(process.cwd()).filter((f) => f !== "README.md")];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const heading = HEADING.exec(text);
    if (!heading) continue;
    const section = text.slice(heading.index + heading[0].length).split(/^## /m)[0]!;
    const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    const walk = blocks.find((block) => block.includes("curl") && block.includes("$PETSTORE_ADMIN_KEY"));
    if (walk) return { file, script: walk };
  }
  throw new Error("no sh block calling the API under 'A walk through the API' in README.md or docs/");
};

/** What varies from run to run: ids and times. */
const normalise = (line: string): string =>
  line
    .replace(/"(id|petId|categoryId)":\d+/g, '"$1":N')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "TIME");

const run = (script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve, reject) => {
    // One stream for both: the walk shows the answers whose id it keeps on stderr, in the order they come.
    const shell = spawn("bash", ["-o", "pipefail", "-c", `exec 2>&1\n${script}`], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    shell.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    shell.on("error", reject);
    shell.on("close", (code) => resolve({ code, output }));
  });

describe("the README walk", () => {
  it("pasted into bash against `npm start`'s service, prints the answers its # lines show", async () => {
    const { script } = walkBlock();
    expect(script).not.toMatch(/…/); // no placeholder to fill in
    const expected = script
      .split("\n")
      .filter((line) => line.startsWith("#  "))
      .map((line) => normalise(line.slice(3)));
    expect(expected.length).toBeGreaterThanOrEqual(8);

    const service = await startServiceProcess({ PETSTORE_STORE: "memory" });
    try {
      const { code, output } = await run(script, { API: new URL(service.url).host, PETSTORE_ADMIN_KEY: ADMIN_KEY });
      expect(code, output).toBe(0);
      expect(output.trimEnd().split("\n").map(normalise)).toEqual(expected);
    } finally {
      service.child.kill("SIGKILL");
    }
  }, 60_000);
});
