import { describe, expect, it } from "vitest";
import { usePetstore } from "../support/http-fixtures.ts";

describe("GET /console", () => {
  const { t } = usePetstore({ keys: false });
  const identity = { headers: { "accept-encoding": "identity" } };

  it("serves the page without a key, with its own CSP: scripts and styles from this origin only, nothing inline", async () => {
    const res = await t.client.get("/console", identity);

    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const body = res.body as string;
    expect(body).toMatch(/<script type="module" src="\/console\/script\/console\.[\w-]+\.js"><\/script>/);
    // The only script without a src is data (the forms' rules), which no browser runs.
    expect([...body.matchAll(/<script(?![^>]*\bsrc=)[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script type="application/json" id="form-rules">',
    ]);
    expect(body).not.toMatch(/https?:\/\//);
  });

  it("carries the API's rules for the forms, as the public document states them", async () => {
    const body = (await t.client.get("/console", identity)).body as string;
    const rules = JSON.parse(/<script type="application\/json" id="form-rules">([^<]*)<\/script>/.exec(body)![1]!);

    expect(rules.NewPet.required).toEqual(expect.arrayContaining(["name", "categoryId"]));
    expect(rules.NewPet.properties.name).toMatchObject({ type: "string", minLength: 1, maxLength: 100 });
    expect(rules.InventoryUpdate.properties.quantity).toMatchObject({ minimum: 0, maximum: 1_000_000 });
    expect(rules.NewCategory.properties.name).toMatchObject({ maxLength: 100 });
  });

  it("loads one script and one stylesheet, hashed, immutable, compressed, and never counted against a budget", async () => {
    const page = (await t.client.get("/console", identity)).body as string;
    const files = [...page.matchAll(/(?:src|href)="(\/console\/(?:script|style)\/[^"]+)"/g)].map((m) => m[1]!);

    expect(files).toHaveLength(2);
    expect(files.map((f) => f.replace(/\.[\w-]+\.(js|css)$/, ".$1"))).toEqual([
      "/console/style/console.css",
      "/console/script/console.js",
    ]);
    for (const path of files) {
      const res = await t.client.get(path, identity);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("x-ratelimit-limit"), path).toBeNull();
      const br = await t.client.get(path, { headers: { "accept-encoding": "br" } });
      expect(br.headers.get("content-encoding")).toBe("br");
    }
    const script = (await t.client.get(files[1]!, identity)).body as string;
    // One file: Preact and htm are inside, nothing is imported from elsewhere.
    expect(script).not.toMatch(/\bimport\s*[\w{*"]/);
    expect(script.length).toBeGreaterThan(10_000);
  });

  it("answers any number of page loads from one address: the page counts against no budget either", async () => {
    for (let visit = 0; visit < 70; visit++) {
      const res = await t.client.get("/console", identity);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });

  it("answers 404 for a file the page does not name (an older build's), and 400 for a name no build makes", async () => {
    const stale = await t.client.get("/console/script/console.AAAAAAAAAAAAAAAA.js", identity);
    expect(stale.status).toBe(404);
    expect(stale.body).toMatchObject({ code: "not_found", status: 404 });
    const odd = await t.client.get("/console/script/preact.mjs", identity);
    expect(odd.status).toBe(400);
    expect(odd.body).toMatchObject({ code: "validation_failed" });
  });
});
