/**
 * compose.yaml cannot run here (no registry for mongo:8): it is checked as a document, against the service's own
 * configuration loader, and with `docker-compose config`: CI installs that tool (.ci/install-compose.sh) and fails
 * without it; elsewhere that one check runs where the tool is installed.
 *
 * What compose would run is then run as two containers on the host network: the MongoDB test engine image
 * (PETSTORE_TEST_MONGO_IMAGE) as the `mongo` service (listen address and data directory set, a volume, its own
 * health check) and the service image (PETSTORE_TEST_SERVICE_IMAGE) started once the engine is healthy. Without the
 * images or Docker that suite fails where CI=true or PETSTORE_TEST_SERVICE_IMAGE is set, and is skipped elsewhere.
 */
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { freeLoopbackPort } from "../support/free-port.ts";
import { parse } from "yaml";
import { loadConfig } from "../../bootstrap/config.ts";
import { RUN_LABEL, testRunId } from "../support/test-run-containers.ts";

interface Service {
  build?: { context: string };
  image?: string;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}
const compose = parse(readFileSync("compose.yaml", "utf8")) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};

describe("compose.yaml", () => {
  const { petstore, mongo } = compose.services as { petstore: Service; mongo: Service };

  it("runs the service built from the Dockerfile on mongo:8, after MongoDB is healthy", () => {
    expect(petstore.build?.context).toBe(".");
    expect(mongo.image).toBe("mongo:8");
    expect(petstore.depends_on).toEqual({ mongo: { condition: "service_healthy" } });
    expect(petstore.environment).toMatchObject({ PETSTORE_STORE: "mongo", MONGODB_URL: "mongodb://mongo:27017" });
  });

  it("keeps MongoDB's data in a named volume", () => {
    expect(mongo.volumes).toEqual(["mongo-data:/data/db"]);
    expect(Object.keys(compose.volumes)).toEqual(["mongo-data"]);
  });

  it("has a health check on both services", () => {
    expect(petstore.healthcheck?.test.join(" ")).toContain("/readyz");
    expect(mongo.healthcheck?.test.join(" ")).toContain("ping");
  });

  it("sets only settings the service accepts, and publishes its API and metrics ports", () => {
    const environment = { ...petstore.environment, PETSTORE_ADMIN_KEY: "k".repeat(40) };
    const config = loadConfig(environment);
    expect(config.store).toMatchObject({ kind: "mongo", url: "mongodb://mongo:27017" });
    expect(petstore.ports).toEqual([`${config.port}:${config.port}`, `${config.metricsPort}:${config.metricsPort}`]);
  });

  const composeInstalled = (() => {
    try {
      execFileSync("docker-compose", ["version"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  })();
  it.skipIf(!composeInstalled && !process.env.CI)("is a valid Compose file for docker-compose (always in CI)", () => {
    if (!composeInstalled)
      throw new Error("docker-compose is not installed: CI installs it with .ci/install-compose.sh");
    expect(() =>
      execFileSync("docker-compose", ["-f", "compose.yaml", "config", "-q"], { stdio: "pipe" }),
    ).not.toThrow();
  });
});

const run = promisify(execFile);
const docker = async (...args: string[]) => (await run("docker", args, { timeout: 120_000 })).stdout.trim();
const version = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;
const engineImage = process.env.PETSTORE_TEST_MONGO_IMAGE || "petstore/test-mongo:latest";
const serviceImage = process.env.PETSTORE_TEST_SERVICE_IMAGE || `petstore/service:${version}`;
const missingImages = (
  await Promise.all(
    [engineImage, serviceImage].map((image) =>
      docker("image", "inspect", "--format", "{{.Id}}", image).then(
        () => "",
        () => `no image ${image}`,
      ),
    ),
  )
)
  .filter(Boolean)
  .join(", ");
if (missingImages && (process.env.CI === "true" || process.env.PETSTORE_TEST_SERVICE_IMAGE))
  throw new Error(missingImages);
if (missingImages)
  console.warn(
    `[compose] two-container run skipped: ${missingImages} (.ci/build-test-mongo-image.sh, .ci/build-service-image.sh)`,
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(missingImages !== "")("the engine and the service as compose runs them, on the host network", () => {
  const suffix = randomBytes(4).toString("hex");
  const volume = `petstore-compose-test-${suffix}`;
  const containers: string[] = [];
  afterAll(async () => {
    for (const container of containers) await docker("rm", "-f", container).catch(() => undefined);
    await docker("volume", "rm", "-f", volume).catch(() => undefined);
  });

  /** The engine as compose's `mongo` service: its own address (not the default 127.0.0.1), data on the volume. */
  const startEngine = async (port: number): Promise<string> => {
    const container = await docker(
      "run",
      "-d",
      "--network",
      "host",
      "--label",
      "petstore.test=compose",
      "--label",
      `${RUN_LABEL}=${testRunId()}`,
      "-e",
      "HOST=127.0.0.2",
      "-e",
      `PORT=${port}`,
      "-e",
      "DATA_DIR=/data/db",
      "-v",
      `${volume}:/data/db`,
      engineImage,
    );
    containers.push(container);
    // What `depends_on: condition: service_healthy` waits for: the image's own HEALTHCHECK.
    for (let waited = 0; ; waited += 500) {
      const health = await docker(
        "inspect",
        "--format",
        "{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}",
        container,
      );
      if (health === "healthy") return container;
      if (health === "none") throw new Error(`${engineImage} has no HEALTHCHECK`);
      if (waited > 120_000)
        throw new Error(
          `engine not healthy in 120 s (${health}): ${await docker("logs", "--tail", "30", container).catch(String)}`,
        );
      await sleep(500);
    }
  };

  it("engine healthy without mongosh on its HOST and DATA_DIR settings; the service serves from it; the data outlives the engine's container", async () => {
    const enginePort = await freeLoopbackPort();
    const apiPort = await freeLoopbackPort();
    const adminKey = `compose-admin-key-${randomBytes(16).toString("hex")}`;
    const api = `http://127.0.0.1:${apiPort}`;
    const first = await startEngine(enginePort);

    const service = await docker(
      "run",
      "-d",
      "--network",
      "host",
      "--label",
      "petstore.test=compose",
      "--label",
      `${RUN_LABEL}=${testRunId()}`,
      "-e",
      "PETSTORE_STORE=mongo",
      "-e",
      `MONGODB_URL=mongodb://127.0.0.2:${enginePort}/?directConnection=true`,
      "-e",
      "MONGODB_DB=petstore",
      "-e",
      `PORT=${apiPort}`,
      "-e",
      "HOST=127.0.0.1",
      "-e",
      `PETSTORE_ADMIN_KEY=${adminKey}`,
      "-e",
      "PETSTORE_LOG_LEVEL=warn",
      serviceImage,
    );
    containers.push(service);
    const ready = async () => {
      for (let waited = 0; ; waited += 250) {
        if (
          await fetch(`${api}/readyz`).then(
            (r) => r.ok,
            () => false,
          )
        )
          return;
        if (waited > 90_000)
          throw new Error(`service not ready in 90 s: ${await docker("logs", "--tail", "30", service).catch(String)}`);
        await sleep(250);
      }
    };
    await ready();
    const headers = { "x-api-key": adminKey, "content-type": "application/json" };
    const created = await fetch(`${api}/categories`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Kept on the volume" }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };

    // A new engine container on the same volume (compose's `up` after `down` without -v) has the data.
    await docker("rm", "-f", first);
    await startEngine(enginePort);
    await ready();
    const read = await fetch(`${api}/categories/${id}`, { headers });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id, name: "Kept on the volume" });
  }, 300_000);
});
