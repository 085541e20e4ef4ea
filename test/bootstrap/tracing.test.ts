import { describe, expect, it } from "vitest";
import type { Logger } from "../../bootstrap/logger.ts";
import { exportFailureLog } from "../../bootstrap/tracing.ts";

const recording = () => {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => lines.push({ message, fields }),
    error: (message, fields) => lines.push({ message, fields }),
  };
  return { logger, lines };
};

describe("trace export failures in the log", () => {
  it("writes the first at once, then at most one line per interval counting the quiet ones, the rest at stop", () => {
    const { logger, lines } = recording();
    let now = 1_000_000;
    const log = exportFailureLog(logger, () => now, 60_000);
    log.failed(new Error("connect ECONNREFUSED 127.0.0.1:4318"), 10);
    expect(lines).toEqual([
      {
        message: "trace export failed",
        fields: { error: "connect ECONNREFUSED 127.0.0.1:4318", failedExports: 1, spansLost: 10 },
      },
    ]);
    for (let i = 0; i < 100; i += 1) {
      now += 500;
      log.failed(new Error("timeout"), 5);
    }
    expect(lines).toHaveLength(1);
    now += 10_000; // 60 s since the first line
    log.failed(new Error("timeout"), 5);
    expect(lines[1]).toEqual({
      message: "trace export failed",
      fields: { error: "timeout", failedExports: 101, spansLost: 505 },
    });
    log.failed("refused", 1);
    log.flush();
    expect(lines[2]?.fields).toEqual({ error: "refused", failedExports: 1, spansLost: 1 });
    log.flush();
    expect(lines).toHaveLength(3);
  });
});
