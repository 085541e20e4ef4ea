import { describe, expect, it } from "vitest";
import { usePetstore } from "../support/http-fixtures.ts";

describe("GET /console", () => {
  const { t } = usePetstore({ keys: false });

  it("serves the page without a key, with its own CSP: scripts and styles from this origin only, nothing inline", async () => {
    const res = await t.client.get("/console", { headers: { "accept-encoding": "identity" } });

    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(res.body).toContain('<script type="module" src="/console/assets/console.js"></script>');
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(res.body).not.toMatch(/https?:\/\//);
  });

  it("serves every asset the page and its modules import, compressed and ETagged, 304 when current", async () => {
    const page = (await t.client.get("/console", { headers: { "accept-encoding": "identity" } })).body as string;
    const queue = [...page.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    const seen = new Set<string>();
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const res = await t.client.get(path, { headers: { "accept-encoding": "identity" } });
      expect(res.status, path).toBe(200);
      // Every import of a module is a path on this server: no bare name ("preact") a browser could not resolve.
      for (const [, target] of (res.body as string).matchAll(
        /(?:^|[;\s}])import\s*(?:[\w{},*\s]+from\s*)?"([^"]+)"/g,
      )) {
        expect(target, `${path} imports ${target}`).toMatch(/^\.\//);
        queue.push(`/console/assets/${target!.slice(2)}`);
      }
    }
    expect([...seen].sort()).toEqual(
      [
        "api.js",
        "catalog.js",
        "console.css",
        "console.js",
        "events.js",
        "hooks.mjs",
        "htm.mjs",
        "inventory.js",
        "live.js",
        "notices.js",
        "orders.js",
        "paging.js",
        "preact.mjs",
        "rules.js",
        "sign-in.js",
        "ui.js",
      ].map((name) => `/console/assets/${name}`),
    );
    // Our own modules are type-checked (`npm run typecheck` runs tsc on them with checkJs).
    for (const path of [...seen].filter((p) => p.endsWith(".js"))) {
      const res = await t.client.get(path, { headers: { "accept-encoding": "identity" } });
      expect((res.body as string).startsWith("// @ts-check\n"), path).toBe(true);
    }

    const br = await t.client.get("/console/assets/preact.mjs", { headers: { "accept-encoding": "br" } });
    expect(br.headers.get("content-encoding")).toBe("br");
    const etag = br.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]+-br"$/);
    const again = await t.client.get("/console/assets/preact.mjs", {
      headers: { "accept-encoding": "br", "if-none-match": etag },
    });
    expect(again.status).toBe(304);
  });
});
