/**
 * deploy/prometheus (alert rules and their `promtool test rules` files) and deploy/grafana (the dashboard): promtool
 * accepts the rules and their unit tests pass; each alert has a test where it fires and one where it stays quiet;
 * every series the rules and the dashboard read is one the service exports.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createMetrics } from "../../bootstrap/metrics.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const RULES = "deploy/prometheus/petstore.rules.yml";
const RULE_TESTS = "deploy/prometheus/petstore.rules.test.yml";
const DASHBOARD = "deploy/grafana/petstore-dashboard.json";

const promtool = (...args: string[]) => {
  const run = spawnSync("promtool", args, { cwd: root, encoding: "utf8" });
  // No skipping when it is missing: CI installs it (.ci/install-promtool.sh).
  if (run.error)
    throw new Error(
      `promtool is needed: install Debian's prometheus package (bash .ci/install-promtool.sh): ${run.error.message}`,
    );
  return run;
};

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: Record<string, string>;
}
interface RuleTest {
  name: string;
  input_series: { series: string }[];
  alert_rule_test: { alertname: string; exp_alerts: unknown[] }[];
}
const rules = (parse(readFileSync(`${root}${RULES}`, "utf8")) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);
const ruleTests = (parse(readFileSync(`${root}${RULE_TESTS}`, "utf8")) as { tests: RuleTest[] }).tests;
const dashboard = JSON.parse(readFileSync(`${root}${DASHBOARD}`, "utf8")) as {
  uid: string;
  templating: { list: { name: string; query?: { query: string } }[] };
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
};
const operations = readFileSync(`${root}docs/operations.md`, "utf8");

/** Every series selector in a PromQL expression: the metric name and what its braces hold ("" when none). */
const selectors = (expr: string) =>
  [...expr.matchAll(/\b((?:petstore|http_server|process|nodejs)_[a-z_]+)(\{[^}]*\})?/g)].map((m) => ({
    metric: m[1]!,
    labels: m[2] ?? "",
  }));

describe("alert rules", () => {
  it("pass `promtool check rules`", () => {
    const run = promtool("check", "rules", RULES);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(run.status).toBe(0);
  });

  it("pass their unit tests (`promtool test rules`)", () => {
    const run = promtool("test", "rules", RULE_TESTS);
    expect(`${run.stdout}${run.stderr}`).toContain("SUCCESS");
    expect(run.status).toBe(0);
  });

  it("cover what operators asked for: errors, p99, webhook backlog age, relay lag, recovery, store, bans, 429s", () => {
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        "PetstoreHighErrorRatio",
        "PetstoreHighLatencyP99",
        "PetstoreWebhookBacklogOld",
        "PetstoreRelayLagging",
        "PetstoreRecoveryKeepsFindingWork",
        "PetstoreStoreUnavailable",
        "PetstoreBanStorm",
        "PetstoreRateLimitedShareHigh",
      ]),
    );
    for (const rule of rules) {
      expect(["warning", "critical"], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
    }
  });

  it("select the service's job in every series they read", () => {
    for (const rule of rules) {
      const read = selectors(rule.expr);
      expect(read.length, rule.alert).toBeGreaterThan(0);
      for (const { metric, labels } of read)
        expect(labels, `${rule.alert}: ${metric}`).toMatch(/[{,]job="petstore"[,}]/);
    }
  });

  it("each carry a runbook_url: the documented base and the alert's own section of docs/operations.md", () => {
    for (const rule of rules) {
      expect(rule.annotations, rule.alert).not.toHaveProperty("runbook");
      const anchor = rule.alert.toLowerCase();
      expect(rule.annotations.runbook_url, rule.alert).toBe(`https://petstore.example/docs/operations.md#${anchor}`);
      expect(operations, rule.alert).toMatch(new RegExp(`^#### ${rule.alert}$`, "m"));
    }
    expect(operations).toContain("https://petstore.example/docs/");
  });

  it("each stay quiet on the series of another job that would make them fire (a shared Prometheus)", () => {
    const otherJob = ruleTests.filter((t) => t.input_series.every((s) => /\bjob="(?!petstore")/.test(s.series)));
    for (const { alert } of rules) {
      const fires = ruleTests.filter((t) =>
        t.alert_rule_test.some((c) => c.alertname === alert && c.exp_alerts.length),
      );
      const quiet = otherJob.filter((t) =>
        t.alert_rule_test.some((c) => c.alertname === alert && !c.exp_alerts.length),
      );
      expect(quiet.length, alert).toBeGreaterThan(0);
      // The same figures as a firing case, only the job differs.
      const strip = (t: RuleTest) => t.input_series.map((s) => s.series.replace(/job="[^"]*"/, "")).join("\n");
      expect(
        quiet.some((q) => fires.some((f) => strip(f) === strip(q))),
        alert,
      ).toBe(true);
    }
  });

  it("each fire in one unit test and stay quiet in another", () => {
    const checks = ruleTests.flatMap((t) => t.alert_rule_test);
    for (const { alert } of rules) {
      const own = checks.filter((c) => c.alertname === alert);
      expect(
        own.some((c) => c.exp_alerts.length > 0),
        `${alert} fires somewhere`,
      ).toBe(true);
      expect(
        own.some((c) => c.exp_alerts.length === 0),
        `${alert} stays quiet somewhere`,
      ).toBe(true);
    }
  });
});

describe("the Grafana dashboard", () => {
  it("has a uid and a query in every panel that is not a row", () => {
    expect(dashboard.uid).toMatch(/^[a-z0-9-]+$/);
    const panels = dashboard.panels.filter((p) => p.type !== "row");
    expect(panels.length).toBeGreaterThan(10);
    for (const panel of panels) expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
  });

  it("has job and instance variables, and every panel's every series selects both", () => {
    const variables = Object.fromEntries(dashboard.templating.list.map((v) => [v.name, v.query?.query]));
    expect(variables.job).toBe("label_values(petstore_build_info, job)");
    expect(variables.instance).toBe('label_values(petstore_build_info{job=~"$job"}, instance)');
    for (const panel of dashboard.panels)
      for (const { expr } of panel.targets ?? [])
        for (const { metric, labels } of selectors(expr)) {
          expect(labels, `${panel.title}: ${metric}`).toMatch(/[{,]job=~"\$job"[,}]/);
          expect(labels, `${panel.title}: ${metric}`).toMatch(/[{,]instance=~"\$instance"[,}]/);
        }
  });
});

describe("the series the rules and the dashboard read", () => {
  it("are all exported by the service", async () => {
    const exported = new Set<string>();
    for (const metric of await createMetrics().registry.getMetricsAsJSON()) {
      exported.add(metric.name);
      // prom-client's types say a numeric enum; the value is the text format's type name.
      if ((metric.type as unknown) === "histogram")
        for (const suffix of ["_bucket", "_count", "_sum"]) exported.add(`${metric.name}${suffix}`);
    }
    const exprs = [...rules.map((r) => r.expr), ...dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr)];
    const read = new Set(exprs.flatMap((e) => e.match(/\b(?:petstore|http_server|process|nodejs)_[a-z_]+\b/g) ?? []));
    expect(read.size).toBeGreaterThan(10);
    expect([...read].filter((name) => !exported.has(name))).toEqual([]);
  });
});
