import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startTestPetstore } from "../support/test-petstore.ts";

const packageVersion = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

describe("versions", () => {
  it("package.json's version is the OpenAPI documents' info.version", async () => {
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
  });

  it("the @petstore/client package has the service's version, and the openapi-fetch the root develops it with", () => {
    const root = JSON.parse(readFileSync("package.json", "utf8")) as { devDependencies: Record<string, string> };
    const client = JSON.parse(readFileSync("clients/typescript/package.json", "utf8")) as {
      name: string;
      version: string;
      dependencies: Record<string, string>;
    };
    expect(client.name).toBe("@petstore/client");
    expect(client.version).toBe(packageVersion);
    expect(client.dependencies["openapi-fetch"]).toBe(root.devDependencies["openapi-fetch"]);
  });

  it("the petstore-client Python package has the service's version, and its generated module says so", () => {
    const pyproject = readFileSync("clients/python/pyproject.toml", "utf8");
    expect(/^name = "petstore-client"$/m.test(pyproject)).toBe(true);
    expect(/^version = "(.+)"$/m.exec(pyproject)?.[1]).toBe(packageVersion);
    const generated = readFileSync("clients/python/src/petstore_client/_generated.py", "utf8");
    expect(/^API_VERSION = "(.+)"$/m.exec(generated)?.[1]).toBe(packageVersion);
  });

  it("CHANGELOG.md has an Unreleased section and a section for that version", () => {
    const changelog = readFileSync("CHANGELOG.md", "utf8");
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
    expect(changelog).toMatch(new RegExp(`^## \\[${packageVersion.replaceAll(".", "\\.")}\\]`, "m"));
  });
});
