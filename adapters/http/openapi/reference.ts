import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { PublicEndpoint } from "../app.ts";
import { compressAsset, respondWithAsset, type CompressedAsset } from "../compressed-asset.ts";
import type { Route } from "../route.ts";
import { buildOpenApiDocuments, type DescribedOperation, type DocumentOptions, type OpenApiDocuments } from "./document.ts";

/** The reference as the app serves it: documents built once, the endpoints that serve them and the page. */
export interface ApiReference {
  documents: OpenApiDocuments;
  /** GET /openapi.json, GET /docs and the page's assets: public, limited per client address. */
  publicEndpoints: PublicEndpoint[];
  /** GET /admin/openapi.json: keyed, `api-keys:manage`. */
  routes: Route[];
}

const OpenApiJson = z.looseObject({
  openapi: z.string().meta({ description: "3.0.3" }),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.looseObject({}),
});

/** The probes live in app.ts, outside the pipeline; this is what the operators' document says about them. */
export const probeOperations: DescribedOperation[] = [
  {
    method: "GET",
    path: "/healthz",
    operationId: "getHealth",
    access: "unlimited",
    docs: {
      tag: "Health",
      summary: "Liveness",
      description: "200 while the process is alive.",
      success: { status: 200, description: "Alive.", body: z.object({ status: z.literal("ok") }) },
    },
  },
  {
    method: "GET",
    path: "/readyz",
    operationId: "getReadiness",
    access: "unlimited",
    docs: {
      tag: "Health",
      summary: "Readiness",
      description: "200 when the store answers, else 503 `service_unavailable`; 503 too from SIGTERM on, while the service drains.",
      success: { status: 200, description: "Ready.", body: z.object({ status: z.literal("ready") }) },
      errors: ["service_unavailable"],
    },
  },
];

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

/** Assets change only with a release, yet their names carry no version: cached a day, then revalidated (ETag). */
const ASSET_CACHE_CONTROL = "public, max-age=86400";
/** The document and the page: revalidated on every use (a 304 when unchanged). */
const DOCUMENT_CACHE_CONTROL = "public, no-cache";

/**
 * Read and compressed (br, gzip) once per process: at start-up by `precompressReferenceAssets` (bootstrap/main.ts),
 * else on first use, so the ~1.7 MB that most test runs never ask for costs them nothing.
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

const jsonText = (text: string): Response =>
  new Response(text, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-cache" } });
const jsonType = "application/json; charset=utf-8";

/** Documents are built once per process and per deprecation dates: every test app reuses them. */
const documentCache = new Map<string, OpenApiDocuments>();
const compressedDocuments = new Map<string, CompressedAsset>();

/**
 * Builds the OpenAPI documents from the route table (plus this module's own endpoints and the probes),
 * and the endpoints that serve them. Called once at start-up.
 */
export const createApiReference = (apiRoutes: Route[], options: DocumentOptions): ApiReference => {
  let adminJson = "";
  let publicDocument: CompressedAsset | undefined;
  const adminDocumentRoute: Route = {
    method: "GET",
    path: "/admin/openapi.json",
    operationId: "getAdminOpenApiDocument",
    access: { permission: "api-keys:manage" },
    docs: {
      tag: "Reference",
      summary: "The operators' OpenAPI document",
      description: "This document: admin operations, probes and the reference endpoints.",
      success: { status: 200, description: "The OpenAPI 3.0.3 document.", body: OpenApiJson },
    },
    handle: () => jsonText(adminJson),
  };
  const publicEndpoints: PublicEndpoint[] = [
    {
      path: "/openapi.json",
      operationId: "getOpenApiDocument",
      docs: {
        tag: "Reference",
        summary: "The public OpenAPI document",
        description: "The OpenAPI 3.0.3 document of the public API (tags Pets and Store).",
        success: { status: 200, description: "The OpenAPI 3.0.3 document.", body: OpenApiJson, cacheable: true },
      },
      handle: (event) => respondWithAsset(publicDocument!, event.req),
    },
    {
      path: "/docs",
      operationId: "getApiReferencePage",
      docs: {
        tag: "Reference",
        summary: "The interactive API reference",
        description: "An HTML page (Swagger UI) that loads everything from this server.",
        success: { status: 200, description: "The page.", body: z.string(), mediaTypes: ["text/html"], cacheable: true },
      },
      handle: (event) =>
        respondWithAsset(compressedFile(pagePath(), pageType, DOCUMENT_CACHE_CONTROL), event.req, {
          "content-security-policy": docsPagePolicy,
        }),
    },
    ...Object.entries(assets).map(
      ([name, asset]): PublicEndpoint => ({
        path: `/docs/assets/${name}`,
        operationId: `getApiReferenceAsset_${name.replace(/\W/g, "_")}`,
        docs: {
          tag: "Reference",
          summary: `Reference page asset ${name}`,
          success: { status: 200, description: "The file.", body: z.string(), mediaTypes: [asset.type.split(";")[0] as string], cacheable: true },
        },
        handle: (event) => respondWithAsset(compressedFile(asset.file(), asset.type, ASSET_CACHE_CONTROL), event.req),
      }),
    ),
  ];

  const key = `${options.deprecation.deprecatedAt.toISOString()}|${options.deprecation.sunsetAt.toISOString()}`;
  let documents = documentCache.get(key);
  if (!documents) {
    documents = buildOpenApiDocuments(
      [
        ...[...apiRoutes, adminDocumentRoute].map(({ method, path, operationId, access, docs }) => ({ method, path, operationId, access, docs })),
        ...publicEndpoints.map((endpoint) => describePublic(endpoint)),
        ...probeOperations,
      ],
      options,
    );
    documentCache.set(key, documents);
  }
  publicDocument = compressedDocuments.get(key);
  if (!publicDocument) {
    publicDocument = compressAsset(JSON.stringify(documents.public), jsonType, DOCUMENT_CACHE_CONTROL);
    compressedDocuments.set(key, publicDocument);
  }
  adminJson = JSON.stringify(documents.admin);
  return { documents, publicEndpoints, routes: [adminDocumentRoute] };
};

const describePublic = (endpoint: PublicEndpoint): DescribedOperation => {
  if (!endpoint.docs || !endpoint.operationId) throw new Error(`Public endpoint ${endpoint.path} has no docs`);
  return { method: "GET", path: endpoint.path, operationId: endpoint.operationId, access: "public", docs: endpoint.docs };
};
