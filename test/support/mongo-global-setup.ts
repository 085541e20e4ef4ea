/**
 * Vitest globalSetup: provides one MongoDB-compatible server for every test
 * file of the run, as `inject('mongoUrl')` (see test/support/mongo.ts).
 *
 *  - MONGODB_URL set: that server is used as is; nothing is started.
 *  - otherwise one container is started with testcontainers, host networking,
 *    bound to 127.0.0.1 on a free port:
 *      PETSTORE_TEST_MONGO_IMAGE  image (default: petstore/test-mongo:latest, FerretDB v2
 *                                 on PostgreSQL + DocumentDB, built by .ci/build-test-mongo-image.sh;
 *                                 else mongo:8 when present locally)
 *      PETSTORE_TEST_MONGO_KIND   ferretdb | mongo (default: guessed from the image name:
 *                                 "test-mongo" or "ferretdb" in it means ferretdb)
 *      PETSTORE_TEST_MONGO_PULL   "true" to let a missing image be pulled; off by
 *                                 default because this machine reaches no registry.
 *  - no container runtime / no image: under CI=true the run fails with the
 *    reason; elsewhere one warning is printed, `mongoUnavailable` carries the
 *    reason and the MongoDB suites are skipped (describeMongo).
 */
import { constants as osConstants } from "node:os";
import { MongoClient } from "mongodb";
import {
  GenericContainer,
  ImageName,
  PullPolicy,
  Wait,
  getContainerRuntimeClient,
  type StartedTestContainer,
} from "testcontainers";
import type { TestProject } from "vitest/node";
import { freeLoopbackPort } from "./free-port.ts";
import { TEST_MONGO_IMAGE, TEST_MONGO_READY_LOG, testMongoEnvironment } from "./test-mongo-image.ts";
import { removeRunContainers, runLabels, testRunId } from "./test-run-containers.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** MongoDB connection string, or '' when no server is available. */
    mongoUrl: string;
    /** Why no server is available, or '' when mongoUrl is usable. */
    mongoUnavailable: string;
  }
}

type MongoKind = "ferretdb" | "mongo";

const DEFAULT_MONGO_IMAGE = "mongo:8";
const STARTUP_TIMEOUT_MS = 60_000;
const PING_ATTEMPTS = 20;
const PING_INTERVAL_MS = 500;

/** An environment problem (no runtime, no image): skippable outside CI. */
class MongoUnavailableError extends Error {}

const isCI = (): boolean => process.env.CI === "true";

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  // Containers of this run (this one, the dedicated ones tests start) go when the run ends, however it ends:
  // interrupted (Ctrl-C), the teardowns and afterAll hooks that stop them never run.
  const runId = testRunId();
  process.once("exit", () => removeRunContainers(runId));
  // Without a terminal vitest leaves SIGINT and SIGTERM to Node, which ends the process without an `exit` event.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      removeRunContainers(runId);
      process.exit(128 + osConstants.signals[signal]);
    });
  }
  const external = process.env.MONGODB_URL?.trim();
  if (external) {
    project.provide("mongoUrl", external);
    project.provide("mongoUnavailable", "");
    return undefined;
  }

  let container: StartedTestContainer | undefined;
  try {
    const started = await startContainer();
    container = started.container;
    await pingUntilReady(started.url, container);
    project.provide("mongoUrl", started.url);
    project.provide("mongoUnavailable", "");
  } catch (error) {
    await container?.stop({ timeout: 2_000 }).catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    if (isCI() || !(error instanceof MongoUnavailableError)) {
      throw new Error(`MongoDB test server could not be started: ${reason}`, { cause: error });
    }
    console.warn(
      `MongoDB suites SKIPPED: ${reason}; set MONGODB_URL or start Docker (bash .ci/ensure-docker.sh && bash .ci/build-test-mongo-image.sh) to run them.`,
    );
    project.provide("mongoUrl", "");
    project.provide("mongoUnavailable", reason);
    return undefined;
  }

  const running = container;
  return async () => {
    await running.stop({ timeout: 5_000 }).catch((error: unknown) => {
      console.warn(`MongoDB test container ${running.getId().slice(0, 12)} did not stop cleanly: ${String(error)}`);
    });
  };
}

