import { STATUS_CODES, ServerResponse } from "node:http";
import type { H3Event } from "h3";
import { FastResponse } from "srvx";

/**
 * What every part of the pipeline answers: a status, headers as a plain record of lower-case names (each answer owns
 * its record, so later stages add to it in place), and a buffered body. It becomes the server's response once, in
 * the request context (`sendAnswer`), without a web `Headers` object or a web stream on the way.
 */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** A stream is written as it comes (server-sent events), without Content-Length. */
  body: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>> | null;
}

/** A buffered response: the text is sent at once, with its Content-Length (no chunked encoding). */
export const textResponse = (text: string, status: number, headers: Record<string, string>): Answer => ({
  status,
  headers: { ...headers, "content-length": String(Buffer.byteLength(text)) },
  body: text,
});

/** JSON, serialised once, here (its headers made in one step: this is on every answer). */
export const jsonResponse = (body: unknown, status = 200, headers?: Record<string, string>): Answer => {
  const text = JSON.stringify(body);
  return {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      ...headers,
      "content-length": String(Buffer.byteLength(text)),
    },
    body: text,
  };
};

/** 204 and 304 carry no body and therefore no Content-Length. */
export const emptyResponse = (status: 204 | 304, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { ...headers },
  body: null,
});

/** Bytes (an asset in some encoding), with their Content-Length. */
export const bytesResponse = (bytes: Uint8Array<ArrayBuffer>, headers: Record<string, string>): Answer => ({
  status: 200,
  headers: { ...headers, "content-length": String(bytes.byteLength) },
  body: bytes,
});

/** Whichever comes first; the other listener goes too, so a long stream to a slow reader does not collect them. */
const drainedOrClosed = (res: ServerResponse): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      res.off("drain", done).off("close", done);
      resolve();
    };
    res.once("drain", done).once("close", done);
  });

/**
 * Writes a streamed answer at once (not queued: it has no end to wait for), each chunk as it comes, waiting for
 * the socket to drain; a client that goes away cancels the stream.
 */
const streamTo = async (
  res: ServerResponse,
  answer: Answer,
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
): Promise<symbol> => {
  res.writeHead(answer.status, STATUS_CODES[answer.status], answer.headers);
  res.flushHeaders();
  const reader = body.getReader();
  res.once("close", () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drainedOrClosed(res);
    }
    res.end();
  } catch {
    res.destroy();
  }
  return handled;
};

/** What tells h3 (and srvx under it) that the response was written already: nothing is left for them to send. */
const handled = Symbol.for("h3.handled");

/** An answer waiting for the end of the event loop's turn, and who waits for it to go out. */
interface Queued {
  res: ServerResponse;
  answer: Answer;
  sent: (value: symbol) => void;
  failed: (error: unknown) => void;
}
const queued: Queued[] = [];

/**
 * Writes every answer queued in this turn of the event loop, in the order they were queued (setImmediate: after
 * node has read and handled every request that was ready, so the responses go out back to back).
 */
const writeQueued = () => {
  for (const { res, answer, sent, failed } of queued.splice(0)) {
    try {
      if (!res.headersSent) {
        res.writeHead(answer.status, STATUS_CODES[answer.status], answer.headers);
        res.end(answer.body ?? undefined);
      }
      sent(handled);
    } catch (error) {
      failed(error);
    }
  }
};

/**
 * Sends the answer once. On node:http the responses of one event-loop turn go out together at the end of the turn,
 * which spares each write the idle client's wake-up; elsewhere it becomes srvx's FastResponse with a reason phrase.
 */
export const sendAnswer = (answer: Answer, event: H3Event): Response | Promise<symbol> => {
  const res = event.req.runtime?.node?.res;
  if (answer.body instanceof ReadableStream) {
    if (event.req.method === "HEAD") {
      void answer.body.cancel();
      return sendAnswer({ ...answer, body: null }, event);
    }
    if (res instanceof ServerResponse && !res.headersSent) return streamTo(res, answer, answer.body);
  }
  if (res instanceof ServerResponse && !res.headersSent) {
    const { promise, resolve, reject } = Promise.withResolvers<symbol>();
    if (queued.push({ res, answer, sent: resolve, failed: reject }) === 1) setImmediate(writeQueued);
    return promise;
  }
  return new FastResponse(answer.body, {
    status: answer.status,
    statusText: STATUS_CODES[answer.status],
    headers: answer.headers,
  });
};
