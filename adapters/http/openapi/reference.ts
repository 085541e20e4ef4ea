import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { compressAsset, type CompressedAsset } from "../compressed-asset.ts";
import { assetRoutes } from "../asset-routes.ts";
import { assetReply, rawText, route } from "../route.ts";

const OpenApiJson = z.looseObject({
  openapi: z.string().meta({ description: "3.0.3 or 3.1.0" }),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.looseObject({}),
});

const here = dirname(fileURLToPath(import.meta.url));
const swaggerUiDir = (): string => dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

interface Asset {
  type: string;
  file: () => string;
}

/** The page's assets: Swagger UI's bundle from its npm package, and our own initializer. */
const assets: Record<string, Asset> = {
  "swagger-ui-bundle.js": {
    type: "text/javascript; charset=utf-8",
    file: () => join(swaggerUiDir(), "swagger-ui-bundle.js"),
  },
  "swagger-ui.css": { type: "text/css; charset=utf-8", file: () => join(swaggerUiDir(), "swagger-ui.css") },
  "docs.js": { type: "text/javascript; charset=utf-8", file: () => join(here, "assets", "docs.js") },
  "docs.css": { type: "text/css; charset=utf-8", file: () => join(here, "assets", "docs.css") },
};

/** Assets change only with a release, yet their names carry no version: cached a day, then revalidated (ETag). */
const ASSET_CACHE_CONTROL = "public, max-age=86400";
/** The document and the page: revalidated on every use (a 304 when unchanged). */
export const DOCUMENT_CACHE_CONTROL = "public, no-cache";
export const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Files read and compressed (br, gzip) once per process: at start-up by `precompressReferenceAssets`
 * (bootstrap/main.ts), else on first use, so the files most test runs never ask for cost them nothing. They are
 * the package's own files, the same for every app.
 */
const fileCache = new Map<string, CompressedAsset>();
const compressedFile = (path: string, type: string, cacheControl: string): CompressedAsset => {
  let asset = fileCache.get(path);
  if (asset === undefined) {
    asset = compressAsset(readFileSync(path), type, cacheControl);
    fileCache.set(path, asset);
  }
  return asset;
};
const pagePath = () => join(here, "assets", "docs.html");
const pageType = "text/html; charset=utf-8";

export const precompressReferenceAssets = (): void => {
  compressedFile(pagePath(), pageType, DOCUMENT_CACHE_CONTROL);
  for (const asset of Object.values(assets)) compressedFile(asset.file(), asset.type, ASSET_CACHE_CONTROL);
};

/** Only our own origin: the page loads and calls nothing else, whatever the bundle might try. */
const docsPagePolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The reference: both OpenAPI documents (built once, from the route table) and the interactive page with its assets. */
export const referenceRoutes = [
  route({
    method: "GET",
    path: "/openapi.json",
    operationId: "getOpenApiDocument",
    tag: "Reference",
    summary: "The public OpenAPI document",
    description: "The OpenAPI 3.0.3 document of the public API (tags Pets, Store and Account).",
    access: "public",
    output: { status: 200, description: "The OpenAPI 3.0.3 document.", body: OpenApiJson, cacheable: true },
    handle: (_input, _actor, { documents }) => assetReply(documents.public()),
  }),
  route({
    method: "GET",
    path: "/openapi-3.1.json",
    operationId: "getOpenApi31Document",
    tag: "Reference",
    summary: "The public OpenAPI document, in OpenAPI 3.1",
    description:
      "The same operations and schemas as `/openapi.json`, in OpenAPI 3.1.0 (JSON Schema 2020-12), with every event the service " +
      "sends to webhook subscriptions under `webhooks`: its payload and the Standard Webhooks signature headers.",
    access: "public",
    output: { status: 200, description: "The OpenAPI 3.1.0 document.", body: OpenApiJson, cacheable: true },
    handle: (_input, _actor, { documents }) => assetReply(documents.public31()),
  }),
  route({
    method: "GET",
    path: "/admin/openapi.json",
    operationId: "getAdminOpenApiDocument",
    tag: "Reference",
    summary: "The operators' OpenAPI document",
    description: "This document: admin operations, probes and the reference endpoints.",
    access: "api-keys:manage",
    output: { status: 200, description: "The OpenAPI 3.0.3 document.", body: OpenApiJson },
    handle: (_input, _actor, { documents }) => rawText(documents.admin, JSON_TYPE),
  }),
  route({
    method: "GET",
    path: "/docs",
    operationId: "getApiReferencePage",
    tag: "Reference",
    summary: "The interactive API reference",
    description: "An HTML page (Swagger UI) that loads everything from this server.",
    access: "public",
    output: { status: 200, description: "The page.", body: z.string(), mediaType: "text/html", cacheable: true },
    handle: () =>
      assetReply(compressedFile(pagePath(), pageType, DOCUMENT_CACHE_CONTROL), {
        "content-security-policy": docsPagePolicy,
      }),
  }),
  ...assetRoutes(
    { path: "/docs/assets", operationId: "getApiReferenceAsset", tag: "Reference", summary: "Reference page asset" },
    assets,
    (_, asset) => compressedFile(asset.file(), asset.type, ASSET_CACHE_CONTROL),
  ),
];