async function startContainer(): Promise<{ container: StartedTestContainer; url: string }> {
  // We are inside a container (/.dockerenv): without this override testcontainers
  // would resolve the Docker host to the bridge gateway (or run alpine to find a
  // default route). Our server is on host networking at 127.0.0.1 anyway.
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= "127.0.0.1";
  // Ryuk (testcontainers' reaper) is an image of its own: starting it means a pull, which must never happen
  // unless pulling was asked for. Our teardown stops the one container we start.
  if (process.env.PETSTORE_TEST_MONGO_PULL !== "true") process.env.TESTCONTAINERS_RYUK_DISABLED = "true";

  let client: Awaited<ReturnType<typeof getContainerRuntimeClient>>;
  try {
    client = await getContainerRuntimeClient();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const where = process.env.DOCKER_HOST
      ? `DOCKER_HOST=${process.env.DOCKER_HOST}`
      : "default socket /var/run/docker.sock";
    throw new MongoUnavailableError(`no container runtime reachable (${where}: ${detail})`);
  }

  const allowPull = process.env.PETSTORE_TEST_MONGO_PULL === "true";
  const imageExists = async (name: string): Promise<boolean> => {
    try {
      return await client.image.exists(ImageName.fromString(name));
    } catch {
      return false;
    }
  };

  let image = process.env.PETSTORE_TEST_MONGO_IMAGE?.trim();
  if (!image) {
    if (await imageExists(TEST_MONGO_IMAGE)) image = TEST_MONGO_IMAGE;
    else if (await imageExists(DEFAULT_MONGO_IMAGE)) image = DEFAULT_MONGO_IMAGE;
    else if (allowPull) image = DEFAULT_MONGO_IMAGE;
    else {
      throw new MongoUnavailableError(
        `neither ${TEST_MONGO_IMAGE} (.ci/build-test-mongo-image.sh builds it) nor ${DEFAULT_MONGO_IMAGE} exists locally and pulling is off (PETSTORE_TEST_MONGO_PULL)`,
      );
    }
  } else if (!allowPull && !(await imageExists(image))) {
    throw new MongoUnavailableError(
      `image ${image} does not exist locally and pulling is off (.ci/build-test-mongo-image.sh builds ${TEST_MONGO_IMAGE}; or set PETSTORE_TEST_MONGO_PULL=true)`,
    );
  }

  const kind = mongoKind(image);
  const port = await freeLoopbackPort();
  // Port wait strategies do not work with host networking: wait for the log line.
  const readyLog = kind === "ferretdb" ? TEST_MONGO_READY_LOG : /Waiting for connections/;

  let containerLog = "";
  const definition = new GenericContainer(image).withNetworkMode("host");
  if (kind === "ferretdb") definition.withEnvironment(testMongoEnvironment(port));
  else definition.withCommand(["mongod", "--bind_ip", "127.0.0.1", "--port", String(port)]);
  definition
    // .ci/stop-docker.sh removes leftovers by the first label; an interrupted run removes its own by the second.
    .withLabels(runLabels("mongo"))
    .withLogConsumer((stream) => {
      stream.on("data", (chunk: Buffer | string) => {
        containerLog = (containerLog + chunk.toString()).slice(-2_000);
      });
    })
    .withPullPolicy(allowPull ? PullPolicy.defaultPolicy() : PullPolicy.neverPull())
    .withWaitStrategy(Wait.forLogMessage(readyLog))
    .withStartupTimeout(STARTUP_TIMEOUT_MS);

  let container: StartedTestContainer;
  try {
    container = await definition.start();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    if (/pull|not found|no such image|does not exist/i.test(detail)) {
      throw new MongoUnavailableError(`image ${image} is missing and could not be pulled (${detail})`);
    }
    const output = containerLog.trim() ? `; container output:\n${containerLog.trim()}` : "";
    throw new Error(`container ${image} (${kind}) failed to start on 127.0.0.1:${port}: ${detail}${output}`, {
      cause: error,
    });
  }
  return { container, url: `mongodb://127.0.0.1:${port}/?directConnection=true` };
}

function mongoKind(image: string): MongoKind {
  const explicit = process.env.PETSTORE_TEST_MONGO_KIND?.trim();
  if (explicit === "ferretdb" || explicit === "mongo") return explicit;
  if (explicit) throw new Error(`PETSTORE_TEST_MONGO_KIND must be "ferretdb" or "mongo", got "${explicit}"`);
  return /test-mongo|ferretdb/i.test(image) ? "ferretdb" : "mongo";
}

/** The log line says "listening"; a real round trip proves it. Bounded retries. */
async function pingUntilReady(url: string, container: StartedTestContainer): Promise<void> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= PING_ATTEMPTS; attempt += 1) {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 2_000, connectTimeoutMS: 2_000 });
    try {
      await client.connect();
      await client.db("admin").command({ ping: 1 });
      return;
    } catch (error) {
      lastError = error;
    } finally {
      await client.close().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, PING_INTERVAL_MS));
  }
  const detail = lastError instanceof Error ? lastError.message : String(lastError);
  throw new Error(
    `server in container ${container.getId().slice(0, 12)} logged readiness but did not answer ping at ${url} after ${PING_ATTEMPTS} attempts: ${detail}`,
  );
}
