import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chooseEncoding } from "../../adapters/http/compressed-asset.ts";
import { notifyResponseObservers, startTestPetstore, type TestPetstore } from "../support/test-petstore.ts";

/** app.fetch with the raw body bytes (the client's text() would mangle compressed ones). */
const fetchRaw = async (t: TestPetstore, path: string, headers: Record<string, string> = {}, method = "GET") => {
  const response = await t.petstore.app.fetch(new Request(`http://petstore.test${path}`, { method, headers }));
  const body = Buffer.from(await response.arrayBuffer());
  const encoding = response.headers.get("content-encoding");
  const text = (
    encoding === "br" ? brotliDecompressSync(body) : encoding === "gzip" ? gunzipSync(body) : body
  ).toString("utf8");
  const json = response.headers.get("content-type")?.includes("json");
  notifyResponseObservers(
    { method, path },
    { status: response.status, headers: response.headers, body: json && text ? JSON.parse(text) : text },
  );
  return { status: response.status, headers: response.headers, body };
};

describe("Accept-Encoding negotiation", () => {
  it.each([
    [null, "identity"],
    ["", "identity"],
    ["gzip", "gzip"],
    ["gzip, deflate, br", "br"],
    ["br;q=0, gzip", "gzip"],
    ["BR;q=0.5, gzip;q=1", "br"],
    ["*", "br"],
    ["*;q=0, gzip", "gzip"],
    ["gzip;q=0, br;q=0", "identity"],
    ["deflate", "identity"],
  ])("%j → %s", (header, expected) => {
    expect(chooseEncoding(header)).toBe(expected);
  });
});

describe("/openapi.json and /docs assets: compressed and cacheable", () => {
  let t: TestPetstore;
  beforeAll(async () => {
    t = await startTestPetstore();
  });
  afterAll(() => t.close());

  it.each([
    "/openapi.json",
    "/openapi-3.1.json",
    "/docs",
    "/docs/assets/swagger-ui-bundle.js",
    "/docs/assets/swagger-ui.css",
    "/docs/assets/docs.js",
  ])(
    "%s: br and gzip decode to the identity body; Vary, Content-Length and a strong ETag per encoding",
    async (path) => {
      const plain = await fetchRaw(t, path);
      const br = await fetchRaw(t, path, { "accept-encoding": "gzip, deflate, br" });
      const gzip = await fetchRaw(t, path, { "accept-encoding": "gzip" });
      expect([plain.status, br.status, gzip.status]).toEqual([200, 200, 200]);
      expect(plain.headers.get("content-encoding")).toBeNull();
      expect(br.headers.get("content-encoding")).toBe("br");
      expect(gzip.headers.get("content-encoding")).toBe("gzip");
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
      expect(br.body.length).toBeLessThan(plain.body.length * 0.6);
      for (const r of [plain, br, gzip]) {
        expect(r.headers.get("vary")).toMatch(/Accept-Encoding/);
        expect(r.headers.get("content-length")).toBe(String(r.body.length));
        expect(r.headers.get("etag")).toMatch(/^"[\w-]+"$/);
      }
      expect(new Set([plain, br, gzip].map((r) => r.headers.get("etag"))).size).toBe(3);
    },
  );

  it("answers 304 without a body to If-None-Match with the current tag, and 200 to a stale one", async () => {
    for (const path of ["/openapi.json", "/docs/assets/swagger-ui-bundle.js"]) {
      const first = await fetchRaw(t, path, { "accept-encoding": "br" });
      const etag = first.headers.get("etag")!;
      const again = await fetchRaw(t, path, { "accept-encoding": "br", "if-none-match": `"stale", ${etag}` });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe(first.headers.get("cache-control"));
      expect((await fetchRaw(t, path, { "accept-encoding": "br", "if-none-match": '"stale"' })).status).toBe(200);
      // The tag names the br bytes: a client asking for gzip gets the gzip body, not a 304.
      expect((await fetchRaw(t, path, { "accept-encoding": "gzip", "if-none-match": etag })).status).toBe(200);
    }
  });

  it("caches assets for a day and has the document and the page revalidated every time", async () => {
    expect((await fetchRaw(t, "/docs/assets/swagger-ui-bundle.js")).headers.get("cache-control")).toBe(
      "public, max-age=86400",
    );
    expect((await fetchRaw(t, "/openapi.json")).headers.get("cache-control")).toBe("public, no-cache");
    const page = await fetchRaw(t, "/docs", { "accept-encoding": "gzip" });
    expect(page.headers.get("cache-control")).toBe("public, no-cache");
    expect(page.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
  });

  it("still counts these requests against the client's limit (the rate-limit headers are there, 304 too)", async () => {
    const first = await fetchRaw(t, "/openapi.json");
    const cached = await fetchRaw(t, "/openapi.json", { "if-none-match": first.headers.get("etag")! });
    expect(cached.status).toBe(304);
    expect(Number(cached.headers.get("x-ratelimit-remaining"))).toBe(
      Number(first.headers.get("x-ratelimit-remaining")) - 1,
    );
  });
});
