/**
 * One version for the whole build, and it means what CHANGELOG.md says: the latest released entry when nothing has
 * changed since, otherwise a pre-release of the next version (`1.2.0-dev`). Every place that reports it is held to
 * package.json's: the lockfile, the OpenAPI documents' info.version, petstore_build_info, both client packages and
 * the generated Python module, and the Kubernetes base's image tag (docs/operations.md#releases).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createMetrics } from "../../bootstrap/metrics.ts";
import { startTestPetstore } from "../support/test-petstore.ts";
import { packageVersion, pep440 } from "../support/versions.ts";

const changelog = readFileSync("CHANGELOG.md", "utf8");
/** The text of each `## [...]` section, by its heading's name. */
const sections = changelog.split(/^## /m).slice(1);
const unreleased = sections.find((s) => s.startsWith("[Unreleased]\n"));
const released = sections
  .map((s) => /^\[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})\n/.exec(s))
  .filter((m) => m !== null)
  .map((m) => ({ version: `${m[1]}.${m[2]}.${m[3]}`, parts: [1, 2, 3].map((i) => Number(m[i])) }));
const latest = released[0]!;
const entries = (section: string | undefined) => (section ?? "").split("\n").filter((l) => l.startsWith("- ")).length;

/** The versions one step after `latest`: the next patch, minor or major. */
const nextVersions = (() => {
  const [major, minor, patch] = latest.parts as [number, number, number];
  return [`${major}.${minor}.${patch + 1}`, `${major}.${minor + 1}.0`, `${major + 1}.0.0`];
})();

describe("versions", () => {
  it("CHANGELOG.md: an Unreleased section on top, then the released versions, newest first, each dated", () => {
    expect(sections[0]).toMatch(/^\[Unreleased\]\n/);
    expect(released.length).toBeGreaterThanOrEqual(2);
    const order = released.map((r) => r.parts.reduce((sum, part) => sum * 1000 + part, 0));
    expect(order).toEqual([...order].sort((a, b) => b - a));
  });

  it("package.json's version is the latest release when nothing is unreleased, else a pre-release of the next", () => {
    if (entries(unreleased) === 0) expect(packageVersion).toBe(latest.version);
    else {
      expect(nextVersions.map((v) => `${v}-dev`)).toContain(packageVersion);
      // The top entry names it: a reader of the changelog knows which builds it describes.
      expect(unreleased).toContain(`Builds of this section report \`${packageVersion}\``);
    }
  });

  it("an operator-breaking change is flagged apart from the changes for API clients", () => {
    const breaking = /^### Breaking for operators\n([\s\S]*?)(?=^### |$(?![\s\S]))/m.exec(unreleased ?? "")?.[1] ?? "";
    // The store metrics' label rename breaks dashboards and alerts: it must be listed there, not among the rest.
    expect(breaking).toMatch(/`port`.*`store`/);
    expect((unreleased ?? "").replace(breaking, "")).not.toMatch(/label `port` is now `store`/);
  });

  it("the lockfile, the Kubernetes image tag and the client packages say the same version", () => {
    const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as {
      version: string;
      packages: Record<string, { version?: string }>;
    };
    expect([lock.version, lock.packages[""]?.version]).toEqual([packageVersion, packageVersion]);
    const base = parse(readFileSync("deploy/kubernetes/base/kustomization.yaml", "utf8")) as {
      images: { name: string; newTag: string }[];
    };
    expect(base.images).toEqual([{ name: "petstore/service", newTag: packageVersion }]);

    const root = JSON.parse(readFileSync("package.json", "utf8")) as { devDependencies: Record<string, string> };
    const client = JSON.parse(readFileSync("clients/typescript/package.json", "utf8")) as {
      name: string;
      version: string;
      dependencies: Record<string, string>;
    };
    expect(client.name).toBe("@petstore/client");
    expect(client.version).toBe(packageVersion);
    expect(client.dependencies["openapi-fetch"]).toBe(root.devDependencies["openapi-fetch"]);

    const pyproject = readFileSync("clients/python/pyproject.toml", "utf8");
    expect(/^name = "petstore-client"$/m.test(pyproject)).toBe(true);
    expect(/^version = "(.+)"$/m.exec(pyproject)?.[1]).toBe(pep440(packageVersion));
    const generated = readFileSync("clients/python/src/petstore_client/_generated.py", "utf8");
    expect(/^API_VERSION = "(.+)"$/m.exec(generated)?.[1]).toBe(packageVersion);
  });

  it("the running service says it: the OpenAPI documents' info.version and petstore_build_info", async () => {
    const t = await startTestPetstore();
    try {
      const publicDocument = await t.client.get("/openapi.json");
      const adminDocument = await t.client.get("/admin/openapi.json", { key: t.adminKey });
      const publicDocument31 = await t.client.get("/openapi-3.1.json");
      expect(publicDocument.body.info.version).toBe(packageVersion);
      expect(publicDocument31.body.info.version).toBe(packageVersion);
      expect(adminDocument.body.info.version).toBe(packageVersion);
    } finally {
      await t.close();
    }
    const metrics = await createMetrics().registry.metrics();
    expect(metrics).toMatch(new RegExp(`^petstore_build_info\\{version="${packageVersion}",`, "m"));
  });
});
