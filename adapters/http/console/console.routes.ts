import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { compressAsset, type CompressedAsset } from "../compressed-asset.ts";
import { assetRoutes } from "../asset-routes.ts";
import { assetReply, route } from "../route.ts";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
/** A file of an installed package, relative to the folder of its main file (htm exports no package.json). */
const packageFile = (name: string, path: string): string => join(dirname(require.resolve(name)), path);

const JS = "text/javascript; charset=utf-8";

/** Our own modules, one per screen and concern (console.js is the entry); the folder's type shims are not served. */
const ownModules = readdirSync(join(here, "assets"))
  .filter((name) => name.endsWith(".js"))
  .sort();

/**
 * The console's files: our own, and Preact and htm as the ES modules their packages ship. Preact's hooks import
 * the bare name "preact", which a browser resolves only through an import map (an inline script the page's CSP
 * forbids): that one import is pointed at the served file instead.
 */
const assets: Record<string, { type: string; read: () => string | Buffer }> = {
  ...Object.fromEntries(
    ownModules.map((name) => [name, { type: JS, read: () => readFileSync(join(here, "assets", name)) }]),
  ),
  "console.css": { type: "text/css; charset=utf-8", read: () => readFileSync(join(here, "assets", "console.css")) },
  "preact.mjs": { type: JS, read: () => readFileSync(packageFile("preact", "preact.mjs")) },
  "hooks.mjs": {
    type: JS,
    read: () =>
      readFileSync(packageFile("preact/hooks", "hooks.mjs"), "utf8").replaceAll(
        /from\s*"preact"/g,
        'from"./preact.mjs"',
      ),
  },
  "htm.mjs": { type: JS, read: () => readFileSync(packageFile("htm", "htm.mjs")) },
};

/** Cached a day, then revalidated by ETag: the names carry no version. */
const ASSET_CACHE_CONTROL = "public, max-age=86400";
const PAGE_CACHE_CONTROL = "public, no-cache";
const pageType = "text/html; charset=utf-8";

const cache = new Map<string, CompressedAsset>();
const compressed = (name: string, read: () => string | Buffer, type: string, cacheControl: string): CompressedAsset => {
  let asset = cache.get(name);
  if (asset === undefined) {
    asset = compressAsset(read(), type, cacheControl);
    cache.set(name, asset);
  }
  return asset;
};
const page = () =>
  compressed("console.html", () => readFileSync(join(here, "assets", "console.html")), pageType, PAGE_CACHE_CONTROL);

/** Compresses the page and its assets at start-up rather than on the first visit. */
export const precompressConsoleAssets = (): void => {
  page();
  for (const [name, asset] of Object.entries(assets)) compressed(name, asset.read, asset.type, ASSET_CACHE_CONTROL);
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

export const consoleRoutes = [
  route({
    method: "GET",
    path: "/console",
    operationId: "getConsolePage",
    tag: "Console",
    summary: "The staff console",
    description:
      "An HTML page for staff: inventory, orders, pets and categories, live from `GET /events`. It loads everything from this server; the API key is entered on the page and kept in the tab's session storage.",
    access: "public",
    output: { status: 200, description: "The page.", body: z.string(), mediaType: "text/html", cacheable: true },
    handle: () => assetReply(page(), { "content-security-policy": consolePolicy, "referrer-policy": "no-referrer" }),
  }),
  ...assetRoutes(
    { path: "/console/assets", operationId: "getConsoleAsset", tag: "Console", summary: "Console asset" },
    assets,
    (name, asset) => compressed(name, asset.read, asset.type, ASSET_CACHE_CONTROL),
  ),
];
