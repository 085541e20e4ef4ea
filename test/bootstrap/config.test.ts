import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { noTrustedProxies } from "../../adapters/http/client-address.ts";
import { loadConfig } from "../../bootstrap/config.ts";

describe("configuration from the environment", () => {
  it("has the documented defaults", () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: "0.0.0.0",
      store: { kind: "memory" },
      adminKey: undefined,
      seedDemo: true,
      ban: { strikes: 10, seconds: 900 },
      events: { pollMs: 250, heartbeatMs: 15_000, maxLifetimeMs: 3_600_000, maxPerKey: 20, maxPerAddress: 50 },
      getPetDeprecation: { deprecatedAt: new Date("2026-09-01T00:00:00Z"), sunsetAt: new Date("2027-06-30T00:00:00Z") },
      logLevel: "info",
      recovery: { intervalSeconds: 10, graceSeconds: 30 },
      corsOrigins: [],
      trustProxy: noTrustedProxies,
      metricsPort: undefined,
      tracing: false,
      shutdown: { drainSeconds: 0, deadlineSeconds: 10 },
      connections: { headersTimeoutSeconds: 20, requestTimeoutSeconds: 60, keepAliveTimeoutSeconds: 5 },
      webhooks: { allowPrivateTargets: false, retryBaseMs: 5_000, timeoutMs: 10_000, pollMs: 500 },
    });
    expect(loadConfig({ PETSTORE_STORE: "mongo", MONGODB_URL: "mongodb://db" }).store).toEqual({
      kind: "mongo",
      url: "mongodb://db",
      dbName: "petstore",
      timeoutMs: 2_000,
    });
  });

  it("reads every setting", () => {
    const config = loadConfig({
      PORT: "9000",
      HOST: "127.0.0.1",
      PETSTORE_STORE: "mongo",
      MONGODB_URL: "mongodb://db.internal:27017",
      MONGODB_DB: "shop",
      PETSTORE_ADMIN_KEY: "a".repeat(32),
      PETSTORE_BAN_STRIKES: "3",
      PETSTORE_BAN_SECONDS: "60",
      PETSTORE_GET_PET_DEPRECATED_AT: "2026-01-01",
      PETSTORE_GET_PET_SUNSET_AT: "2026-02-01T12:00:00+02:00",
      PETSTORE_LOG_LEVEL: "warn",
      PETSTORE_RECOVERY_INTERVAL_SECONDS: "5",
      PETSTORE_EVENTS_POLL_MS: "100",
      PETSTORE_EVENTS_HEARTBEAT_SECONDS: "30",
      PETSTORE_EVENTS_MAX_LIFETIME_SECONDS: "600",
      PETSTORE_EVENTS_MAX_STREAMS_PER_KEY: "5",
      PETSTORE_EVENTS_MAX_STREAMS_PER_ADDRESS: "8",
      PETSTORE_RECOVERY_GRACE_SECONDS: "120",
      PETSTORE_CORS_ORIGINS: "https://shop.example/, *",
      MONGODB_TIMEOUT_MS: "750",
      PETSTORE_TRUST_PROXY: "10.0.0.0/8, ::1",
      PETSTORE_METRICS_PORT: "9464",
      PETSTORE_DRAIN_SECONDS: "5",
      PETSTORE_SHUTDOWN_SECONDS: "30",
      PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
      PETSTORE_WEBHOOK_RETRY_BASE_MS: "20",
      PETSTORE_WEBHOOK_TIMEOUT_MS: "300",
      PETSTORE_WEBHOOK_POLL_MS: "25",
      PETSTORE_HEADERS_TIMEOUT_SECONDS: "10",
      PETSTORE_REQUEST_TIMEOUT_SECONDS: "30",
      PETSTORE_KEEP_ALIVE_TIMEOUT_SECONDS: "65",
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      PETSTORE_TRACES_TRUST_CALLER_SAMPLED: "true",
    });
    expect(config).toMatchObject({
      port: 9000,
      host: "127.0.0.1",
      store: { kind: "mongo", url: "mongodb://db.internal:27017", dbName: "shop", timeoutMs: 750 },
      adminKey: "a".repeat(32),
      seedDemo: false, // the default with mongo
      ban: { strikes: 3, seconds: 60 },
      events: { pollMs: 100, heartbeatMs: 30_000, maxLifetimeMs: 600_000, maxPerKey: 5, maxPerAddress: 8 },
      getPetDeprecation: { deprecatedAt: new Date("2026-01-01T00:00:00Z"), sunsetAt: new Date("2026-02-01T10:00:00Z") },
      logLevel: "warn",
      recovery: { intervalSeconds: 5, graceSeconds: 120 },
      corsOrigins: ["https://shop.example", "*"],
      metricsPort: 9464,
      tracing: {
        protocol: "http/json",
        sampler: { kind: "traceidratio", parentBased: true, ratio: 0.25 },
        trustCallerSampled: true,
        propagate: true,
      },
      shutdown: { drainSeconds: 5, deadlineSeconds: 30 },
      webhooks: { allowPrivateTargets: true, retryBaseMs: 20, timeoutMs: 300, pollMs: 25 },
      connections: { headersTimeoutSeconds: 10, requestTimeoutSeconds: 30, keepAliveTimeoutSeconds: 65 },
    });
    expect([
      config.trustProxy.has("10.20.30.40"),
      config.trustProxy.has("::1"),
      config.trustProxy.has("192.168.0.1"),
    ]).toEqual([true, true, false]);
    expect(
      loadConfig({ PETSTORE_STORE: "mongo", MONGODB_URL: "mongodb://x", PETSTORE_SEED_DEMO: "true" }).seedDemo,
    ).toBe(true);
    expect(loadConfig({ PETSTORE_SEED_DEMO: "false" }).seedDemo).toBe(false);
  });

  it("traces only when OTEL_TRACES_EXPORTER asks for otlp, and not when the SDK is disabled", () => {
    expect(loadConfig({ OTEL_TRACES_EXPORTER: "none" }).tracing).toBe(false);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: "otlp", OTEL_SDK_DISABLED: "true" }).tracing).toBe(false);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }).tracing).toBe(false);
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: "zipkin" })).toThrow(
      'Invalid setting OTEL_TRACES_EXPORTER: expected otlp or none (traces are exported by OTLP over HTTP only) (got "zipkin")',
    );
  });

  it("with tracing on: the standard defaults, a caller's sampled flag not trusted", () => {
    expect(loadConfig({ OTEL_TRACES_EXPORTER: "otlp" }).tracing).toEqual({
      protocol: "http/protobuf",
      sampler: { kind: "always_on", parentBased: true, ratio: 1 },
      trustCallerSampled: false,
      propagate: true,
    });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: "otlp", OTEL_PROPAGATORS: "none" }).tracing).toMatchObject({
      propagate: false,
    });
    expect(
      loadConfig({ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" }).tracing,
    ).toMatchObject({ protocol: "http/json" });
  });

  it("with tracing on: an OTEL_* variable it cannot honour stops start-up, naming it", () => {
    const refused: [Record<string, string>, string][] = [
      [
        { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
        'Invalid setting OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported: use http/protobuf (a collector\'s OTLP/HTTP port, 4318) (got "grpc")',
      ],
      [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" }, "Invalid setting OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: grpc"],
      [{ OTEL_TRACES_SAMPLER: "jaeger_remote" }, "Invalid setting OTEL_TRACES_SAMPLER: expected one of always_on"],
      [{ OTEL_TRACES_SAMPLER_ARG: "1.5" }, "Invalid setting OTEL_TRACES_SAMPLER_ARG: expected a ratio from 0 to 1"],
      [{ OTEL_TRACES_SAMPLER_ARG: "-0.1" }, "Invalid setting OTEL_TRACES_SAMPLER_ARG"],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, "Invalid setting OTEL_EXPORTER_OTLP_ENDPOINT: expected an"],
      [{ OTEL_EXPORTER_OTLP_HEADERS: "api-key" }, "Invalid setting OTEL_EXPORTER_OTLP_HEADERS: expected a comma list"],
      [{ OTEL_EXPORTER_OTLP_TIMEOUT: "10s" }, "Invalid setting OTEL_EXPORTER_OTLP_TIMEOUT"],
      [{ OTEL_EXPORTER_OTLP_COMPRESSION: "zstd" }, "Invalid setting OTEL_EXPORTER_OTLP_COMPRESSION"],
      [{ OTEL_BSP_SCHEDULE_DELAY: "fast" }, "Invalid setting OTEL_BSP_SCHEDULE_DELAY"],
      [{ OTEL_PROPAGATORS: "b3" }, "Invalid setting OTEL_PROPAGATORS: expected tracecontext, baggage or none"],
      [{ OTEL_METRICS_EXPORTER: "otlp" }, "Invalid setting OTEL_METRICS_EXPORTER: expected none"],
      [{ OTEL_RESOURCE_ATTRIBUTES: "team" }, "Invalid setting OTEL_RESOURCE_ATTRIBUTES"],
    ];
    for (const [env, message] of refused)
      expect(() => loadConfig({ OTEL_TRACES_EXPORTER: "otlp", ...env }), JSON.stringify(env)).toThrow(message);
    // Tracing off: the exporter's variables are not read at all.
    expect(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }).tracing).toBe(false);
  });

  it("treats an empty variable as unset", () => {
    expect(loadConfig({ PORT: "", PETSTORE_ADMIN_KEY: "" })).toMatchObject({ port: 8080, adminKey: undefined });
  });

  it.each([
    ["PORT", { PORT: "eighty" }],
    ["PORT", { PORT: "70000" }],
    ["PETSTORE_STORE", { PETSTORE_STORE: "postgres" }],
    ["MONGODB_URL", { PETSTORE_STORE: "mongo" }],
    ["MONGODB_URL", { PETSTORE_STORE: "mongo", MONGODB_URL: "http://db" }],
    ["MONGODB_DB", { MONGODB_DB: "a/b" }],
    ["PETSTORE_ADMIN_KEY", { PETSTORE_ADMIN_KEY: "short" }],
    ["PETSTORE_SEED_DEMO", { PETSTORE_SEED_DEMO: "yes" }],
    ["PETSTORE_BAN_STRIKES", { PETSTORE_BAN_STRIKES: "0" }],
    ["PETSTORE_BAN_SECONDS", { PETSTORE_BAN_SECONDS: "-5" }],
    ["PETSTORE_GET_PET_DEPRECATED_AT", { PETSTORE_GET_PET_DEPRECATED_AT: "next year" }],
    ["PETSTORE_GET_PET_SUNSET_AT", { PETSTORE_GET_PET_SUNSET_AT: "2026-08-01" }], // before the default deprecation
    ["PETSTORE_LOG_LEVEL", { PETSTORE_LOG_LEVEL: "loud" }],
    ["PETSTORE_RECOVERY_INTERVAL_SECONDS", { PETSTORE_RECOVERY_INTERVAL_SECONDS: "0" }],
    ["PETSTORE_EVENTS_POLL_MS", { PETSTORE_EVENTS_POLL_MS: "5" }],
    ["PETSTORE_EVENTS_HEARTBEAT_SECONDS", { PETSTORE_EVENTS_HEARTBEAT_SECONDS: "0" }],
    ["PETSTORE_EVENTS_MAX_LIFETIME_SECONDS", { PETSTORE_EVENTS_MAX_LIFETIME_SECONDS: "0" }],
    ["PETSTORE_EVENTS_MAX_STREAMS_PER_KEY", { PETSTORE_EVENTS_MAX_STREAMS_PER_KEY: "101" }],
    ["PETSTORE_EVENTS_MAX_STREAMS_PER_ADDRESS", { PETSTORE_EVENTS_MAX_STREAMS_PER_ADDRESS: "0" }],
    ["PETSTORE_RECOVERY_INTERVAL_SECONDS", { PETSTORE_RECOVERY_INTERVAL_SECONDS: "often" }],
    ["PETSTORE_RECOVERY_GRACE_SECONDS", { PETSTORE_RECOVERY_GRACE_SECONDS: "0" }],
    ["PETSTORE_RECOVERY_GRACE_SECONDS", { PETSTORE_RECOVERY_GRACE_SECONDS: "86401" }],
    ["PETSTORE_CORS_ORIGINS", { PETSTORE_CORS_ORIGINS: "ftp://files.example" }],
    ["MONGODB_TIMEOUT_MS", { MONGODB_TIMEOUT_MS: "0" }],
    ["MONGODB_TIMEOUT_MS", { MONGODB_TIMEOUT_MS: "2s" }],
    ["PETSTORE_TRUST_PROXY", { PETSTORE_TRUST_PROXY: "10.0.0.0/8, proxy.internal" }],
    ["PETSTORE_TRUST_PROXY", { PETSTORE_TRUST_PROXY: "10.0.0.0/40" }],
    ["PETSTORE_METRICS_PORT", { PETSTORE_METRICS_PORT: "metrics" }],
    ["PETSTORE_METRICS_PORT", { PORT: "9000", PETSTORE_METRICS_PORT: "9000" }],
    ["PETSTORE_DRAIN_SECONDS", { PETSTORE_DRAIN_SECONDS: "-1" }],
    ["PETSTORE_SHUTDOWN_SECONDS", { PETSTORE_SHUTDOWN_SECONDS: "ten" }],
    ["PETSTORE_WEBHOOK_ALLOW_PRIVATE", { PETSTORE_WEBHOOK_ALLOW_PRIVATE: "yes" }],
    ["PETSTORE_WEBHOOK_RETRY_BASE_MS", { PETSTORE_WEBHOOK_RETRY_BASE_MS: "0" }],
    ["PETSTORE_WEBHOOK_TIMEOUT_MS", { PETSTORE_WEBHOOK_TIMEOUT_MS: "50" }],
    ["PETSTORE_WEBHOOK_POLL_MS", { PETSTORE_WEBHOOK_POLL_MS: "1m" }],
    ["PETSTORE_HEADERS_TIMEOUT_SECONDS", { PETSTORE_HEADERS_TIMEOUT_SECONDS: "0" }],
    ["PETSTORE_HEADERS_TIMEOUT_SECONDS", { PETSTORE_HEADERS_TIMEOUT_SECONDS: "20s" }],
    [
      "PETSTORE_HEADERS_TIMEOUT_SECONDS",
      { PETSTORE_HEADERS_TIMEOUT_SECONDS: "90", PETSTORE_REQUEST_TIMEOUT_SECONDS: "60" },
    ],
    ["PETSTORE_REQUEST_TIMEOUT_SECONDS", { PETSTORE_REQUEST_TIMEOUT_SECONDS: "0" }],
    ["PETSTORE_REQUEST_TIMEOUT_SECONDS", { PETSTORE_REQUEST_TIMEOUT_SECONDS: "3601" }],
    ["PETSTORE_KEEP_ALIVE_TIMEOUT_SECONDS", { PETSTORE_KEEP_ALIVE_TIMEOUT_SECONDS: "0" }],
    ["PETSTORE_KEEP_ALIVE_TIMEOUT_SECONDS", { PETSTORE_KEEP_ALIVE_TIMEOUT_SECONDS: "forever" }],
  ])("refuses a bad %s with one line naming it", (variable, env) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid setting ${variable}: [^\\n]+$`));
  });

  it("stops `main` with that line, exit code 1 and no stack", () => {
    const run = spawnSync(process.execPath, ["bootstrap/main.ts"], {
      env: { ...process.env, PORT: "eighty" },
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('Invalid setting PORT: expected a whole number from 0 to 65535 (got "eighty")\n');
    expect(run.stdout).toBe("");
  });
});

describe("the Node version guard", () => {
  const runGuardAs = (version: string) =>
    spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `Object.defineProperty(process, "versions", { value: { ...process.versions, node: "${version}" } });
         await import("./bootstrap/require-node-24.js");
         process.stdout.write("started");`,
      ],
      { encoding: "utf8", timeout: 15_000 },
    );

  it("stops an older Node at once, saying what to do", () => {
    const run = runGuardAs("20.20.2");
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^petstore needs Node 24 or newer, but Node 20\.20\.2 is running\. Use the npm scripts/);
  });

  it("lets Node 24 through", () => {
    const run = runGuardAs("24.0.0");
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("started");
  });
});
