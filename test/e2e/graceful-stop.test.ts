import { Agent, request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_KEY } from "../support/test-petstore.ts";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("SIGTERM", () => {
  let service: ServiceProcess | undefined;
  afterEach(() => {
    service?.child.kill("SIGKILL");
  });

  it("lets the request in flight finish, refuses new connections, closes the store and exits 0", async () => {
    service = await startServiceProcess();
    const { port } = new URL(service.url);

    // A request whose body is still arriving when the signal comes.
    const body = JSON.stringify({ name: "Finished after SIGTERM" });
    const inFlight = request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/categories",
      headers: {
        "x-api-key": ADMIN_KEY,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      },
    });
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      inFlight.on("response", (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      inFlight.on("error", reject);
    });
    inFlight.write(body.slice(0, 10));
    await sleep(200);

    service.child.kill("SIGTERM");
    await sleep(300);

    // New connections are refused while the old one is still being served.
    await expect(fetch(`${service.url}/healthz`)).rejects.toThrow();

    inFlight.end(body.slice(10));
    const response = await answered;
    expect(response.status).toBe(201);
    expect(JSON.parse(response.body)).toMatchObject({ name: "Finished after SIGTERM" });

    const exit = await service.exit;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(service.output.some((line) => line.includes('"stopping"'))).toBe(true);
  });
});

describe("SIGTERM with a drain period and a shutdown deadline", () => {
  let service: ServiceProcess | undefined;
  afterEach(() => {
    service?.child.kill("SIGKILL");
  });

  it("answers /readyz 503 at once and keeps serving for PETSTORE_DRAIN_SECONDS, then refuses connections and exits 0", async () => {
    service = await startServiceProcess({ PETSTORE_DRAIN_SECONDS: "2" });
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);

    service.child.kill("SIGTERM");
    await sleep(300);
    const readyz = await fetch(`${service.url}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toMatchObject({ code: "service_unavailable", status: 503 });
    // Still serving, on new connections too.
    expect((await fetch(`${service.url}/healthz`, { headers: { connection: "close" } })).status).toBe(200);
    expect(
      (await fetch(`${service.url}/pets`, { headers: { "x-api-key": ADMIN_KEY, connection: "close" } })).status,
    ).toBe(200);

    const exit = await service.exit;
    expect(exit).toEqual({ code: 0, signal: null });
    await expect(fetch(`${service.url}/healthz`)).rejects.toThrow();
    expect(service.output.some((line) => line.includes('"draining"'))).toBe(true);
  });

  it("cuts a request still in flight at PETSTORE_SHUTDOWN_SECONDS and exits 1", async () => {
    service = await startServiceProcess({ PETSTORE_SHUTDOWN_SECONDS: "1" });
    const { port } = new URL(service.url);
    // A body that never finishes arriving.
    const stuck = request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/categories",
      headers: { "x-api-key": ADMIN_KEY, "content-type": "application/json", "content-length": "100" },
    });
    const ended = new Promise<string>((resolve) => {
      stuck.on("error", (error) => resolve(error.message));
      stuck.on("response", (res) => resolve(`answered ${res.statusCode}`));
    });
    stuck.write('{"name":');
    await sleep(200);

    const signalledAt = performance.now();
    service.child.kill("SIGTERM");
    const exit = await service.exit;
    expect(exit).toEqual({ code: 1, signal: null });
    expect(performance.now() - signalledAt).toBeGreaterThanOrEqual(900);
    expect(await ended).toMatch(/socket hang up|ECONNRESET/);
    expect(service.output.some((line) => line.includes("shutdown deadline passed"))).toBe(true);
  });
});

describe("answers during the drain", () => {
  let service: ServiceProcess | undefined;
  afterEach(() => {
    service?.child.kill("SIGKILL");
  });

  /** One GET on `agent`'s connection: the status, the Connection header, and which local port it went from. */
  const getOn = (agent: Agent, port: string, path: string) =>
    new Promise<{ status: number; connection: string | undefined; localPort: number | undefined }>(
      (resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, path, agent, headers: { "x-api-key": ADMIN_KEY } }, (res) => {
          res.resume();
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              connection: res.headers.connection,
              localPort: req.socket?.localPort,
            }),
          );
        });
        req.on("error", reject);
        req.end();
      },
    );

  it("carry Connection: close, on keep-alive connections opened before the signal and after it, so clients move on", async () => {
    service = await startServiceProcess({ PETSTORE_DRAIN_SECONDS: "5" });
    const { port } = new URL(service.url);
    const early = new Agent({ keepAlive: true, maxSockets: 1 });
    const late = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await getOn(early, port, "/pets");
      expect(before).toMatchObject({ status: 200, connection: "keep-alive" });

      service.child.kill("SIGTERM");
      // Draining once /readyz says so (each probe on a connection of its own).
      await expect
        .poll(async () => (await fetch(`${service!.url}/readyz`, { headers: { connection: "close" } })).status)
        .toBe(503);

      const reused = await getOn(early, port, "/pets");
      expect(reused).toMatchObject({ status: 200, connection: "close", localPort: before.localPort });
      expect(await getOn(late, port, "/categories")).toMatchObject({ status: 200, connection: "close" });
      expect(await getOn(late, port, "/healthz")).toMatchObject({ status: 200, connection: "close" });
      expect(await service.exit).toEqual({ code: 0, signal: null });
    } finally {
      early.destroy();
      late.destroy();
    }
  });
});
