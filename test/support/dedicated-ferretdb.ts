/**
 * A container of the MongoDB test image of a test file's own (petstore/test-mongo:latest: FerretDB v2 on PostgreSQL
 * + DocumentDB, see test/support/test-mongo-image.ts), for tests that stop, kill or freeze the database, which the
 * run's shared server (test/support/mongo-global-setup.ts) must never be. Host networking, bound to 127.0.0.1 on a
 * free port; never pulled; data inside the container, which outlives stop and start.
 *
 *   const reason = await dedicatedFerretDbUnavailable();   // at collection time
 *   describeWithDedicatedFerretDb('…', reason, () => { … startDedicatedFerretDb() … });
 */
import { MongoClient } from "mongodb";
import { describe } from "vitest";
import {
  GenericContainer,
  ImageName,
  PullPolicy,
  Wait,
  getContainerRuntimeClient,
  type StartedTestContainer,
} from "testcontainers";
import { freeLoopbackPort } from "./free-port.ts";
import { TEST_MONGO_IMAGE, TEST_MONGO_READY_LOG, testMongoEnvironment } from "./test-mongo-image.ts";
import { runLabels } from "./test-run-containers.ts";

const DEDICATED_FERRETDB_IMAGE = TEST_MONGO_IMAGE;

const prepareTestcontainers = (): void => {
  // As in the global setup: the Docker host is here (host networking), and Ryuk would be an image pull.
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= "127.0.0.1";
  if (process.env.PETSTORE_TEST_MONGO_PULL !== "true") process.env.TESTCONTAINERS_RYUK_DISABLED = "true";
};

/** Why no dedicated container can be started here ('' when it can): no container runtime, or no image. */
export const dedicatedFerretDbUnavailable = async (): Promise<string> => {
  prepareTestcontainers();
  try {
    const runtime = await getContainerRuntimeClient();
    if (await runtime.image.exists(ImageName.fromString(DEDICATED_FERRETDB_IMAGE))) return "";
    return `image ${DEDICATED_FERRETDB_IMAGE} does not exist locally (.ci/build-test-mongo-image.sh builds it)`;
  } catch (error) {
    return `no container runtime reachable (${error instanceof Error ? error.message : String(error)})`;
  }
};

/**
 * `describe`, or outside CI `describe.skip` with the reason in its title. Under CI=true the suite runs and fails with
 * the reason: nothing is skipped silently there.
 */
export const describeWithDedicatedFerretDb = (name: string, unavailable: string, fn: () => void): void => {
  if (unavailable && process.env.CI !== "true") {
    describe.skip(`${name} [skipped: ${unavailable}]`, fn);
    return;
  }
  describe(name, fn);
};

export interface DedicatedFerretDb {
  /** mongodb://127.0.0.1:PORT/?directConnection=true */
  url: string;
  /** docker stop: FerretDB and PostgreSQL shut down on SIGTERM; the port refuses connections. */
  stop(): Promise<void>;
  /** docker kill: SIGKILL, no shutdown at all (a crash). */
  kill(): Promise<void>;
  /** docker start of the same container (same port, same data); resolves once it answers ping. */
  start(): Promise<void>;
  /** docker pause: the process is frozen; connections are accepted by the kernel but never answered. */
  freeze(): Promise<void>;
  unfreeze(): Promise<void>;
  /** Thaws or starts it if a test left it frozen or stopped, so one failure does not fail the tests after it. */
  ensureRunning(): Promise<void>;
  /** Runs a command inside the container (e.g. to kill or restart its PostgreSQL); its exit code and output. */
  exec(command: string[], user?: string): Promise<{ exitCode: number; output: string }>;
  /** Removes the container. */
  remove(): Promise<void>;
}

export const startDedicatedFerretDb = async (unavailable: string): Promise<DedicatedFerretDb> => {
  if (unavailable) throw new Error(`A dedicated FerretDB container cannot be started: ${unavailable}`);
  prepareTestcontainers();
  const port = await freeLoopbackPort();
  const url = `mongodb://127.0.0.1:${port}/?directConnection=true`;
  let started: StartedTestContainer;
  try {
    started = await new GenericContainer(DEDICATED_FERRETDB_IMAGE)
      .withNetworkMode("host")
      .withEnvironment(testMongoEnvironment(port))
      // .ci/stop-docker.sh removes leftovers by the first label; an interrupted run removes its own by the second.
      .withLabels(runLabels("dedicated-ferretdb"))
      .withPullPolicy(PullPolicy.neverPull())
      // Port wait strategies do not work with host networking: wait for the log line.
      .withWaitStrategy(Wait.forLogMessage(TEST_MONGO_READY_LOG))
      .withStartupTimeout(60_000)
      .start();
  } catch (error) {
    throw new Error(`A dedicated FerretDB container did not start on 127.0.0.1:${port}: ${String(error)}`, {
      cause: error,
    });
  }
  const runtime = await getContainerRuntimeClient();
  const container = runtime.container.getById(started.getId());
  await pingUntilAnswered(url, 30_000);
  return {
    url,
    stop: () => runtime.container.stop(container, { timeout: 10_000 }),
    kill: async () => {
      await container.kill({ signal: "SIGKILL" });
      await container.wait();
    },
    start: async () => {
      await runtime.container.start(container);
      await pingUntilAnswered(url, 30_000);
    },
    freeze: async () => {
      await container.pause();
    },
    unfreeze: async () => {
      await container.unpause();
    },
    ensureRunning: async () => {
      const { State } = await runtime.container.inspect(container);
      if (State.Paused) await container.unpause();
      else if (!State.Running) await runtime.container.start(container);
      else return;
      await pingUntilAnswered(url, 30_000);
    },
    exec: async (command, user) => {
      const result = await started.exec(command, user === undefined ? {} : { user });
      return { exitCode: result.exitCode, output: result.output };
    },
    remove: async () => {
      await container.remove({ force: true, v: true });
    },
  };
};

/** Bounded: a server that never answers fails the caller with the last error. */
async function pingUntilAnswered(url: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 1_000, connectTimeoutMS: 1_000 });
    try {
      await client.connect();
      await client.db("admin").command({ ping: 1 });
      return;
    } catch (error) {
      lastError = error;
    } finally {
      await client.close().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`FerretDB at ${url} did not answer ping within ${withinMs} ms: ${String(lastError)}`);
}
