/**
 * compose.yaml cannot run here (no registry for mongo:8): it is checked as a document, against the service's own
 * configuration loader, and with `docker-compose config`: CI installs that tool (.ci/install-compose.sh) and fails
 * without it; elsewhere that one check runs where the tool is installed.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../bootstrap/config.ts";

interface Service {
  build?: { context: string };
  image?: string;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}
const compose = parse(readFileSync("compose.yaml", "utf8")) as { services: Record<string, Service>; volumes: Record<string, unknown> };

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
    if (!composeInstalled) throw new Error("docker-compose is not installed: CI installs it with .ci/install-compose.sh");
    expect(() => execFileSync("docker-compose", ["-f", "compose.yaml", "config", "-q"], { stdio: "pipe" })).not.toThrow();
  });
});
