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
  body: string | Uint8Array<ArrayBuffer> | null;
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
    headers: { "content-type": "application/json; charset=utf-8", ...headers, "content-length": String(Buffer.byteLength(text)) },
    body: text,
  };
};

/** 204 and 304 carry no body and therefore no Content-Length. */
export const emptyResponse = (status: 204 | 304, headers: Record<string, string> = {}): Answer => ({ status, headers: { ...headers }, body: null });

/** Bytes (an asset in some encoding), with their Content-Length. */
export const bytesResponse = (bytes: Uint8Array<ArrayBuffer>, headers: Record<string, string>): Answer => ({
  status: 200,
  headers: { ...headers, "content-length": String(bytes.byteLength) },
  body: bytes,
});

/** What tells h3 (and srvx under it) that the response was written already: nothing is left for them to send. */
const handled = Symbol.for("h3.handled");

/**
 * Sends the answer, once, from the request context. On node:http (how the service runs) it is written straight to
 * node's response: the plain header record goes to `writeHead` as it is (names already lower case, Content-Length
 * already set), the body to `end`, and node sends both in one write; for HEAD node drops the body and keeps the
 * Content-Length. Elsewhere (`app.fetch` in tests, another runtime) it becomes srvx's FastResponse. Either way the
 * status line says the standard reason phrase (`200 OK`): srvx would otherwise send none.
 */
export const sendAnswer = (answer: Answer, event: H3Event): Response | symbol => {
  const res = event.req.runtime?.node?.res;
  if (res instanceof ServerResponse && !res.headersSent) {
    res.writeHead(answer.status, STATUS_CODES[answer.status], answer.headers);
    res.end(answer.body ?? undefined);
    return handled;
  }
  return new FastResponse(answer.body, { status: answer.status, statusText: STATUS_CODES[answer.status], headers: answer.headers });
};
