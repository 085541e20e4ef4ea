import { HTTPResponse } from "h3";

/** What every handler of the app answers: h3's plain response, written by the server without a web stream. */
export type Answer = HTTPResponse;

/** A buffered response: the text is sent at once, with its Content-Length (no chunked encoding). */
export const textResponse = (text: string, status: number, headers: Record<string, string>): Answer =>
  new HTTPResponse(text, { status, headers: { ...headers, "content-length": String(Buffer.byteLength(text)) } });

/** JSON, serialised once, here. */
export const jsonResponse = (body: unknown, status = 200, headers: Record<string, string> = {}): Answer =>
  textResponse(JSON.stringify(body), status, { "content-type": "application/json; charset=utf-8", ...headers });

/** 204 and 304 carry no body and therefore no Content-Length. */
export const emptyResponse = (status: 204 | 304, headers: Record<string, string> = {}): Answer => new HTTPResponse(null, { status, headers });
