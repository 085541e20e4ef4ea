import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { DomainError } from "../../../core/shared/domain-error.ts";
import { compressAsset, type CompressedAsset } from "../compressed-asset.ts";
import { assetReply, route, type RouteServices } from "../route.ts";
import { consoleBundle } from "./console-bundle.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** A file's name carries its content's hash: a browser keeps it for a year and never asks again. */
const IMMUTABLE = "public, max-age=31536000, immutable";
const PAGE_CACHE_CONTROL = "public, no-cache";

interface Files {
  /** By served name (`console.<hash>.js`). */
  byName: Map<string, CompressedAsset>;
  script: string;
  style: string;
}

let files: Files | undefined;
/** The bundle, built (or read) and compressed once per process. */
const consoleFiles = (): Files => {
  if (files) return files;
  const bundle = consoleBundle();
  const named = (content: string, extension: string) =>
    `console.${createHash("sha256").update(content).digest("base64url").slice(0, 16)}.${extension}`;
  const script = named(bundle.js, "js");
  const style = named(bundle.css, "css");
  files = {
    script,
    style,
    byName: new Map([
      [script, compressAsset(bundle.js, "text/javascript; charset=utf-8", IMMUTABLE)],
      [style, compressAsset(bundle.css, "text/css; charset=utf-8", IMMUTABLE)],
    ]),
  };
  return files;
};

/** The request bodies the console's forms check in the browser, from the public document (the same zod schemas). */
const FORM_SCHEMAS = ["NewPet", "NewCategory", "InventoryUpdate"];
const formRules = (documents: RouteServices["documents"]): string => {
  const document = JSON.parse(documents.public().bodies.identity.toString("utf8")) as {
    components?: { schemas?: Record<string, { required?: string[]; properties?: unknown }> };
  };
  const rules = Object.fromEntries(
    FORM_SCHEMAS.map((name) => {
      const schema = document.components?.schemas?.[name];
      return [name, { required: schema?.required ?? [], properties: schema?.properties ?? {} }];
    }),
  );
  // Inside a <script type="application/json">: no "<" may end it early.
  return JSON.stringify(rules).replaceAll("<", "\\u003c");
};

let page: CompressedAsset | undefined;
/** The page names the hashed files and carries the forms' rules as data (not code: the CSP allows no inline script). */
const consolePage = (documents: RouteServices["documents"]): CompressedAsset => {
  if (page) return page;
  const { script, style } = consoleFiles();
  const html = readFileSync(join(here, "console.html"), "utf8")
    .replace("{{style}}", `/console/style/${style}`)
    .replace("{{script}}", `/console/script/${script}`)
    .replace("{{rules}}", formRules(documents));
  page = compressAsset(html, "text/html; charset=utf-8", PAGE_CACHE_CONTROL);
  return page;
};

/** Bundles and compresses the console at start-up rather than on the first visit. */
export const precompressConsoleAssets = (): string | undefined => {
  try {
    consoleFiles();
    return undefined;
  } catch (error) {
    // The API runs without its console (an installation without esbuild and without dist/): /console answers 500.
    return error instanceof Error ? error.message : String(error);
  }
};

/**
 * Only our own origin, and no inline script or style: the page calls this service and nothing else. Inline SVG
 * is markup, not an image load; Preact sets styles through the CSSOM, which `style-src` does not govern.
 */
const consolePolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** One route per kind of file (each with its own media type), at `/console/<kind>/console.<hash>.<extension>`. */
const fileRoute = (kind: "script" | "style", extension: "js" | "css", mediaType: string, summary: string) =>
  route({
    method: "GET",
    path: `/console/${kind}/{file}`,
    operationId: `getConsole${kind === "script" ? "Script" : "Style"}`,
    tag: "Console",
    summary,
    description:
      "Named by its content's hash and cached for a year (`immutable`); counts against no budget. The page names the current one.",
    access: "unlimited",
    input: {
      path: z.object({
        file: z
          .string()
          .regex(new RegExp(`^console\\.[\\w-]+\\.${extension}$`))
          .describe("The file's name, with its content's hash, as the page names it"),
      }),
    },
    output: { status: 200, description: "The file.", body: z.string(), mediaType, cacheable: true },
    errors: ["not_found"],
    handle: ({ path }) => {
      const asset = consoleFiles().byName.get(path.file);
      if (!asset)
        throw new DomainError("not_found", `No console file ${path.file}: reload the page for the current one`);
      return assetReply(asset);
    },
  });

export const consoleRoutes = [
  route({
    method: "GET",
    path: "/console",
    operationId: "getConsolePage",
    tag: "Console",
    summary: "The staff console",
    description:
      "An HTML page for staff: inventory, orders, pets and categories, live from `GET /events`. It loads one script and one stylesheet from this server, and counts against no budget (a static file, like the probes): the data it shows needs a key, and each call counts against that key. The API key is entered on the page and kept in the tab's session storage.",
    access: "unlimited",
    output: { status: 200, description: "The page.", body: z.string(), mediaType: "text/html", cacheable: true },
    handle: (_input, _actor, { documents }) =>
      assetReply(consolePage(documents), {
        "content-security-policy": consolePolicy,
        "referrer-policy": "no-referrer",
      }),
  }),
  fileRoute("script", "js", "text/javascript", "The console's code, Preact and htm included, in one script"),
  fileRoute("style", "css", "text/css", "The console's stylesheet"),
];
