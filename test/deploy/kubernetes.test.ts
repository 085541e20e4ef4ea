/**
 * deploy/kubernetes: both overlays rendered by `kubectl kustomize` (or kustomize) and every object checked offline against the
 * Kubernetes JSON schemas vendored beside this file (strict: an unknown or misspelt field is an error), then the
 * promises an operator relies on: probes, drain timing, security context, secrets, replicas.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { prometheusRule } from "../support/generate-monitoring.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const version = (JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { version: string }).version;
const schemas = fileURLToPath(new URL("./kubernetes-schemas/", import.meta.url));

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: any;
};

/** `kubectl kustomize` where kubectl carries kustomize v4 or later, otherwise kustomize's own `build`. */
const renderer = ((): [string, string[]] => {
  const kubectl = spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" });
  if (!kubectl.error && /Kustomize Version: v[4-9]/.test(kubectl.stdout)) return ["kubectl", ["kustomize"]];
  return ["kustomize", ["build"]];
})();

const render = (overlay: string, tree = `${root}deploy/kubernetes`): Manifest[] => {
  const [command, args] = renderer;
  const run = spawnSync(command, [...args, `${tree}/overlays/${overlay}`], { encoding: "utf8" });
  // No skipping when neither is there: CI installs one, and a check that silently did not run would pass anything.
  if (run.error)
    throw new Error(`kubectl or kustomize is needed (bash .ci/install-kustomize.sh): ${run.error.message}`);
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return parseAllDocuments(run.stdout).map((document) => document.toJS() as Manifest);
};

/** An overlay with the optional components added, as an operator would: a copy of deploy/kubernetes, edited. */
const renderWithComponents = (overlay: string, components: string[]): Manifest[] => {
  const tree = mkdtempSync(`${tmpdir()}/petstore-kustomize-`);
  try {
    cpSync(`${root}deploy/kubernetes`, tree, { recursive: true });
    appendFileSync(
      `${tree}/overlays/${overlay}/kustomization.yaml`,
      `components:\n${components.map((c) => `  - ../../components/${c}\n`).join("")}`,
    );
    return render(overlay, tree);
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
};

/** The schema file for an object: `<kind>[-<group>]-<version>.json`, as kubernetes-json-schema names them. */
const schemaFile = ({ apiVersion, kind }: Manifest): string => {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const groupPart = group ? `-${group.split(".")[0]}` : "";
  return `${kind.toLowerCase()}${groupPart}-${version}.json`;
};

const validator = (() => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // Kubernetes' own formats: the type keyword already checks what these can.
  for (const format of ["int32", "int64", "double", "int-or-string", "byte"]) ajv.addFormat(format, true);
  const byFile = new Map<string, ValidateFunction<Manifest>>();
  for (const file of readdirSync(schemas).filter((f) => f.endsWith(".json"))) {
    const schema = JSON.parse(readFileSync(`${schemas}${file}`, "utf8")) as Record<string, unknown>;
    ajv.addSchema(schema);
    if (file !== "_definitions.json") byFile.set(file, ajv.getSchema<Manifest>(schema.$id as string)!);
  }
  return (manifest: Manifest): string[] => {
    const validate = byFile.get(schemaFile(manifest));
    if (!validate) return [`no vendored schema for ${manifest.apiVersion} ${manifest.kind} (${schemaFile(manifest)})`];
    const data: unknown = manifest; // a type guard would narrow `manifest` to never below
    if (validate(data)) return [];
    return (validate.errors ?? []).map(
      (e) => `${manifest.kind}/${manifest.metadata.name}${e.instancePath}: ${e.message} ${JSON.stringify(e.params)}`,
    );
  };
})();

