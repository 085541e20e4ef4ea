import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { reasonPhrases } from "./openapi/error-examples.ts";
import { statusOfCode, type ErrorBody, type ErrorCode } from "./problem.ts";

/** Longer request targets are answered 414 (Node's parser counts them against its 16 KiB header limit too). */
export const MAX_URL_BYTES = 8 * 1024;

export interface EdgeLog {
  debug(message: string, fields?: Record<string, unknown>): void;
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Counts a refusal against the client address's window (the `free` plan) and answers that window's rate-limit
 * headers (PRODUCT.md §3). `forwardedFor`: the request's X-Forwarded-For, when its headers were parsed.
 */
export type RefusalLimits = (
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
) => Promise<Record<string, string>>;

const bodyOf = (code: ErrorCode, message: string): string =>
  JSON.stringify({ code, message, status: statusOfCode[code] } satisfies ErrorBody);

const headersOf = (body: string): Record<string, string> => ({
  "content-type": "application/json; charset=utf-8",
  "content-length": String(Buffer.byteLength(body)),
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
});

/** What Node's parser (llhttp) refused, as a code of ours and a message a client can act on. */
const parserRefusal = (error: NodeJS.ErrnoException & { rawPacket?: Buffer }): { code: ErrorCode; message: string } => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      // The request line counts against the header limit: a target that alone is too long is the URL's fault.
      return longRequestLine(error.rawPacket)
        ? { code: "uri_too_long", message: `The request target is longer than ${MAX_URL_BYTES} bytes` }
        : { code: "headers_too_large", message: "The request headers are larger than 16 KiB" };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { code: "payload_too_large", message: "The chunk extensions of the body are too large" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { code: "request_timeout", message: "The request was not received in time" };
    case "HPE_INVALID_METHOD":
      return { code: "bad_request", message: "Unknown request method (methods are case-sensitive: GET, not get)" };
    case "HPE_INVALID_URL":
      return {
        code: "bad_request",
        message: "The request target is not a valid URL (percent-encode anything but printable ASCII)",
      };
    case "HPE_INVALID_CONTENT_LENGTH":
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
      return {
        code: "bad_request",
        message: "Content-Length must be one decimal number, and not be sent with Transfer-Encoding",
      };
    case "HPE_INVALID_TRANSFER_ENCODING":
      return { code: "bad_request", message: "Transfer-Encoding must end with chunked" };
    case "HPE_INVALID_CHUNK_SIZE":
    case "HPE_STRICT":
      return { code: "bad_request", message: "The chunked body is malformed" };
    case "HPE_INVALID_EOF_STATE":
      return { code: "bad_request", message: "The connection ended before the request was complete" };
    case "HPE_INVALID_HEADER_TOKEN":
    case "HPE_LF_EXPECTED":
    case "HPE_CR_EXPECTED":
      return {
        code: "bad_request",
        message: "A header line is malformed (names are tokens; no spaces before the colon)",
      };
    case "HPE_INVALID_VERSION":
      return { code: "bad_request", message: "Unsupported HTTP version: use HTTP/1.1" };
    default:
      return { code: "bad_request", message: "The request is not valid HTTP/1.1" };
  }
};

const longRequestLine = (raw: Buffer | undefined): boolean => {
  if (!raw) return false;
  const end = raw.indexOf("\n");
  const line = raw.subarray(0, end === -1 ? raw.length : end).toString("latin1");
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ /.test(line) && line.length > MAX_URL_BYTES;
};

/**
 * Answers on a socket whose request never became one (the parser refused it): a complete response, then close.
 * What the client still sends is read and dropped, so closing does not reset the connection under the answer.
 */
const answerOnSocket = (socket: Duplex, code: ErrorCode, message: string, limits: Record<string, string>): void => {
  const body = bodyOf(code, message);
  const status = statusOfCode[code];
  const head = Object.entries({ ...headersOf(body), ...limits, connection: "close" })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.resume();
  socket.end(`HTTP/1.1 ${status} ${reasonPhrases[status] ?? ""}\r\n${head}\r\n${body}`);
  const timer = setTimeout(() => socket.destroy(), 2_000).unref();
  socket.once("close", () => clearTimeout(timer));
};

/**
 * Per connection: responses not yet written, the latest request while it is unanswered, and the parser's refusal
 * waiting for the answers before it (`after`: how many unanswered responses may remain when it goes out).
 */
const unanswered = Symbol("unanswered requests");
const latest = Symbol("latest request");
const heldRefusal = Symbol("held refusal");
const refusing = Symbol("refusal under way");
interface HeldRefusal {
  code: ErrorCode;
  message: string;
  after: number;
  limits: Promise<Record<string, string>>;
}
type TrackedSocket = Duplex & {
  [unanswered]?: number;
  [latest]?: IncomingMessage | undefined;
  [heldRefusal]?: HeldRefusal | undefined;
  [refusing]?: true;
};

/** A response is done (written, or its connection gone): the refusal behind it goes out once the ones before are. */
function responseSettled(this: ServerResponse): void {
  const socket = this.req.socket as TrackedSocket;
  const left = (socket[unanswered] ?? 1) - 1;
  socket[unanswered] = left;
  if (socket[latest] === this.req) socket[latest] = undefined;
  const refusal = socket[heldRefusal];
  if (!refusal || left > refusal.after) return;
  socket[heldRefusal] = undefined;
  socket[refusing] = true;
  void refusal.limits.then((limits) => {
    if (socket.writable) answerOnSocket(socket, refusal.code, refusal.message, limits);
    else socket.destroy();
  });
}

