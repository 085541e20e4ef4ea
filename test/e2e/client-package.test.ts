/**
 * The @petstore/client package as a newcomer gets it, following its README: `npm pack` (which builds dist/), a new
 * project outside the repository (`npm init -y`, `type: module`), the tarball installed into it, `tsc --init --types
 * node` (TypeScript's defaults: strict, exactOptionalPropertyTypes), the README's first program compiled with them
 * and run by Node against the service (memory store, demo data, as `npm start` serves it) on a free loopback port.
 *
 * Offline: openapi-fetch, @types/node and their dependencies are packed from the root's node_modules and installed
 * with the client's tarball (`npm install --offline`), so no registry is asked; npm still checks the client's
 * declared range. TypeScript is the root's.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servePetstore, type ServedPetstore } from "../support/serve-petstore.ts";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");
const packageDir = join(root, "clients/typescript");

/** The child npm must not inherit the package context of the `npm test` that runs this file. */
const npmEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_(package|lifecycle)_/.test(name)),
);
const npm = (args: string[], cwd: string) =>
  run("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, env: npmEnv, timeout: 120_000 });

/** A package's production dependencies, transitively, as installed in the root's node_modules. */
const dependencyClosure = (names: string[]): string[] => {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const manifest = JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency);
  };
  names.forEach(visit);
  return [...seen];
};

/** The README's example: the TypeScript block after the comment that names this test. */
const readmeExample = (): string => {
  const readme = readFileSync(join(packageDir, "README.md"), "utf8");
  const match = /<!-- The end-to-end test \(test\/e2e\/client-package\.test\.ts\)[^>]*-->\n```ts\n([\s\S]*?)```/.exec(
    readme,
  );
  if (!match) throw new Error("clients/typescript/README.md has no example block marked for the end-to-end test");
  return match[1]!;
};

/** The TypeScript 7 compiler of the root, run in `cwd`. */
const tsc = (args: string[], cwd: string) =>
  run(process.execPath, [join(root, "node_modules/@typescript/native/bin/tsc"), ...args], { cwd, timeout: 120_000 });

/**
 * The client promises Node 20: the Node of the machine (on PATH outside node_modules, where npm puts Node 24), when
 * it is 20 or later. The machine this project runs on has Node 20 there.
 */
const machineNode = async (): Promise<{ path: string; major: number }> => {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir.includes("node_modules")) continue;
    const candidate = join(dir, "node");
    if (!existsSync(candidate)) continue;
    const { stdout } = await run(candidate, ["--version"]);
    const major = Number(/^v(\d+)\./.exec(stdout.trim())?.[1]);
    if (major >= 20) return { path: candidate, major };
  }
  throw new Error("the client's Node 20 check needs a node of version 20 or later on PATH outside node_modules");
};

