/**
 * sendAnswer on node:http: answers are written at the end of the event loop's turn, in the order they were given,
 * and the promise it returns settles once the answer went out (or failed to). A real node server, no h3: the
 * answers are handed over as the request context hands them.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { H3Event } from "h3";
import { afterEach, describe, expect, it } from "vitest";
import { jsonResponse, sendAnswer, type Answer } from "../../adapters/http/response.ts";

const eventOf = (res: ServerResponse) => ({ req: { runtime: { node: { res } } } }) as unknown as H3Event;
/** What sendAnswer gives, as a promise (a throw becomes a rejection). */
const send = (answer: Answer, res: ServerResponse): Promise<unknown> =>
  new Promise((settle) => settle(sendAnswer(answer, eventOf(res))));

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** A server whose responses are held until `count` requests have arrived, then answered by `answerAll`. */
const serveTogether = async (count: number, answerAll: (held: ServerResponse[]) => void): Promise<string> => {
  const held: ServerResponse[] = [];
  server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    if (held.push(res) === count) answerAll(held);
  });
  await new Promise<void>((listening) => server!.listen(0, "127.0.0.1", listening));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const get = (url: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .end();
  });

describe("sendAnswer on node:http", () => {
  it("writes nothing before the turn ends, then every answer of the turn, and settles once each is out", async () => {
    const order: string[] = [];
    const url = await serveTogether(3, (held) => {
      const sent = held.map((res, i) => {
        const pending = send(jsonResponse({ n: i }), res);
        order.push(`queued ${i}: sent=${res.headersSent}`);
        void pending.then((value) => order.push(`settled ${i}: sent=${res.headersSent} ${String(value)}`));
        return pending;
      });
      void Promise.all(sent);
    });
    const answers = await Promise.all([get(`${url}/a`), get(`${url}/b`), get(`${url}/c`)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => JSON.parse(a.body).n).sort()).toEqual([0, 1, 2]);
    expect(order).toEqual([
      "queued 0: sent=false",
      "queued 1: sent=false",
      "queued 2: sent=false",
      "settled 0: sent=true Symbol(h3.handled)",
      "settled 1: sent=true Symbol(h3.handled)",
      "settled 2: sent=true Symbol(h3.handled)",
    ]);
  });

  it("rejects the one answer node refuses to write and still writes the others of its turn", async () => {
    const outcomes: string[] = [];
    const url = await serveTogether(2, ([first, second]) => {
      const bad: Answer = { status: 200, headers: { "x-bad": "line\nbreak" }, body: "no" };
      void send(bad, first!).then(
        () => outcomes.push("bad sent"),
        (error: NodeJS.ErrnoException) => {
          outcomes.push(`bad refused: ${error.code}`);
          first!.writeHead(500).end("refused");
        },
      );
      void send(jsonResponse({ ok: true }, 201), second!).then(() => outcomes.push("good sent"));
    });
    const answers = await Promise.all([get(`${url}/a`), get(`${url}/b`)]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 500]);
    expect(outcomes).toEqual(["bad refused: ERR_INVALID_CHAR", "good sent"]);
  });
});

describe("a streamed answer on node:http", () => {
  it("waits for a slow reader without leaving a listener behind each time the socket was full", async () => {
    const chunk = new Uint8Array(256 * 1024);
    let full: () => void = () => {};
    const socketFull = new Promise<void>((resolve) => (full = resolve));
    let listenersBefore = -1;
    let listenersAfter = -1;
    let drains = 0;
    server = createServer((_req, res) => {
      listenersBefore = res.listenerCount("close");
      res.on("drain", () => drains++);
      let left = 128;
      const body = new ReadableStream<Uint8Array<ArrayBuffer>>({
        pull(controller) {
          if (res.writableNeedDrain) full();
          if (left-- > 0) controller.enqueue(chunk);
          else {
            // Never full (socket buffers above 32 MiB): the reader starts anyway, and `drains` says what happened.
            full();
            controller.close();
          }
        },
      });
      void send({ status: 200, headers: { "content-type": "application/octet-stream" }, body }, res).then(() => {
        listenersAfter = res.listenerCount("close");
      });
    });
    await new Promise<void>((listening) => server!.listen(0, "127.0.0.1", listening));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const received = await new Promise<number>((resolve, reject) => {
      request(url, { agent: false }, (res) => {
        // Nothing is read until the server found the socket full: the stream has to wait for it to drain.
        res.pause();
        let size = 0;
        res.on("data", (data: Buffer) => (size += data.byteLength));
        res.on("end", () => resolve(size));
        void socketFull.then(() => res.resume());
      })
        .on("error", reject)
        .end();
    });
    expect(received).toBe(128 * chunk.byteLength);
    expect(drains).toBeGreaterThan(0);
    // The stream's own cancel listener, and nothing per wait.
    expect(listenersAfter).toBe(listenersBefore + 1);
  });
});
