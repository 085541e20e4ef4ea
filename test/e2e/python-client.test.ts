/**
 * The petstore-client Python package as a newcomer gets it, following its README: the wheel built from
 * clients/python (`pip wheel`, its build backend from PyPI), installed with requirements-dev.txt's pinned versions into
 * a fresh virtual environment outside the repository; the README's first program and the package's own tests (pytest:
 * unit tests on a scripted transport, and end-to-end ones; tests/every_name.py uses every public name), copied outside
 * the repository, type-checked by `mypy --strict` against the installed package and run against the service (memory
 * store, demo data and the event relay, as `npm start` serves it; webhooks may target loopback) on a free loopback port.
 * Needs Python 3.11+ with venv (`.ci/install-python.sh`) and PyPI. Without Python the test is skipped, unless
 * CI=true, where it fails.
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servePetstore, type ServedPetstore } from "../support/serve-petstore.ts";
import { pep440 } from "../support/versions.ts";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");
const packageDir = join(root, "clients/python");
const PYTHON = process.env.PETSTORE_PYTHON ?? "python3";
const inCi = process.env.CI === "true";

const pythonProblem = ((): string | undefined => {
  try {
    execFileSync(PYTHON, ["-c", "import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))"], {
      stdio: "ignore",
    });
    return undefined;
  } catch {
    return `no Python 3.11+ with venv and pip as ${PYTHON}: install it with \`bash .ci/install-python.sh\``;
  }
})();

/** The README's example: the Python block after the comment that names this test. */
const readmeExample = (): string => {
  const readme = readFileSync(join(packageDir, "README.md"), "utf8");
  const match =
    /<!-- The end-to-end test \(test\/e2e\/python-client\.test\.ts\)[^>]*-->\n```python\n([\s\S]*?)```/.exec(readme);
  if (!match) throw new Error("clients/python/README.md has no example block marked for the end-to-end test");
  return match[1]!;
};

// Without Python the suite is one test: skipped locally with the reason in its title, failed on CI.
if (pythonProblem) {
  describe("the petstore-client wheel, without Python", () => {
    it.skipIf(!inCi)(`is skipped: ${pythonProblem}`, () => {
      throw new Error(`CI=true and ${pythonProblem}`);
    });
  });
}

describe.runIf(!pythonProblem)("the petstore-client wheel, installed into a fresh virtual environment", () => {
  let work: string;
  let service: ServedPetstore;
  const python = () => join(work, "venv/bin/python");
  const env = () => ({
    ...process.env,
    PETSTORE_URL: service.origin,
    PETSTORE_API_KEY: service.adminKey,
    PETSTORE_REQUIRE_SERVICE: "1",
    PYTHONDONTWRITEBYTECODE: "1",
  });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "petstore-python-"));
    const pip = (args: string[]) =>
      run(join(work, "venv/bin/python"), ["-m", "pip", "--disable-pip-version-check", "--no-input", "-q", ...args], {
        cwd: work,
        timeout: 300_000,
      });
    await run(PYTHON, ["-m", "venv", join(work, "venv")], { timeout: 120_000 });
    await pip(["wheel", "--no-deps", packageDir, "-w", join(work, "dist")]);
    const wheels = readdirSync(join(work, "dist"));
    expect(wheels).toHaveLength(1);
    await pip(["install", "-r", join(packageDir, "requirements-dev.txt"), join(work, "dist", wheels[0]!)]);
    service = await servePetstore({ PETSTORE_SEED_DEMO: "true", PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true" });
    // The relay (part of the webhook worker, as main.ts starts it) takes events to the shared log /events reads.
    service.petstore.webhookWorker.start();
  }, 600_000);

  afterAll(async () => {
    await service?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("is a wheel of the service's version, and the environment imports the installed package", async () => {
    const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
    expect(readdirSync(join(work, "dist"))).toEqual([`petstore_client-${pep440(version)}-py3-none-any.whl`]);
    const { stdout } = await run(python(), ["-c", "import petstore_client as p; print(p.__version__, p.__file__)"], {
      cwd: work,
    });
    const [imported, file] = stdout.trim().split(" ");
    expect(imported).toBe(version);
    expect(file!.startsWith(join(work, "venv"))).toBe(true);
  });

  it("runs the README's first program as written", async () => {
    writeFileSync(join(work, "example.py"), readmeExample());
    const { stdout } = await run(python(), ["example.py"], { cwd: work, env: env(), timeout: 120_000 });
    expect(stdout).toMatch(/^calling as .+ \(admin, plan business\)$/m);
    expect(stdout).toMatch(/^1 Rex$/m);
    const [, orderId] = /^placed order (\d+) for pet \d+$/m.exec(stdout) ?? [];
    expect(orderId).toBeDefined();
    expect(stdout).toMatch(new RegExp(`^open order ${orderId} placed by key 1$`, "m"));
    expect(stdout).toMatch(/^event \d+ order\.cancelled$/m);
    expect(stdout).toMatch(/^404 not_found /m);
  }, 180_000);

  it("type-checks the README's program, the package's tests and a program using every public name (mypy --strict)", async () => {
    writeFileSync(join(work, "example.py"), readmeExample());
    cpSync(join(packageDir, "tests"), join(work, "tests"), { recursive: true });
    const result = await run(python(), ["-m", "mypy", "--strict", "--cache-dir=/dev/null", "example.py", "tests"], {
      cwd: work,
      timeout: 300_000,
    }).catch((error: { stdout?: string }) => {
      throw new Error(`mypy failed:\n${error.stdout ?? ""}`);
    });
    expect(result.stdout).toMatch(/^Success: no issues found in \d+ source files?$/m);
  }, 360_000);

  it("passes the package's own tests against the service (retries, expansions, booleans, the wait warning, /me, the administration, events(), every public name)", async () => {
    cpSync(join(packageDir, "tests"), join(work, "tests"), { recursive: true });
    const result = await run(python(), ["-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs", "tests"], {
      cwd: work,
      env: env(),
      timeout: 300_000,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`pytest failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    const summary = result.stdout.trim().split("\n").at(-1)!;
    expect(summary).toMatch(/^\d+ passed in /);
    expect(summary).not.toMatch(/skipped|failed|error/);
    expect(Number(/^(\d+) passed/.exec(summary)![1])).toBeGreaterThanOrEqual(46);
  }, 360_000);
});
