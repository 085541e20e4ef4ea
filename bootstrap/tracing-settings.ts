/**
 * OpenTelemetry's standard OTEL_* variables, read when OTEL_TRACES_EXPORTER=otlp: each one is honoured or stops
 * start-up naming it, never ignored in silence (docs/operations.md#tracing).
 */
export interface TracingSettings {
  protocol: "http/protobuf" | "http/json";
  /** The service's own decision; `parentBased`: a caller's sampled flag counts, when `trustCallerSampled` says so. */
  sampler: { kind: "always_on" | "always_off" | "traceidratio"; parentBased: boolean; ratio: number };
  /** Off by default: on a public edge a caller would otherwise decide which of its requests are exported. */
  trustCallerSampled: boolean;
  /** `none`: a caller's `traceparent` is not read, every request starts a trace. */
  propagate: boolean;
}

type Fail = (variable: string, problem: string, value: string | undefined) => never;
type Env = Record<string, string | undefined>;

const samplers = new Set([
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
]);
const keyValueList = /^\s*[^=,\s]+\s*=[^,]*(,\s*[^=,\s]+\s*=[^,]*)*$/;

/** The traces-specific variable wins over the general one, as the specification says. */
const either = (env: Env, general: string): [string, string | undefined] => {
  const specific = general.replace("OTEL_EXPORTER_OTLP_", "OTEL_EXPORTER_OTLP_TRACES_");
  return env[specific] === undefined ? [general, env[general]] : [specific, env[specific]];
};

const checkExporterVariables = (env: Env, fail: Fail) => {
  for (const general of ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]) {
    const value = env[general];
    if (value !== undefined && !/^https?:$/.test(URL.parse(value)?.protocol ?? ""))
      fail(general, "expected an http:// or https:// URL of the collector", value);
  }
  for (const general of ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_RESOURCE_ATTRIBUTES"]) {
    const [name, value] = general.startsWith("OTEL_EXPORTER") ? either(env, general) : [general, env[general]];
    if (value !== undefined && !keyValueList.test(value)) fail(name, "expected a comma list of key=value", value);
  }
  const [timeoutName, timeout] = either(env, "OTEL_EXPORTER_OTLP_TIMEOUT");
  if (timeout !== undefined && !/^[1-9]\d*$/.test(timeout))
    fail(timeoutName, "expected a whole number of milliseconds", timeout);
  const [compressionName, compression] = either(env, "OTEL_EXPORTER_OTLP_COMPRESSION");
  if (compression !== undefined && compression !== "gzip" && compression !== "none")
    fail(compressionName, "expected gzip or none", compression);
  for (const name of [
    "OTEL_BSP_SCHEDULE_DELAY",
    "OTEL_BSP_EXPORT_TIMEOUT",
    "OTEL_BSP_MAX_QUEUE_SIZE",
    "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
  ]) {
    if (env[name] !== undefined && !/^\d+$/.test(env[name])) fail(name, "expected a whole number", env[name]);
  }
  for (const name of ["OTEL_METRICS_EXPORTER", "OTEL_LOGS_EXPORTER"]) {
    if (env[name] !== undefined && env[name] !== "none")
      fail(
        name,
        "expected none: metrics are served to Prometheus and logs written to stdout, not sent by OTLP",
        env[name],
      );
  }
};

const protocolOf = (env: Env, fail: Fail): TracingSettings["protocol"] => {
  const [name, value = "http/protobuf"] = either(env, "OTEL_EXPORTER_OTLP_PROTOCOL");
  if (value === "http/protobuf" || value === "http/json") return value;
  return fail(
    name,
    value === "grpc"
      ? "grpc is not supported: use http/protobuf (a collector's OTLP/HTTP port, 4318)"
      : "expected http/protobuf or http/json",
    value,
  );
};

const samplerOf = (env: Env, fail: Fail): TracingSettings["sampler"] => {
  const name = env.OTEL_TRACES_SAMPLER ?? "parentbased_always_on";
  if (!samplers.has(name))
    fail("OTEL_TRACES_SAMPLER", `expected one of ${[...samplers].join(", ")}`, env.OTEL_TRACES_SAMPLER);
  const arg = env.OTEL_TRACES_SAMPLER_ARG;
  const ratio = arg === undefined ? 1 : Number(arg);
  if (arg !== undefined && (!/^\d*\.?\d+$/.test(arg) || ratio > 1))
    fail("OTEL_TRACES_SAMPLER_ARG", "expected a ratio from 0 to 1", arg);
  const parentBased = name.startsWith("parentbased_");
  return { kind: name.replace("parentbased_", "") as TracingSettings["sampler"]["kind"], parentBased, ratio };
};

const propagateOf = (env: Env, fail: Fail): boolean => {
  const list = (env.OTEL_PROPAGATORS ?? "tracecontext").split(",").map((p) => p.trim());
  const unknown = list.find((p) => !["tracecontext", "baggage", "none"].includes(p));
  if (unknown !== undefined)
    fail("OTEL_PROPAGATORS", "expected tracecontext, baggage or none (W3C trace context only)", env.OTEL_PROPAGATORS);
  return list.includes("tracecontext");
};

export const tracingSettings = (env: Env, trustCallerSampled: boolean, fail: Fail): TracingSettings => {
  checkExporterVariables(env, fail);
  return {
    protocol: protocolOf(env, fail),
    sampler: samplerOf(env, fail),
    trustCallerSampled,
    propagate: propagateOf(env, fail),
  };
};
