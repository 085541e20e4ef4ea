/** Structured JSON lines on stdout; the one logging seam of the service. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

/** Fields that may hold a secret are never written, wherever they sit (a safety net: nothing should pass one). */
const secretField = /^(x-api-key|api-?key|key|secret|authorization|password|token)$/i;
/** The value with every secret field replaced; a value without one is returned as it is (no copy). */
const redacted = (value: unknown, depth = 0): unknown => {
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const items = value.map((v) => redacted(v, depth + 1));
    return items.some((v, i) => v !== value[i]) ? items : value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    const safe = secretField.test(k) ? "[redacted]" : redacted(v, depth + 1);
    if (safe !== v) (copy ??= { ...value })[k] = safe;
  }
  return copy ?? value;
};

/** Where lines go: written in batches by the caller's choice of `flush`. */
export interface LineSink {
  write(line: string): void;
  /** Writes every pending line now. */
  flush(): void;
}

/**
 * Lines gathered during one turn of the event loop and written in one call at its end (or once 64 KiB are waiting),
 * instead of one write per line. Nothing is lost on a clean stop: pending lines are written on `flush()` and when the
 * process exits (process.exit included), as stdout writes to files and pipes are synchronous.
 */
export const batchedLines = (out: { write(chunk: string): unknown } = process.stdout, onExit: (flush: () => void) => void = (f) => process.once("exit", f)): LineSink => {
  let pending = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === "") return;
    const chunk = pending;
    pending = "";
    out.write(chunk);
  };
  onExit(flush);
  return {
    write(line) {
      pending += `${line}\n`;
      if (pending.length >= 65_536) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
};

let stdoutLines: LineSink | undefined;
/** The process's one batched stdout. */
export const stdoutSink = (): LineSink => (stdoutLines ??= batchedLines());

export const createLogger = (level: keyof typeof levels, write: (line: string) => void = (l) => stdoutSink().write(l)): Logger => {
  const at = (name: "debug" | "info" | "warn" | "error") => (message: string, fields: Record<string, unknown> = {}) => {
    if (levels[name] < levels[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: name, message, ...(redacted(fields) as object) }));
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
};

export const errorFields = (error: unknown): Record<string, unknown> =>
  error instanceof Error ? { error: { name: error.name, message: error.message, stack: error.stack } } : { error: String(error) };
