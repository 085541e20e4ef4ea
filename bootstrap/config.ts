import { z } from "zod";
import { noTrustedProxies, parseTrustedProxies, type TrustedProxies } from "../adapters/http/client-address.ts";
import { defaultGetPetDeprecation } from "../adapters/http/routes/pet.routes.ts";
import { defaultBanPolicy } from "../core/rate-limiting/ban-policy.ts";
import { tracingSettings, type TracingSettings } from "./tracing-settings.ts";

const DAY = /^\d{4}-\d{2}-\d{2}$/;

const flag = z
  .enum(["true", "false", "1", "0"], { error: "expected true or false" })
  .transform((v) => v === "true" || v === "1");
const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `expected a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, `expected a whole number from ${min} to ${max}`)
        .max(max, `expected a whole number from ${min} to ${max}`),
    );
/** A UTC date (2027-06-30) or an RFC 3339 date-time. */
const instant = z
  .string()
  .refine(
    (s) => (DAY.test(s) || z.iso.datetime({ offset: true }).safeParse(s).success) && !Number.isNaN(Date.parse(s)),
    {
      error: "expected a date (YYYY-MM-DD, UTC) or an RFC 3339 date-time",
    },
  )
  .transform((s) => new Date(DAY.test(s) ? `${s}T00:00:00Z` : s));

const environment = z.object({
  PORT: wholeNumber(0, 65_535).default(8080),
  HOST: z.string().min(1, "expected a host name or address").default("0.0.0.0"),
  PETSTORE_STORE: z.enum(["memory", "mongo"], { error: "expected memory or mongo" }).default("memory"),
  MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, "expected a mongodb:// or mongodb+srv:// URL")
    .optional(),
  MONGODB_DB: z
    .string()
    .regex(/^[^/\\. "$*<>:|?]{1,63}$/, "expected a MongoDB database name")
    .default("petstore"),
  PETSTORE_ADMIN_KEY: z.string().min(32, "expected at least 32 characters").optional(),
  PETSTORE_SEED_DEMO: flag.optional(),
  PETSTORE_BAN_STRIKES: wholeNumber(1, 1_000_000).default(defaultBanPolicy.strikes),
  PETSTORE_BAN_SECONDS: wholeNumber(1, 86_400).default(defaultBanPolicy.seconds),
  PETSTORE_GET_PET_DEPRECATED_AT: instant.default(defaultGetPetDeprecation.deprecatedAt),
  PETSTORE_GET_PET_SUNSET_AT: instant.default(defaultGetPetDeprecation.sunsetAt),
  PETSTORE_CORS_ORIGINS: z
    .string()
    .transform((s) =>
      s
        .split(",")
        .map((o) => o.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z.union([
          z.literal("*"),
          z.url({ protocol: /^https?$/, error: "expected * or a comma list of http(s) origins" }),
        ]),
      ),
    )
    .optional(),
  MONGODB_TIMEOUT_MS: wholeNumber(100, 600_000).default(2_000),
  PETSTORE_TRUST_PROXY: z
    .string()
    .transform((list, ctx) => {
      try {
        return parseTrustedProxies(list);
      } catch (error) {
        ctx.addIssue({
          code: "custom",
          message: `expected a comma list of addresses or CIDRs: ${(error as Error).message}`,
        });
        return z.NEVER;
      }
    })
    .optional(),
  PETSTORE_METRICS_PORT: wholeNumber(0, 65_535).optional(),
  PETSTORE_DRAIN_SECONDS: wholeNumber(0, 3_600).default(0),
  PETSTORE_SHUTDOWN_SECONDS: wholeNumber(0, 3_600).default(10),
  PETSTORE_WEBHOOK_ALLOW_PRIVATE: flag.default(false),
  PETSTORE_WEBHOOK_RETRY_BASE_MS: wholeNumber(1, 3_600_000).default(5_000),
  PETSTORE_WEBHOOK_TIMEOUT_MS: wholeNumber(100, 60_000).default(10_000),
  PETSTORE_WEBHOOK_POLL_MS: wholeNumber(10, 60_000).default(500),
  PETSTORE_EVENTS_POLL_MS: wholeNumber(10, 60_000).default(250),
  PETSTORE_EVENTS_HEARTBEAT_SECONDS: wholeNumber(1, 3_600).default(15),
  PETSTORE_EVENTS_MAX_LIFETIME_SECONDS: wholeNumber(1, 86_400).default(3_600),
  PETSTORE_EVENTS_MAX_STREAMS_PER_KEY: wholeNumber(1, 100).default(20),
  PETSTORE_EVENTS_MAX_STREAMS_PER_ADDRESS: wholeNumber(1, 10_000).default(50),
  PETSTORE_RECOVERY_INTERVAL_SECONDS: wholeNumber(1, 3_600).default(10),
  PETSTORE_RECOVERY_GRACE_SECONDS: wholeNumber(1, 86_400).default(30),
  PETSTORE_HEADERS_TIMEOUT_SECONDS: wholeNumber(1, 600).default(20),
  PETSTORE_REQUEST_TIMEOUT_SECONDS: wholeNumber(1, 3_600).default(60),
  PETSTORE_KEEP_ALIVE_TIMEOUT_SECONDS: wholeNumber(1, 600).default(5),
  PETSTORE_LOG_LEVEL: z
    .enum(["debug", "info", "warn", "error", "silent"], { error: "expected debug, info, warn, error or silent" })
    .default("info"),
  // OpenTelemetry's own variables; with tracing on, the others are checked by tracingSettings.
  OTEL_TRACES_EXPORTER: z
    .enum(["otlp", "none"], { error: "expected otlp or none (traces are exported by OTLP over HTTP only)" })
    .optional(),
  OTEL_SDK_DISABLED: flag.optional(),
  PETSTORE_TRACES_TRUST_CALLER_SAMPLED: flag.default(false),
});

export interface Config {
  port: number;
  host: string;
  /** `timeoutMs`: how long a request waits for an unreachable store before its 503. */
  store: { kind: "memory" } | { kind: "mongo"; url: string; dbName: string; timeoutMs: number };
  adminKey: string | undefined;
  seedDemo: boolean;
  ban: { strikes: number; seconds: number };
  /** `GET /events`: how often a caught-up stream reads the log, the heartbeat, a stream's lifetime, the caps. */
  events: {
    pollMs: number;
    heartbeatMs: number;
    maxLifetimeMs: number;
    maxPerKey: number;
    maxPerAddress: number;
  };
  getPetDeprecation: { deprecatedAt: Date; sunsetAt: Date };
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** How often recovery runs, and how old a provisional write must be before it finishes or undoes it. */
  recovery: { intervalSeconds: number; graceSeconds: number };
  /** Browser origins allowed by CORS; empty: off. */
  corsOrigins: string[];
  /** Proxies whose X-Forwarded-For is believed; none by default. */
  trustProxy: TrustedProxies;
  /** Port of the Prometheus /metrics listener; undefined: off. */
  metricsPort: number | undefined;
  /** OpenTelemetry traces exported by OTLP/HTTP: only with OTEL_TRACES_EXPORTER=otlp (and OTEL_SDK_DISABLED unset). */
  tracing: TracingSettings | false;
  /** After SIGTERM: serve on with /readyz at 503 for `drainSeconds`, then finish in-flight work within `deadlineSeconds`. */
  shutdown: { drainSeconds: number; deadlineSeconds: number };
  webhooks: WebhookSettings;
  connections: ConnectionSettings;
}

/** Node's HTTP server time-outs (slow clients): docs/operations.md, "Connection time-outs". */
export interface ConnectionSettings {
  /** From a request's first byte until its headers are complete; then 408 and close. */
  headersTimeoutSeconds: number;
  /** From a request's first byte until it is complete, body included; then 408 and close. */
  requestTimeoutSeconds: number;
  /** How long an idle keep-alive connection stays open after an answer. */
  keepAliveTimeoutSeconds: number;
}

export interface WebhookSettings {
  /** Allow targets on private, loopback and link-local addresses (tests, closed networks). */
  allowPrivateTargets: boolean;
  /** The first retry's wait; later ones grow from it (5 s: about a day in all). */
  retryBaseMs: number;
  /** How long one delivery may take: connecting, sending and the answer. */
  timeoutMs: number;
  /** How often each instance looks for events to relay and messages due. */
  pollMs: number;
}

/** A setting that stops start-up; its message is one line naming the variable. */
export class ConfigError extends Error {}

const fail = (variable: string, problem: string, value: string | undefined): never => {
  throw new ConfigError(
    `Invalid setting ${variable}: ${problem}${value === undefined ? "" : ` (got ${JSON.stringify(value)})`}`,
  );
};

export const loadConfig = (env: Record<string, string | undefined>): Config => {
  // An empty variable counts as unset, as shells and compose files often leave them.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = environment.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? "environment");
    return fail(variable, issue?.message ?? "invalid", present[variable]);
  }
  const e = parsed.data;
  if (e.PETSTORE_STORE === "mongo" && !e.MONGODB_URL)
    fail("MONGODB_URL", "required when PETSTORE_STORE=mongo", undefined);
  if (e.PETSTORE_GET_PET_SUNSET_AT < e.PETSTORE_GET_PET_DEPRECATED_AT) {
    fail(
      "PETSTORE_GET_PET_SUNSET_AT",
      "the sunset cannot come before PETSTORE_GET_PET_DEPRECATED_AT",
      present.PETSTORE_GET_PET_SUNSET_AT,
    );
  }
  if (e.PETSTORE_METRICS_PORT !== undefined && e.PETSTORE_METRICS_PORT !== 0 && e.PETSTORE_METRICS_PORT === e.PORT) {
    fail(
      "PETSTORE_METRICS_PORT",
      "must differ from PORT: metrics are never served on the API port",
      present.PETSTORE_METRICS_PORT,
    );
  }
  if (e.PETSTORE_HEADERS_TIMEOUT_SECONDS > e.PETSTORE_REQUEST_TIMEOUT_SECONDS) {
    const limit = `cannot exceed PETSTORE_REQUEST_TIMEOUT_SECONDS (${e.PETSTORE_REQUEST_TIMEOUT_SECONDS}): the headers are part of the request`;
    fail("PETSTORE_HEADERS_TIMEOUT_SECONDS", limit, present.PETSTORE_HEADERS_TIMEOUT_SECONDS);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    store:
      e.PETSTORE_STORE === "mongo" && e.MONGODB_URL
        ? { kind: "mongo", url: e.MONGODB_URL, dbName: e.MONGODB_DB, timeoutMs: e.MONGODB_TIMEOUT_MS }
        : { kind: "memory" },
    adminKey: e.PETSTORE_ADMIN_KEY,
    seedDemo: e.PETSTORE_SEED_DEMO ?? e.PETSTORE_STORE === "memory",
    ban: { strikes: e.PETSTORE_BAN_STRIKES, seconds: e.PETSTORE_BAN_SECONDS },
    events: {
      pollMs: e.PETSTORE_EVENTS_POLL_MS,
      heartbeatMs: e.PETSTORE_EVENTS_HEARTBEAT_SECONDS * 1000,
      maxLifetimeMs: e.PETSTORE_EVENTS_MAX_LIFETIME_SECONDS * 1000,
      maxPerKey: e.PETSTORE_EVENTS_MAX_STREAMS_PER_KEY,
      maxPerAddress: e.PETSTORE_EVENTS_MAX_STREAMS_PER_ADDRESS,
    },
    getPetDeprecation: { deprecatedAt: e.PETSTORE_GET_PET_DEPRECATED_AT, sunsetAt: e.PETSTORE_GET_PET_SUNSET_AT },
    logLevel: e.PETSTORE_LOG_LEVEL,
    recovery: {
      intervalSeconds: e.PETSTORE_RECOVERY_INTERVAL_SECONDS,
      graceSeconds: e.PETSTORE_RECOVERY_GRACE_SECONDS,
    },
    corsOrigins: (e.PETSTORE_CORS_ORIGINS ?? []).map((o) => (o === "*" ? o : new URL(o).origin)),
    trustProxy: e.PETSTORE_TRUST_PROXY ?? noTrustedProxies,
    metricsPort: e.PETSTORE_METRICS_PORT,
    tracing:
      e.OTEL_TRACES_EXPORTER === "otlp" &&
      e.OTEL_SDK_DISABLED !== true &&
      tracingSettings(present, e.PETSTORE_TRACES_TRUST_CALLER_SAMPLED, fail),
    shutdown: { drainSeconds: e.PETSTORE_DRAIN_SECONDS, deadlineSeconds: e.PETSTORE_SHUTDOWN_SECONDS },
    webhooks: {
      allowPrivateTargets: e.PETSTORE_WEBHOOK_ALLOW_PRIVATE,
      retryBaseMs: e.PETSTORE_WEBHOOK_RETRY_BASE_MS,
      timeoutMs: e.PETSTORE_WEBHOOK_TIMEOUT_MS,
      pollMs: e.PETSTORE_WEBHOOK_POLL_MS,
    },
    connections: {
      headersTimeoutSeconds: e.PETSTORE_HEADERS_TIMEOUT_SECONDS,
      requestTimeoutSeconds: e.PETSTORE_REQUEST_TIMEOUT_SECONDS,
      keepAliveTimeoutSeconds: e.PETSTORE_KEEP_ALIVE_TIMEOUT_SECONDS,
    },
  };
};
