/**
 * The service image (Dockerfile), as an operator runs it: `docker run --network host -e PORT -e HOST TAG`.
 * The image is PETSTORE_TEST_SERVICE_IMAGE (.ci/run sets it to what .ci/build-service-image.sh printed), else
 * petstore/service:<package version> when it exists locally. Without an image or a Docker engine the suite fails
 * when PETSTORE_TEST_SERVICE_IMAGE or CI=true is set, and is skipped elsewhere, with the reason.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeLoopbackPort } from "../support/free-port.ts";
import { RUN_LABEL, testRunId } from "../support/test-run-containers.ts";

const run = promisify(execFile);
const docker = async (...args: string[]) => (await run("docker", args, { timeout: 60_000 })).stdout.trim();

const version = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;
const image = process.env.PETSTORE_TEST_SERVICE_IMAGE || `petstore/service:${version}`;
const ADMIN_KEY = "image-admin-key-0123456789abcdefghijklmnopqrstuvwxyz";

const unavailable = await docker("image", "inspect", "--format", "{{.Id}}", image).then(
  () => "",
  (error: Error) => `no image ${image} (build it with .ci/build-service-image.sh): ${error.message.split("\n")[0]}`,
);
if (unavailable && (process.env.CI === "true" || process.env.PETSTORE_TEST_SERVICE_IMAGE)) throw new Error(unavailable);
if (unavailable) console.warn(`[service-image] skipped: ${unavailable}`);

describe.skipIf(unavailable !== "")(`the service image ${image}`, () => {
  let container = "";
  let base = "";

  beforeAll(async () => {
    const port = await freeLoopbackPort();
    base = `http://127.0.0.1:${port}`;
    container = await docker(
      "run",
      "-d",
      "--rm",
      "--network",
      "host",
      "--label",
      "petstore.test=service-image",
      "--label",
      `${RUN_LABEL}=${testRunId()}`,
      "-e",
      `PORT=${port}`,
      "-e",
      "HOST=127.0.0.1",
      "-e",
      `PETSTORE_ADMIN_KEY=${ADMIN_KEY}`,
      "-e",
      "PETSTORE_LOG_LEVEL=warn",
      image,
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline)
        throw new Error(`no /healthz within 60 s: ${await docker("logs", container).catch(String)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  afterAll(async () => {
    if (container) await docker("rm", "-f", container).catch(() => undefined);
  });

  it("serves /healthz and a keyed request", async () => {
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
    const created = await fetch(`${base}/categories`, {
      method: "POST",
      headers: { "x-api-key": ADMIN_KEY, "content-type": "application/json" },
      body: JSON.stringify({ name: "Image test" }),
    });
    expect(created.status).toBe(201);
    const pets = await fetch(`${base}/pets`, { headers: { "x-api-key": ADMIN_KEY } });
    expect(pets.status).toBe(200);
    expect((await fetch(`${base}/pets`)).status).toBe(401);
  });

  it("serves the staff console's page and its bundle, built in the image's build stage without esbuild at run time", async () => {
    const page = await (await fetch(`${base}/console`)).text();
    const script = /src="(\/console\/script\/[^"]+)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    const code = await fetch(`${base}${script}`);
    expect(code.status).toBe(200);
    expect((await code.text()).length).toBeGreaterThan(10_000);
    expect(await docker("exec", container, "ls", "/app/node_modules")).not.toMatch(/\besbuild\b/);
  });

  it("runs as the unprivileged node user, and its HEALTHCHECK command passes", async () => {
    expect(await docker("exec", container, "id", "-un")).toBe("node");
    const healthcheck = JSON.parse(
      await docker("inspect", "--format", "{{json .Config.Healthcheck.Test}}", container),
    ) as string[];
    expect(healthcheck[0]).toBe("CMD");
    // Throws (and fails the test) when the command exits non-zero.
    await docker("exec", container, ...healthcheck.slice(1));
  });

  it("holds production dependencies only, and no tests", async () => {
    const listing = await docker("exec", container, "ls", "/app", "/app/node_modules");
    expect(listing).toMatch(/\bh3\b/);
    expect(listing).not.toMatch(/\b(vitest|eslint|typescript|testcontainers|test)\b/);
  });

  it("carries the admin command line, which says there is nothing to administer on the memory store", async () => {
    const refused = await run("docker", ["exec", container, "npm", "run", "-s", "admin", "--", "list-keys"]).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/nothing to administer offline/);
  });

  it("stops on SIGTERM with exit code 0", async () => {
    const wait = docker("wait", container);
    await docker("kill", "--signal", "SIGTERM", container);
    expect(await wait).toBe("0");
    container = "";
  });
});
