import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer as createHttpServer } from "node:http";
import { connect, createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardNodeServer } from "../../adapters/http/node-server-errors.ts";
import { free } from "../support/limits.ts";
import { ADMIN_KEY } from "../support/test-petstore.ts";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";

interface RawAnswer {
  /** `HTTP/1.1 200 OK` */
  statusLine: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection after the answer. */
  closed: boolean;
}

/** Sends raw bytes on a fresh loopback connection and reads one answer (Content-Length framed), then waits for close. */
const rawExchange = (port: number, bytes: Buffer | string, { endAfterSend = false } = {}): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let received = Buffer.alloc(0);
    let answer: Omit<RawAnswer, "closed"> | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      if (answer) resolve({ ...answer, closed: false });
      else
        reject(
          new Error(`no complete answer in 5 s; got ${JSON.stringify(received.toString("latin1").slice(0, 300))}`),
        );
    }, 5_000);
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf("\r\n\r\n");
      if (headEnd === -1 || answer) return;
      const [statusLine, ...lines] = received.subarray(0, headEnd).toString("latin1").split("\r\n");
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
      );
      const length = Number(headers["content-length"]);
      if (received.length < headEnd + 4 + length) return;
      answer = {
        statusLine: statusLine!,
        status: Number(statusLine!.split(" ")[1]),
        headers,
        body: received.subarray(headEnd + 4, headEnd + 4 + length).toString("utf8"),
      };
    });
    socket.on("close", () => {
      clearTimeout(timer);
      if (answer) resolve({ ...answer, closed: true });
      else
        reject(
          new Error(
            `closed without a complete answer; got ${JSON.stringify(received.toString("latin1").slice(0, 300))}`,
          ),
        );
    });
    socket.on("error", () => undefined);
    socket.write(bytes, () => {
      if (endAfterSend) socket.end();
    });
  });

interface Framed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes in one write and reads every answer (Content-Length framed) until the server closes. */
const rawAnswers = (port: number, bytes: string): Promise<Framed[]> =>
  new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`not closed in 10 s; got ${JSON.stringify(received.toString("latin1").slice(0, 500))}`));
    }, 10_000);
    socket.on("data", (chunk) => (received = Buffer.concat([received, chunk])));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      const answers: Framed[] = [];
      let rest = received;
      while (rest.length) {
        const headEnd = rest.indexOf("\r\n\r\n");
        if (headEnd === -1) break;
        const [statusLine, ...lines] = rest.subarray(0, headEnd).toString("latin1").split("\r\n");
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
        );
        const length = Number(headers["content-length"] ?? 0);
        answers.push({
          status: Number(statusLine!.split(" ")[1]),
          headers,
          body: rest.subarray(headEnd + 4, headEnd + 4 + length).toString("utf8"),
        });
        rest = rest.subarray(headEnd + 4 + length);
      }
      resolve(answers);
    });
    socket.write(bytes);
  });

/** The Error shape, complete: JSON body `{code,message,status}`, its length declared, and the connection closed. */
/** `limited`: answered by the service, which counts the refusal against the client address's window (PRODUCT.md §3). */
const expectErrorAnswer = (answer: RawAnswer, status: number, code: string, limited = true): void => {
  expect({ status: answer.status, body: answer.body }).toMatchObject({ status });
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["code", "message", "status"]);
  expect(body).toMatchObject({ code, status });
  expect(String(body.message).length).toBeGreaterThan(0);
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.body));
  expect(answer.headers.connection).toBe("close");
  expect(answer.closed).toBe(true);
  if (!limited) {
    expect(answer.headers["x-ratelimit-limit"]).toBeUndefined();
    return;
  }
  // Refused before the caller is known: counted against the client address's free window.
  expect(answer.headers["x-ratelimit-limit"]).toBe(String(free.perMinute));
  expect(Number(answer.headers["x-ratelimit-remaining"])).toBeGreaterThanOrEqual(0);
  expect(Number(answer.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000 - 1);
};