const one = (manifests: Manifest[], kind: string): Manifest => {
  const found = manifests.filter((m) => m.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!;
};
const configOf = (manifests: Manifest[]) => one(manifests, "ConfigMap").data as Record<string, string>;
const containerOf = (manifests: Manifest[]) => one(manifests, "Deployment").spec.template.spec.containers[0];

describe.each(["demo", "production", "production+components"])("the %s overlay", (overlay) => {
  const manifests =
    overlay === "production+components"
      ? renderWithComponents("production", ["monitoring", "ingress"])
      : render(overlay);

  it("renders objects that all pass the Kubernetes 1.32 schemas, strictly", () => {
    expect(manifests.length).toBeGreaterThanOrEqual(7);
    expect(manifests.flatMap(validator)).toEqual([]);
    const namespaces = new Set(manifests.filter((m) => m.kind !== "Namespace").map((m) => m.metadata.namespace));
    expect(namespaces).toEqual(new Set([one(manifests, "Namespace").metadata.name]));
  });

  it("runs the image the build produces: petstore/service tagged with package.json's version", () => {
    expect(containerOf(manifests).image).toBe(`petstore/service:${version}`);
    // .ci/build-service-image.sh's own line that reads the version, run as it is.
    const script = readFileSync(`${root}.ci/build-service-image.sh`, "utf8");
    const line = /^VERSION="\$\((.+)\)"$/m.exec(script)![1]!;
    const built = spawnSync("bash", ["-c", line], { cwd: root, encoding: "utf8" });
    expect(built.stdout.trim()).toBe(version);
    expect(script).toContain('IMAGE="${PETSTORE_SERVICE_IMAGE:-petstore/service:$VERSION}"');
  });

  it("probes startup and liveness on /healthz and readiness on /readyz", () => {
    const container = containerOf(manifests);
    expect(container.startupProbe.httpGet.path).toBe("/healthz");
    expect(container.livenessProbe.httpGet.path).toBe("/healthz");
    expect(container.readinessProbe.httpGet.path).toBe("/readyz");
    // A probe waits longer than the store's own time-out, or a slow store would look like a dead pod.
    expect(container.readinessProbe.timeoutSeconds * 1000).toBeGreaterThan(
      Number(configOf(manifests).MONGODB_TIMEOUT_MS ?? 2000),
    );
  });

  it("gives the pause before SIGTERM, the drain and the deadline time to finish before SIGKILL", () => {
    const pod = one(manifests, "Deployment").spec.template.spec;
    const config = configOf(manifests);
    const pause = Number(containerOf(manifests).lifecycle.preStop.exec.command.at(-1));
    expect(pause).toBeGreaterThan(0);
    const needed = pause + Number(config.PETSTORE_DRAIN_SECONDS) + Number(config.PETSTORE_SHUTDOWN_SECONDS);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(needed);
  });

  it("runs as a non-root user on a read-only root filesystem, every capability dropped, seccomp RuntimeDefault", () => {
    const pod = one(manifests, "Deployment").spec.template.spec;
    const { securityContext, resources } = containerOf(manifests);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(pod.securityContext.seccompProfile.type).toBe("RuntimeDefault");
    expect(securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(resources.limits.memory).toBeDefined();
  });

  it("reads the admin key and the MongoDB URL from a Secret, the rest from the ConfigMap", () => {
    const container = containerOf(manifests);
    const fromSecret = Object.fromEntries(
      container.env.map((e: any) => [e.name, e.valueFrom?.secretKeyRef?.name as string | undefined]),
    );
    expect(fromSecret).toEqual({ PETSTORE_ADMIN_KEY: "petstore-secrets", MONGODB_URL: "petstore-secrets" });
    expect(container.envFrom[0].configMapRef.name).toBe(one(manifests, "ConfigMap").metadata.name);
    const config = configOf(manifests);
    expect(Object.keys(config).filter((k) => /KEY|URL|SECRET|PASSWORD/.test(k))).toEqual([]);
    expect(config.PETSTORE_METRICS_PORT).toBe("9464");
  });

  it("has a Service, a disruption budget and a network policy that select the pods", () => {
    const podLabels = one(manifests, "Deployment").spec.template.metadata.labels;
    expect(podLabels).toMatchObject(one(manifests, "Service").spec.selector);
    expect(podLabels).toMatchObject(one(manifests, "PodDisruptionBudget").spec.selector.matchLabels);
    const policy = one(manifests, "NetworkPolicy").spec;
    expect(podLabels).toMatchObject(policy.podSelector.matchLabels);
    expect(policy.policyTypes).toEqual(["Ingress", "Egress"]);
    // Out: DNS, MongoDB, and public addresses only (never the cluster's private ranges).
    const ports = policy.egress.flatMap((rule: any) => rule.ports.map((p: any) => p.port));
    expect(ports).toEqual(expect.arrayContaining([53, 27017, 443]));
    const open = policy.egress.flatMap((rule: any) => rule.to.filter((to: any) => to.ipBlock));
    for (const { ipBlock } of open) expect(ipBlock.except.length).toBeGreaterThan(0);
  });
});

describe("what differs between the overlays", () => {
  it("demo: one replica on the memory store, replaced rather than rolled, never autoscaled", () => {
    const manifests = render("demo");
    const deployment = one(manifests, "Deployment");
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: "Recreate" });
    expect(configOf(manifests).PETSTORE_STORE).toBe("memory");
    expect(manifests.some((m) => m.kind === "HorizontalPodAutoscaler")).toBe(false);
  });

  it("production: on MongoDB, the replica count left to the autoscaler (three to ten), spread, secrets required", () => {
    const manifests = render("production");
    const deployment = one(manifests, "Deployment");
    // A count here would reset the autoscaler's choice at every `kubectl apply -k`.
    expect(deployment.spec).not.toHaveProperty("replicas");
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    expect(configOf(manifests).PETSTORE_STORE).toBe("mongo");
    const autoscaler = one(manifests, "HorizontalPodAutoscaler").spec;
    expect(autoscaler.scaleTargetRef).toMatchObject({ kind: "Deployment", name: deployment.metadata.name });
    expect(autoscaler.minReplicas).toBeGreaterThanOrEqual(3);
    expect(autoscaler.maxReplicas).toBeGreaterThan(autoscaler.minReplicas);
    expect(deployment.spec.template.spec.topologySpreadConstraints.length).toBeGreaterThan(0);
    for (const e of containerOf(manifests).env) expect(e.valueFrom.secretKeyRef.optional).toBe(false);
  });
});

