import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Logger } from "./logger.ts";

export interface GracefulStopOptions {
  server: Server;
  /** /readyz at 503 from now on. */
  beginDrain(): void;
  /** Everything behind the server: workers, then the store. */
  closeRest(): Promise<void>;
  drainSeconds: number;
  deadlineSeconds: number;
  logger: Logger;
}

const closeAfterAnswer = (_req: IncomingMessage, res: ServerResponse): void => {
  res.shouldKeepAlive = false;
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * After SIGTERM: /readyz 503 at once (load balancers stop sending), serve on for `drainSeconds` (every answer with
 * `Connection: close`), then stop
 * accepting connections and let the requests in flight finish within `deadlineSeconds`; connections still busy
 * then are cut. Then the rest is closed. The exit code: 0, or 1 when work was cut short or closing failed.
 */
export const stopGracefully = async (o: GracefulStopOptions): Promise<0 | 1> => {
  o.beginDrain();
  // Every answer from now on says Connection: close (Node then closes after it): a keep-alive client opens a new
  // connection for its next request, while the listener is still open, instead of reusing one that is about to close.
  o.server.prependListener("request", closeAfterAnswer);
  if (o.drainSeconds > 0) {
    o.logger.info("draining", { seconds: o.drainSeconds });
    await sleep(o.drainSeconds * 1000);
  }
  const closed = new Promise<void>((resolve) => o.server.close(() => resolve()));
  // Keep-alive connections that go idle after their last response are closed as they do.
  const idle = setInterval(() => o.server.closeIdleConnections(), 100);
  o.server.closeIdleConnections();
  let deadline: NodeJS.Timeout | undefined;
  const cutShort = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((resolve) => (deadline = setTimeout(() => resolve(true), o.deadlineSeconds * 1000))),
  ]);
  clearTimeout(deadline);
  clearInterval(idle);
  let code: 0 | 1 = 0;
  if (cutShort) {
    o.logger.error("shutdown deadline passed: cutting the connections still busy", {
      deadlineSeconds: o.deadlineSeconds,
    });
    o.server.closeAllConnections();
    code = 1;
  }
  try {
    await o.closeRest();
  } catch (error) {
    o.logger.error("unclean stop", { error: error instanceof Error ? error.message : String(error) });
    code = 1;
  }
  return code;
};