const get = (target: string, extra = "") => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`;

describe("what Node's HTTP parser refuses, answered with the Error shape on a real socket", () => {
  let service: ServiceProcess;
  let port: number;
  beforeAll(async () => {
    service = await startServiceProcess({ PETSTORE_LOG_LEVEL: "debug" });
    port = Number(new URL(service.url).port);
  });
  afterAll(() => {
    service.child.kill("SIGKILL");
  });

  it.each([
    ["a lower-case method", "get /pets HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["an unknown method", "FROB /pets HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["a raw non-ASCII path", Buffer.from("GET /pets/é HTTP/1.1\r\nHost: x\r\n\r\n", "utf8")],
    ["a target that is neither a path nor a URL", "GET pets HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["a Content-Length that is not a number", "POST /pets HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"],
    [
      "two different Content-Lengths",
      "POST /pets HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    ],
    [
      "Content-Length with Transfer-Encoding",
      "POST /pets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ],
    [
      "a malformed chunk size",
      `POST /pets HTTP/1.1\r\nHost: x\r\nX-API-Key: ${ADMIN_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n`,
    ],
    ["a space in a header name", "GET /pets HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n"],
    ["bytes that are not HTTP", "\u0000\u0001\u0002\r\n\r\n"],
    ["no Host header in HTTP/1.1", "GET /healthz HTTP/1.1\r\n\r\n"],
    ["CONNECT", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"],
  ])("%s: 400 bad_request", async (_, bytes) => {
    expectErrorAnswer(await rawExchange(port, bytes), 400, "bad_request");
  });

  it("two Host headers: 400 bad_request, whatever their case or values (RFC 9112 §3.2)", async () => {
    const twice = "GET /pets HTTP/1.1\r\nHost: 127.0.0.1\r\nhost: 127.0.0.1\r\n\r\n";
    expectErrorAnswer(await rawExchange(port, twice), 400, "bad_request");
    const different = "GET /healthz HTTP/1.1\r\nHOST: a.example\r\nHost: b.example\r\n\r\n";
    expectErrorAnswer(await rawExchange(port, different), 400, "bad_request");
  });

  it("headers over 16 KiB: 431 headers_too_large", async () => {
    expectErrorAnswer(
      await rawExchange(port, get("/pets", `X-Padding: ${"a".repeat(20_000)}\r\n`)),
      431,
      "headers_too_large",
    );
    const many = Array.from({ length: 2_000 }, (_, i) => `X-${i}: 1\r\n`).join("");
    expectErrorAnswer(await rawExchange(port, get("/pets", many)), 431, "headers_too_large");
  });

  it("a target over 8 KiB: 414 uri_too_long, whether Node's parser or the guard sees it first", async () => {
    expectErrorAnswer(await rawExchange(port, get(`/pets?${"a".repeat(10_000)}`)), 414, "uri_too_long");
    expectErrorAnswer(await rawExchange(port, get(`/pets?${"a".repeat(20_000)}`)), 414, "uri_too_long");
  });

  it("each refusal counts against the client address's window, as a request without a key does", async () => {
    const sequence = async () => {
      const refusals = [
        await rawExchange(port, get(`/pets?${"a".repeat(10_000)}`)),
        await rawExchange(port, "get /pets HTTP/1.1\r\nHost: x\r\n\r\n"),
        await rawExchange(port, get("/pets", `X-Padding: ${"a".repeat(20_000)}\r\n`)),
      ];
      const keyless = await fetch(`${service.url}/pets`);
      expect([...refusals.map((a) => a.status), keyless.status]).toEqual([414, 400, 431, 401]);
      const windows = [...refusals.map((a) => a.headers), Object.fromEntries(keyless.headers)];
      return windows.map((h) => ({ remaining: Number(h["x-ratelimit-remaining"]), reset: h["x-ratelimit-reset"] }));
    };
    // The minute window may turn between two of them: then the sequence runs again, within the next minute.
    let seen = await sequence();
    if (new Set(seen.map((w) => w.reset)).size > 1) seen = await sequence();
    const first = seen[0]!.remaining;
    expect(seen.map((w) => w.remaining)).toEqual([first, first - 1, first - 2, first - 3]);
  });

  it("a target of exactly 8 KiB still reaches the service", async () => {
    const target = `/healthz?${"a".repeat(8 * 1024 - "/healthz?".length)}`;
    const answer = await rawExchange(port, get(target, "Connection: close\r\n"));
    expect(answer.status).not.toBe(414);
    expect(answer.status).toBeLessThan(500);
  });

  it("chunk extensions over Node's limit: 413 payload_too_large", async () => {
    const head = `POST /categories HTTP/1.1\r\nHost: x\r\nX-API-Key: ${ADMIN_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    expectErrorAnswer(
      await rawExchange(port, `${head}2;ext=${"a".repeat(20_000)}\r\n{}\r\n0\r\n\r\n`),
      413,
      "payload_too_large",
    );
  });

  it("a body declared over 64 KiB: 413, and the connection closes instead of waiting for a gigabyte", async () => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.write(
      `POST /categories HTTP/1.1\r\nHost: x\r\nX-API-Key: ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{`,
    );
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    const closed = once(socket, "close").then(() => true);
    const timedOut = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000).unref());
    const didClose = await Promise.race([closed, timedOut]);
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).toContain('"code":"payload_too_large"');
    expect(didClose).toBe(true);
  });

  it("an Expect other than 100-continue: 417 expectation_failed", async () => {
    const answer = await rawExchange(
      port,
      "POST /pets HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: teapot\r\n\r\n{}",
    );
    expectErrorAnswer(answer, 417, "expectation_failed");
  });

  it("a request cut short by the client's half-close is answered, not dropped", async () => {
    const head = `POST /categories HTTP/1.1\r\nHost: x\r\nX-API-Key: ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const answer = await rawExchange(port, `${head}{"name":`, { endAfterSend: true });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 400 });
  });

  it("reads a body that arrives after the request was handed over (Expect: 100-continue, then two pieces)", async () => {
    const socket = connect({ host: "127.0.0.1", port });
    let received = "";
    const continued = new Promise<void>((resolve) =>
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("latin1");
        if (received.includes("100 Continue")) resolve();
      }),
    );
    const closed = once(socket, "close");
    const body = '{"name":"Late birds"}';
    socket.write(
      `POST /categories HTTP/1.1\r\nHost: x\r\nX-API-Key: ${ADMIN_KEY}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    // Node hands the request to the service before it says 100 Continue: the body is not there yet.
    await continued;
    socket.write(body.slice(0, 9));
    await new Promise((resolve) => setImmediate(resolve));
    socket.write(body.slice(9));
    await closed;
    const answer = received.slice(received.indexOf("\r\n\r\n") + 4);
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({ name: "Late birds" });
  });

  it("a chunked body over 64 KiB sent at once: 413 payload_too_large", async () => {
    const head = `POST /categories HTTP/1.1\r\nHost: x\r\nX-API-Key: ${ADMIN_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const body = JSON.stringify({ name: "x".repeat(70_000) });
    const answer = await rawExchange(port, `${head}${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: "payload_too_large", status: 413 });
    expect(answer.closed).toBe(true);
  });

  it("logs an aborted upload at debug, without a stack, and never at error level", async () => {
    // The logger writes lines within its delay: once a request of ours is logged, every line before it is too.
    const barrier = `barrier-${Date.now()}`;
    await fetch(`${service.url}/healthz`, { headers: { "x-request-id": barrier } });
    await expect.poll(() => service.output.some((l) => l.includes(barrier))).toBe(true);
    const before = service.output.length;
    for (let i = 0; i < 3; i++) {
      const socket = connect({ host: "127.0.0.1", port });
      await once(socket, "connect");
      socket.write(
        `POST /categories HTTP/1.1\r\nHost: x\r\nX-API-Key: ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"name":`,
      );
      await new Promise((r) => setTimeout(r, 150));
      socket.destroy();
    }
    // The access-log line of the third upload is the last one written for it.
    const uploads = () =>
      service.output
        .slice(before)
        .filter((l) => l.includes('"message":"request"') && l.includes('"path":"/categories"'));
    await expect.poll(() => uploads().length, { timeout: 5_000 }).toBe(3);
    const lines = service.output.slice(before).map((l) => JSON.parse(l) as { level: string; message: string });
    expect(lines.filter((l) => l.level === "error" || l.level === "warn")).toEqual([]);
    expect(lines.filter((l) => l.message === "request aborted by the client")).toHaveLength(3);
    expect(service.output.slice(before).join("\n")).not.toMatch(/stack|\n\s+at /);
    // And the service still answers.
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  });

  it("answers ordinary requests on the same server as before", async () => {
    const answer = await rawExchange(port, get("/pets", `X-API-Key: ${ADMIN_KEY}\r\nConnection: close\r\n`));
    expect(answer.status).toBe(200);
    expect(answer.headers["x-request-id"]).toBeDefined();
  });

  it("answers HEAD with the GET's headers and Content-Length but no body, and the connection goes on", async () => {
    // Two requests in one write on one connection: the second answer must start right where the first one's head
    // ends, so a body sent after HEAD's head would show as garbage before it.
    const socket = connect({ host: "127.0.0.1", port });
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    const closed = once(socket, "close");
    socket.write(
      `HEAD /pets?ids=1 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${ADMIN_KEY}\r\n\r\n` +
        get("/pets?ids=1", `X-API-Key: ${ADMIN_KEY}\r\nConnection: close\r\n`),
    );
    await closed;
    const headEnd = received.indexOf("\r\n\r\n");
    const head = received.slice(0, headEnd);
    const rest = received.slice(headEnd + 4);
    expect(head.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    expect(rest.startsWith("HTTP/1.1 200 OK\r\n")).toBe(true);
    const getHeadEnd = rest.indexOf("\r\n\r\n");
    const body = rest.slice(getHeadEnd + 4);
    const lengthOf = (text: string) => Number(/\r\ncontent-length: (\d+)\r\n/i.exec(`${text}\r\n`)?.[1]);
    expect(lengthOf(head)).toBe(Buffer.byteLength(body));
    expect(JSON.parse(body)).toEqual([expect.objectContaining({ id: 1 })]);
    for (const name of ["x-request-id", "x-ratelimit-remaining", "ratelimit-policy", "content-type"])
      expect(head.toLowerCase()).toContain(`\r\n${name}: `);
  });

  it.each([
    [get("/healthz", "Connection: close\r\n"), "HTTP/1.1 200 OK"],
    [get("/pets", "Connection: close\r\n"), "HTTP/1.1 401 Unauthorized"],
    [get("/nowhere", "Connection: close\r\n"), "HTTP/1.1 404 Not Found"],
    [
      `POST /pets HTTP/1.1\r\nHost: x\r\nX-API-Key: ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      "HTTP/1.1 400 Bad Request",
    ],
  ])("says the standard reason phrase in the status line: %#", async (request, statusLine) => {
    expect((await rawExchange(port, request)).statusLine).toBe(statusLine);
  });
});

describe("pipelined requests before one the parser refuses", () => {
  it("every complete request before the malformed one is answered, in order, before its 400 (an order placed is never unanswered)", async () => {
    const service = await startServiceProcess();
    try {
      const { port } = new URL(service.url);
      const admin = { "x-api-key": ADMIN_KEY, "content-type": "application/json" };
      const post = async (path: string, body: unknown, method = "POST") =>
        (await (
          await fetch(`${service.url}${path}`, { method, headers: admin, body: JSON.stringify(body) })
        ).json()) as Record<string, unknown>;
      const category = await post("/categories", { name: "Pipelined" });
      const pet = await post("/pets", { name: "Rex", categoryId: category.id });
      await post(`/store/inventory/${pet.id}`, { quantity: 5 }, "PUT");
      const customer = (await post("/admin/api-keys", { label: "pipelined", role: "customer", plan: "business" }))
        .key as string;

      const order = JSON.stringify({ petId: pet.id, quantity: 2 });
      const placing = `POST /store/orders HTTP/1.1\r\nHost: x\r\nX-API-Key: ${customer}\r\nContent-Type: application/json\r\nContent-Length: ${order.length}\r\n\r\n${order}`;
      const reading = `GET /store/inventory/${pet.id} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${customer}\r\n\r\n`;
      const answers = await rawAnswers(Number(port), `${placing}${reading}GET /pets HTTP/1.1\r\nBad Header: 1\r\n\r\n`);

      expect(answers.map((a) => a.status)).toEqual([201, 200, 400]);
      expect(JSON.parse(answers[0]!.body)).toMatchObject({ petId: pet.id, quantity: 2 });
      // Node runs pipelined requests side by side (answers go out in order): the read may see the stock before or after.
      expect(JSON.parse(answers[1]!.body)).toMatchObject({ petId: pet.id });
      expect(JSON.parse(answers[2]!.body)).toMatchObject({ code: "bad_request", status: 400 });
      expect(answers[2]!.headers.connection).toBe("close");
      const stock = await fetch(`${service.url}/store/inventory/${pet.id}`, { headers: admin });
      expect(await stock.json()).toMatchObject({ quantity: 3 });
    } finally {
      service.child.kill("SIGKILL");
    }
  });

  it("holds the refusal until a slow answer before it is written (guarded server, answer released only after the refusal)", async () => {
    const server = createHttpServer();
    let refused!: () => void;
    const refusal = new Promise<void>((resolve) => (refused = resolve));
    guardNodeServer(
      server,
      (_req, res) => void refusal.then(() => res.writeHead(200, { "content-length": "4" }).end("slow")),
      { debug: (message) => message === "request refused by the HTTP parser" && refused() },
    );
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as { port: number };
      const answers = await rawAnswers(port, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nget /b HTTP/1.1\r\nHost: x\r\n\r\n");
      expect(answers.map((a) => [a.status, a.body.slice(0, 4)])).toEqual([
        [200, "slow"],
        [400, '{"co'],
      ]);
    } finally {
      server.close();
    }
  });
});

describe("a request that does not arrive in time", () => {
  it("is answered 408 request_timeout with the Error shape, then closed", async () => {
    // Node's own time-outs, made short: headers within 300 ms, checked every 50 ms.
    const server = createHttpServer({ headersTimeout: 300, requestTimeout: 300, connectionsCheckingInterval: 50 });
    const debug: string[] = [];
    guardNodeServer(server, (_req, res) => res.end("unexpected"), { debug: (message) => debug.push(message) });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as { port: number };
      const answer = await rawExchange(port, "GET /pets HTTP/1.1\r\nHost: x\r\nX-Slow: ");
      expectErrorAnswer(answer, 408, "request_timeout", false);
      expect(debug).toContain("request refused by the HTTP parser");
    } finally {
      server.close();
    }
  });
});

describe("the connection time-outs are settings", () => {
  it("PETSTORE_HEADERS_TIMEOUT_SECONDS: headers that never end are answered 408 and closed after it, not after Node's minute", async () => {
    const service = await startServiceProcess({
      PETSTORE_HEADERS_TIMEOUT_SECONDS: "1",
      PETSTORE_REQUEST_TIMEOUT_SECONDS: "2",
    });
    try {
      const { port } = new URL(service.url);
      // rawExchange gives up after 5 s: Node's default (60 s) would leave this unanswered.
      expectErrorAnswer(
        await rawExchange(Number(port), "GET /pets HTTP/1.1\r\nHost: x\r\nX-Slow: "),
        408,
        "request_timeout",
      );
    } finally {
      service.child.kill("SIGKILL");
    }
  });
});

describe("start-up on a port already in use", () => {
  it("prints one line naming the port and exits 1", async () => {
    const occupier = createServer();
    occupier.listen(0, "127.0.0.1");
    await once(occupier, "listening");
    const { port } = occupier.address() as { port: number };
    try {
      const run = spawnSync(process.execPath, ["bootstrap/main.ts"], {
        env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", PETSTORE_ADMIN_KEY: ADMIN_KEY },
        encoding: "utf8",
        timeout: 15_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(`Cannot start: port ${port} on 127.0.0.1 is already in use (set PORT to another port)\n`);
      expect(run.stdout).not.toMatch(/"level":"error"|\n\s+at /);
    } finally {
      occupier.close();
    }
  });
});