describe("the optional components", () => {
  const manifests = renderWithComponents("production", ["monitoring", "ingress"]);

  it("monitoring: a ServiceMonitor on the Service's metrics port, and the alert rules as a PrometheusRule", () => {
    const monitor = one(manifests, "ServiceMonitor");
    const service = one(manifests, "Service");
    expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: "metrics", path: "/metrics" })]);
    expect(service.spec.ports.map((p: { name: string }) => p.name)).toContain("metrics");
    // The job Prometheus gives the scrape is the Service's name: the one every rule selects.
    expect(service.metadata.name).toBe("petstore");
    expect(monitor.spec).not.toHaveProperty("jobLabel");
  });

  it("monitoring: its PrometheusRule is generated from deploy/prometheus, and in step with it", () => {
    const rule = one(manifests, "PrometheusRule");
    expect(rule.spec).toEqual(prometheusRule().spec);
    const checked = parse(readFileSync(`${root}deploy/kubernetes/components/monitoring/prometheus-rule.yaml`, "utf8"));
    expect(checked).toEqual(prometheusRule());
  });

  it("ingress: routes the host to the Service's http port, and trusts the controller's X-Forwarded-For", () => {
    const ingress = one(manifests, "Ingress");
    const backend = ingress.spec.rules[0].http.paths[0].backend.service;
    expect(backend).toEqual({ name: one(manifests, "Service").metadata.name, port: { name: "http" } });
    expect(configOf(manifests).PETSTORE_TRUST_PROXY).toBeTruthy();
  });
});

describe("the schema check itself", () => {
  it("refuses a misspelt field, a wrong type and a missing required field", () => {
    const deployment = one(render("demo"), "Deployment");
    const broken = structuredClone(deployment);
    const container = broken.spec.template.spec.containers[0];
    container.readinesProbe = container.readinessProbe;
    broken.spec.replicas = "1";
    delete broken.spec.selector;
    const errors = validator(broken).join("\n");
    expect(errors).toContain("readinesProbe");
    expect(errors).toContain("/spec/replicas");
    expect(errors).toContain("selector");
    // The prometheus-operator's CRDs as strictly.
    const monitor = structuredClone(one(renderWithComponents("production", ["monitoring"]), "ServiceMonitor"));
    monitor.spec.endpoint = monitor.spec.endpoints;
    monitor.spec.endpoints[0].interval = "30 seconds";
    expect(validator(monitor).join("\n")).toMatch(/endpoint[\s\S]*\/spec\/endpoints\/0\/interval/);
    expect(validator({ ...deployment, apiVersion: "apps/v2" })).toEqual([
      "no vendored schema for apps/v2 Deployment (deployment-apps-v2.json)",
    ]);
  });
});
