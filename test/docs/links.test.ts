import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  anchorsOf,
  brokenDocumentReferences,
  brokenLinks,
  documentationFiles,
  headingSlug,
} from "../support/markdown-links.ts";

const CODE = ["core", "adapters", "bootstrap", "bench", "test", ".ci", "docker"];
/** This suite and its checker name made-up documents on purpose. */
const CHECKER = ["test/docs/links.test.ts", "test/support/markdown-links.ts"];

describe("links in README.md and docs/", () => {
  it("all resolve: every relative link names an existing file, and every anchor a heading of it", () => {
    const files = documentationFiles(process.cwd());
    expect(files).toContain("README.md");
    expect(files).toContain("docs/consistency.md");
    expect(brokenLinks(process.cwd(), files)).toEqual([]);
  });

  it("and every docs/ path the code names exists, with its heading when it names one", () => {
    expect(brokenDocumentReferences(process.cwd(), CODE, CHECKER)).toEqual([]);
  });
});

describe("the link checker", () => {
  const root = mkdtempSync(join(tmpdir(), "petstore-links-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("makes GitHub's anchors, punctuation dropped and repeats numbered", () => {
    expect(headingSlug("The test engine: FerretDB v2 on PostgreSQL + DocumentDB")).toBe(
      "the-test-engine-ferretdb-v2-on-postgresql--documentdb",
    );
    expect(headingSlug("Safe retries: `Idempotency-Key`")).toBe("safe-retries-idempotency-key");
    expect(headingSlug("Today's figures")).toBe("todays-figures");
    expect([...anchorsOf("# A\n## Notes\n```sh\n# not a heading\n```\n## Notes\n")]).toEqual(["a", "notes", "notes-1"]);
  });

  it("reports a missing file, a missing heading and an anchor into a folder, and passes what resolves", () => {
    mkdirSync(join(root, "docs", "decisions"), { recursive: true });
    writeFileSync(join(root, "docs", "api.md"), "# API\n\n## Conditional requests\n");
    writeFileSync(
      join(root, "README.md"),
      [
        "# Petstore",
        "[ok](docs/api.md#conditional-requests) [self](#petstore) [web](https://example.com/x#y) [out](../shared/PRODUCT.md)",
        "[gone](docs/missing.md) [stale](docs/api.md#http-semantics) [folder](docs/decisions#x)",
        "```sh",
        "echo '[in code](docs/nowhere.md)'",
        "```",
        "`[in a code span](docs/nowhere.md)`",
      ].join("\n"),
    );
    expect(brokenLinks(root, documentationFiles(root))).toEqual([
      "README.md: docs/missing.md (no such file)",
      "README.md: docs/api.md#http-semantics (no such heading)",
      "README.md: docs/decisions#x (an anchor into something that is not a Markdown file)",
    ]);
  });

  it("reports a docs/ path or heading named in code that does not exist, and leaves URL paths alone", () => {
    mkdirSync(join(root, "core"), { recursive: true });
    mkdirSync(join(root, "docs"), { recursive: true });
    writeFileSync(join(root, "docs", "api.md"), "# API\n\n## Conditional requests\n");
    writeFileSync(
      join(root, "core", "place-order.ts"),
      [
        "// Crash points: docs/api.md#conditional-requests.",
        "// Crash points: docs/api.md#crash-points, docs/consistency.md.",
        'const assets = "/docs/assets/swagger-ui.css";',
      ].join("\n"),
    );
    expect(brokenDocumentReferences(root, ["core"])).toEqual([
      "core/place-order.ts:2: docs/api.md#crash-points",
      "core/place-order.ts:2: docs/consistency.md",
    ]);
  });
});