describe("the @petstore/client tarball, installed into a new project as its README says", () => {
  let work: string;
  let scratch: string;
  let service: ServedPetstore;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "petstore-client-pack-"));
    scratch = join(work, "petstore-demo");
    const clientManifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    await npm(["pack", "--pack-destination", work], packageDir);
    const pack = async (names: string[], into: string) => {
      mkdirSync(into);
      await npm(["pack", "--pack-destination", into, ...names.map((name) => join(root, "node_modules", name))], root);
      return readdirSync(into).map((f) => join(into, f));
    };
    const dependencies = await pack(dependencyClosure(Object.keys(clientManifest.dependencies)), join(work, "deps"));
    const devDependencies = await pack(dependencyClosure(["@types/node"]), join(work, "dev-deps"));
    const client = readdirSync(work).filter((f) => f.endsWith(".tgz"));
    expect(client).toHaveLength(1);
    mkdirSync(scratch);
    await npm(["init", "-y"], scratch);
    await npm(["pkg", "set", "type=module"], scratch);
    await npm(["install", "--offline", join(work, client[0]!), ...dependencies], scratch);
    await npm(["install", "--offline", "--save-dev", ...devDependencies], scratch);
    await tsc(["--init", "--types", "node"], scratch);
    service = await servePetstore({ PETSTORE_SEED_DEMO: "true" });
  }, 240_000);

  afterAll(async () => {
    await service?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const newKey = async (role: "staff" | "admin", label: string) => {
    const created = await fetch(`${service.origin}/admin/api-keys`, {
      method: "POST",
      headers: { "x-api-key": service.adminKey, "content-type": "application/json" },
      body: JSON.stringify({ label, role, plan: "business" }),
    });
    expect(created.status).toBe(201);
    return ((await created.json()) as { key: string }).key;
  };

  it("holds built JavaScript, declarations, the README and the licence, not the sources, and has the service's version", () => {
    const installed = join(scratch, "node_modules/@petstore/client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
      version: string;
      license: string;
    };
    expect(manifest.version).toBe(
      (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version,
    );
    expect(manifest.license).toBe("MIT");
    expect(readFileSync(join(installed, "LICENSE"), "utf8")).toBe(readFileSync(join(root, "LICENSE"), "utf8"));
    const files = readdirSync(installed, { recursive: true }).map(String).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        "README.md",
        "LICENSE",
        "dist/index.js",
        "dist/index.d.ts",
        "dist/generated/petstore-api.d.ts",
        "dist/generated/petstore-admin-api.d.ts",
        "package.json",
      ]),
    );
    expect(
      files.filter((f) => f.startsWith("src") || f.startsWith("test") || (f.endsWith(".ts") && !f.endsWith(".d.ts"))),
    ).toEqual([]);
  });

  it("compiles the README's first program under tsc --init's defaults, and runs it against the demo data", async () => {
    const config = readFileSync(join(scratch, "tsconfig.json"), "utf8");
    // What the issue met: the example must hold under these defaults.
    expect(config).toMatch(/^\s*"exactOptionalPropertyTypes": true/m);
    expect(config).toMatch(/^\s*"strict": true/m);
    expect(config).toMatch(/^\s*"types": \["node"\]/m);
    writeFileSync(join(scratch, "example.ts"), readmeExample());
    await tsc([], scratch);
    // The package's own declarations hold under the same options too.
    await tsc(["--noEmit", "--skipLibCheck", "false"], scratch);

    const runExample = async (node: string, key: string) => {
      const { stdout } = await run(node, ["example.js"], {
        cwd: scratch,
        env: { ...process.env, PETSTORE_URL: service.origin, PETSTORE_API_KEY: key },
        timeout: 60_000,
      });
      return stdout.trim().split("\n");
    };
    expect(await runExample(process.execPath, await newKey("staff", "shop floor"))).toEqual([
      "calling as shop floor (staff)",
      "created pet 9: Biscuit in Dogs",
      "renamed: Biscuit the Good",
      "not yet: Pet 9 has fewer than 1 units in stock",
      "order 1: 1 × pet 9",
      "cancelled order 1: 204",
      "Dogs: Bella, Biscuit the Good, Max, Rex",
    ]);
    // Again, on the machine's Node (20 here), with an admin key: the program holds on data it has changed.
    const node = await machineNode();
    expect(await runExample(node.path, await newKey("admin", "operator"))).toEqual([
      "calling as operator (admin)",
      "created pet 10: Biscuit in Dogs",
      "renamed: Biscuit the Good",
      "not yet: Pet 10 has fewer than 1 units in stock",
      "order 2: 1 × pet 10",
      "cancelled order 2: 204",
      "Dogs: Bella, Biscuit the Good, Biscuit the Good, Max, Rex",
    ]);
  }, 240_000);

  it("loads with require() from CommonJS on the machine's Node, typed in a .cts file", async () => {
    writeFileSync(
      join(scratch, "cjs.cts"),
      [
        'import petstore = require("@petstore/client");',
        'const client = petstore.createPetstoreClient({ baseUrl: "http://localhost:8080", apiKey: undefined });',
        "console.log(typeof client.GET, typeof petstore.verifyWebhook);",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(scratch, "tsconfig.cjs.json"),
      JSON.stringify({
        extends: "./tsconfig.json",
        compilerOptions: { declaration: false, declarationMap: false },
        files: ["cjs.cts"],
        include: [],
      }),
    );
    await tsc(["-p", "tsconfig.cjs.json"], scratch);
    const node = await machineNode();
    const { stdout } = await run(node.path, ["cjs.cjs"], { cwd: scratch, timeout: 60_000 });
    expect(stdout.trim()).toBe("function function");
  }, 120_000);
});