const answer = (res: ServerResponse, code: ErrorCode, message: string, limits: Record<string, string>): void => {
  if (res.headersSent || res.destroyed) return;
  const body = bodyOf(code, message);
  res.writeHead(statusOfCode[code], { ...headersOf(body), ...limits, connection: "close" });
  res.end(body);
};

const hostHeaders = (raw: string[]): number => {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") count++;
  return count;
};

const isAbsoluteHttpUrl = (target: string): boolean => /^https?:\/\//i.test(target) && URL.canParse(target);

/**
 * Makes the Node server answer the Error shape (`{code,message,status}`) where Node or srvx would answer an empty
 * 400/417/431, reset the connection or stay silent: parser errors (400, 408, 413, 414, 431), targets that are
 * neither a path nor an absolute URL, a missing or repeated Host, CONNECT, an Expect other than 100-continue. The service's own
 * listener (`handler`) gets every other request. Aborted requests are logged at debug: they are the client's doing.
 */
export const guardNodeServer = (
  server: Server,
  handler: RequestListener,
  log: EdgeLog,
  limits?: RefusalLimits,
): void => {
  // Without a limiter (tests of the guard alone) nothing is counted and no header added.
  const limitsOf = (socket: Duplex, forwardedFor?: string | string[]): Promise<Record<string, string>> =>
    limits
      ? limits(
          (socket as Duplex & { remoteAddress?: string }).remoteAddress,
          [forwardedFor].flat().join(", ") || undefined,
        ).catch(() => ({}))
      : Promise.resolve({});
  const refuse = (req: IncomingMessage, res: ServerResponse, code: ErrorCode, message: string): void => {
    void limitsOf(req.socket, req.headers["x-forwarded-for"]).then((found) => answer(res, code, message, found));
  };
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    // A refused request already being answered (a 413 sent while its body still came) cannot get a second answer.
    if (error.code === "ECONNRESET" || !socket.writable || (inFlight?.headersSent && !inFlight.req.complete)) {
      log.debug("connection dropped", { reason: error.code ?? error.message });
      socket.destroy();
      return;
    }
    const tracked = socket as TrackedSocket;
    // The parser reports again on every later packet: the first refusal is the one that is answered.
    if (tracked[heldRefusal] || tracked[refusing]) return;
    const { code, message } = parserRefusal(error);
    log.debug("request refused by the HTTP parser", {
      reason: error.code ?? error.message,
      status: statusOfCode[code],
    });
    // Complete requests before the malformed one (pipelined in the same packet) ran or are running: their answers go
    // first, then the refusal, so an order placed is never left unanswered. A request whose body the parser refused
    // is the malformed one: it is not waited for (its body never completes).
    const broken = tracked[latest] !== undefined && !tracked[latest].complete ? 1 : 0;
    const counted = limitsOf(socket);
    if ((tracked[unanswered] ?? 0) > broken) {
      tracked[heldRefusal] = { code, message, after: broken, limits: counted };
      socket.pause();
      return;
    }
    tracked[refusing] = true;
    void counted.then((found) => {
      if (socket.writable) answerOnSocket(socket, code, message, found);
      else socket.destroy();
    });
  });

  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    void limitsOf(socket, req.headers["x-forwarded-for"]).then((found) =>
      answerOnSocket(socket, "bad_request", "CONNECT is not supported: this server is not a proxy", found),
    );
  });

  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    refuse(
      req,
      res,
      "expectation_failed",
      `Only Expect: 100-continue is supported (got ${JSON.stringify(req.headers.expect)})`,
    );
  });

  // Node would answer a missing Host with an empty 400 before any listener runs: the guard below answers instead.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  // An HTTP/1.1 client aborts a request by closing its connection: one listener per connection, not one per request,
  // looks at the response node has in flight on it when it closes (node's `_httpMessage`, null between responses).
  // Nothing per request: holding each connection's latest response until the next one (a WeakMap did) kept every
  // finished response alive through a young-generation GC or two, which the many-addresses load showed in RSS
  // (docs/performance.md).
  server.on("connection", (socket: Duplex) => {
    socket.once("close", () => {
      const res = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (res && !res.req.complete && !res.writableFinished) {
        log.debug("request aborted by the client", {
          method: res.req.method,
          path: res.req.url?.split("?")[0]?.slice(0, 200),
        });
      }
    });
  });
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as TrackedSocket;
    socket[unanswered] = (socket[unanswered] ?? 0) + 1;
    socket[latest] = req;
    // 'close' follows 'finish', and also comes when the connection goes first: every response settles once.
    res.once("close", responseSettled);
    const target = req.url ?? "";
    // No JavaScript character takes more than 3 bytes of UTF-8: a short target needs no count.
    if (target.length * 3 > MAX_URL_BYTES && Buffer.byteLength(target) > MAX_URL_BYTES) {
      return refuse(req, res, "uri_too_long", `The request target is longer than ${MAX_URL_BYTES} bytes`);
    }
    if (!target.startsWith("/") && target !== "*" && !isAbsoluteHttpUrl(target)) {
      return refuse(req, res, "bad_request", "The request target must be a path (/pets) or an absolute http(s) URL");
    }
    if (req.httpVersion === "1.1" && req.headers.host === undefined) {
      return refuse(req, res, "bad_request", "An HTTP/1.1 request must carry a Host header");
    }
    // Node keeps the first of several Host headers; RFC 9112 §3.2 has such a request refused (hosts could disagree).
    if (hostHeaders(req.rawHeaders) > 1) {
      return refuse(req, res, "bad_request", "A request must carry exactly one Host header");
    }
    handler(req, res);
  });
};
