import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { rawText, route } from "../route.ts";

const OpenApiJson = z.looseObject({
  openapi: z.string().meta({ description: "3.0.3" }),
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
  "swagger-ui-bundle.js": { type: "text/javascript; charset=utf-8", file: () => join(swaggerUiDir(), "swagger-ui-bundle.js") },
  "swagger-ui.css": { type: "text/css; charset=utf-8", file: () => join(swaggerUiDir(), "swagger-ui.css") },
  "docs.js": { type: "text/javascript; charset=utf-8", file: () => join(here, "assets", "docs.js") },
  "docs.css": { type: "text/css; charset=utf-8", file: () => join(here, "assets", "docs.css") },
};

/** Read once per process, on first use: ~1.5 MB that most test runs never ask for. */
const fileCache = new Map<string, string>();
const readCached = (path: string): string => {
  let content = fileCache.get(path);
  if (content === undefined) {
    content = readFileSync(path, "utf8");
    fileCache.set(path, content);
  }
  return content;
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

const documentHeaders = { "cache-control": "no-cache" };

/** The reference: both OpenAPI documents (built once, from the route table) and the interactive page with its assets. */
export const referenceRoutes = [
  route({
    method: "GET",
    path: "/openapi.json",
    operationId: "getOpenApiDocument",
    tag: "Reference",
    summary: "The public OpenAPI document",
    description: "The OpenAPI 3.0.3 document of the public API (tags Pets and Store).",
    access: "public",
    output: { status: 200, description: "The OpenAPI 3.0.3 document.", body: OpenApiJson },
    handle: (_input, _actor, { documents }) => rawText(documents.public, "application/json; charset=utf-8", documentHeaders),
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
    handle: (_input, _actor, { documents }) => rawText(documents.admin, "application/json; charset=utf-8", documentHeaders),
  }),
  route({
    method: "GET",
    path: "/docs",
    operationId: "getApiReferencePage",
    tag: "Reference",
    summary: "The interactive API reference",
    description: "An HTML page (Swagger UI) that loads everything from this server.",
    access: "public",
    output: { status: 200, description: "The page.", body: z.string(), mediaType: "text/html" },
    handle: () =>
      rawText(readCached(join(here, "assets", "docs.html")), "text/html; charset=utf-8", {
        "content-security-policy": docsPagePolicy,
        "cache-control": "no-cache",
      }),
  }),
  ...Object.entries(assets).map(([name, asset]) =>
    route({
      method: "GET",
      path: `/docs/assets/${name}`,
      operationId: `getApiReferenceAsset_${name.replace(/\W/g, "_")}`,
      tag: "Reference",
      summary: `Reference page asset ${name}`,
      access: "public",
      output: { status: 200, description: "The file.", body: z.string(), mediaType: asset.type.split(";")[0] as string },
      handle: () => rawText(readCached(asset.file()), asset.type, { "cache-control": "public, max-age=3600" }),
    }),
  ),
];
