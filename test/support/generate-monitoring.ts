/**
 * `npm run generate:monitoring`: writes deploy/kubernetes/components/monitoring/prometheus-rule.yaml, the
 * prometheus-operator's PrometheusRule holding deploy/prometheus/petstore.rules.yml's groups, the one source of the
 * rules; `-- --check` fails when the file is not in step (test/deploy/prometheus.test.ts checks it too).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";

const root = fileURLToPath(new URL("../../", import.meta.url));
export const RULES = "deploy/prometheus/petstore.rules.yml";
export const PROMETHEUS_RULE = "deploy/kubernetes/components/monitoring/prometheus-rule.yaml";

/** The PrometheusRule object for the rules file's groups. */
export const prometheusRule = (rules: string = readFileSync(`${root}${RULES}`, "utf8")) => ({
  apiVersion: "monitoring.coreos.com/v1",
  kind: "PrometheusRule",
  metadata: {
    name: "petstore",
    labels: { "app.kubernetes.io/name": "petstore", "app.kubernetes.io/component": "api" },
  },
  spec: parse(rules) as { groups: unknown[] },
});

const text = () =>
  `# Generated from ${RULES} by \`npm run generate:monitoring\`: edit that file, not this one.\n` +
  stringify(prometheusRule(), { lineWidth: 0 });

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--check")) {
    const current = parse(readFileSync(`${root}${PROMETHEUS_RULE}`, "utf8")) as unknown;
    if (JSON.stringify(current) !== JSON.stringify(prometheusRule())) {
      process.stderr.write(`${PROMETHEUS_RULE} is not in step with ${RULES}: run npm run generate:monitoring\n`);
      process.exit(1);
    }
  } else writeFileSync(`${root}${PROMETHEUS_RULE}`, text());
}
