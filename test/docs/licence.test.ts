import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (path: string) => readFileSync(path, "utf8");
const licenseField = (path: string) => (JSON.parse(read(path)) as { license?: unknown }).license;

describe("the licence", () => {
  it("is MIT, in one LICENSE text at the root and in the client package, and in both package.json files", () => {
    const root = read("LICENSE");
    expect(root.split("\n")[0]).toBe("MIT License");
    expect(read("clients/typescript/LICENSE")).toBe(root);
    expect(licenseField("package.json")).toBe("MIT");
    expect(licenseField("clients/typescript/package.json")).toBe("MIT");
  });

  it("is named in the README", () => {
    expect(read("README.md")).toMatch(/\n## Licence\n\n[^\n]*\[MIT\]\(LICENSE\)/);
  });
});
