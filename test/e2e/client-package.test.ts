/**
 * The @petstore/client package as its users get it: `npm pack` (which builds dist/), the tarball installed into an
 * empty project, the README's example type-checked against the tarball's declarations and run by Node against the
 * service (memory store) on a free loopback port.
 *
 * Offline: openapi-fetch and its dependencies are packed from the root's node_modules and installed with the
 * client's tarball (`npm install --offline`), so no registry is asked; npm still checks the client's declared range.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
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

describe("the @petstore/client tarball, installed into an empty project", () => {
  let work: string;
  let scratch: string;
  let service: ServedPetstore;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "petstore-client-pack-"));
    scratch = join(work, "scratch");
    const clientManifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    await npm(["pack", "--pack-destination", work], packageDir);
    const dependencies = dependencyClosure(Object.keys(clientManifest.dependencies));
    await npm(
      ["pack", "--pack-destination", work, ...dependencies.map((name) => join(root, "node_modules", name))],
      root,
    );
    const tarballs = readdirSync(work).filter((f) => f.endsWith(".tgz"));
    expect(tarballs).toHaveLength(1 + dependencies.length);
    mkdirSync(scratch);
    writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
    await npm(["install", "--offline", ...tarballs.map((f) => join(work, f))], scratch);
    service = await servePetstore();
  }, 240_000);

  afterAll(async () => {
    await service?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("holds built JavaScript, declarations and the README, not the sources, and has the service's version", () => {
    const installed = join(scratch, "node_modules/@petstore/client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { version: string };
    expect(manifest.version).toBe(
      (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version,
    );
    const files = readdirSync(installed, { recursive: true }).map(String).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        "README.md",
        "dist/index.js",
        "dist/index.d.ts",
        "dist/generated/petstore-api.d.ts",
        "package.json",
      ]),
    );
    expect(
      files.filter((f) => f.startsWith("src") || f.startsWith("test") || (f.endsWith(".ts") && !f.endsWith(".d.ts"))),
    ).toEqual([]);
  });

  it("type-checks the README's example against the tarball's declarations, and runs it against the service", async () => {
    writeFileSync(join(scratch, "example.ts"), readmeExample());
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "es2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
          typeRoots: [join(root, "node_modules/@types")],
        },
        files: ["example.ts"],
      }),
    );
    await run(process.execPath, [join(root, "node_modules/@typescript/native/bin/tsc"), "-p", scratch], {
      cwd: scratch,
      timeout: 120_000,
    });

    const created = await fetch(`${service.origin}/admin/api-keys`, {
      method: "POST",
      headers: { "x-api-key": service.adminKey, "content-type": "application/json" },
      body: JSON.stringify({ label: "client example", role: "staff", plan: "business" }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };

    const { stdout } = await run(process.execPath, ["example.ts"], {
      cwd: scratch,
      env: { ...process.env, PETSTORE_URL: service.origin, PETSTORE_API_KEY: key },
      timeout: 60_000,
    });
    expect(stdout.trim().split("\n")).toEqual([
      "created pet 1: Rex",
      "renamed: Rex the Good",
      "not yet: Pet 1 has fewer than 1 units in stock",
      "order 1: 201",
      "listed Rex the Good (available)",
    ]);
  });
});
