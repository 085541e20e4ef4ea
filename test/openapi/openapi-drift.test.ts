import { spawnSync } from "node:child_process";
import { H3 } from "h3";
import { describe, expect, it } from "vitest";
import { openApiDriftCheck, takeRecordedDrift } from "../support/openapi-drift.ts";
import { TestClient } from "../support/test-petstore.ts";
import { petBody } from "../support/bodies.ts";

const rateLimited = { "x-ratelimit-limit": "60", "x-ratelimit-remaining": "59", "x-ratelimit-reset": "1788220860" };
const jsonHeaders = (extra: Record<string, string> = {}) =>
  new Headers({ "content-type": "application/json; charset=utf-8", ...rateLimited, ...extra });
const pet = petBody({ id: 1, name: "Rex", categoryId: 1, status: "available" });

describe("the OpenAPI drift check", () => {
  const check = openApiDriftCheck();

  it("passes a response the document describes", () => {
    expect(
      check.check({ method: "GET", path: "/pets?limit=1" }, { status: 200, headers: jsonHeaders(), body: [pet] }),
    ).toEqual([]);
  });

  it("fails on a status the operation does not document", () => {
    const problems = check.check(
      { method: "GET", path: "/pets" },
      { status: 418, headers: jsonHeaders(), body: { code: "teapot", message: "", status: 418 } },
    );
    expect(problems).toEqual([expect.stringContaining("status 418 is not documented for GET /pets")]);
  });

  it("fails on a body that breaks the schema, an undocumented field included", () => {
    const wrongType = check.check(
      { method: "GET", path: "/pets/1" },
      { status: 200, headers: jsonHeaders(), body: { ...pet, id: "1" } },
    );
    expect(wrongType.join()).toMatch(/does not match the documented schema/);
    const extraField = check.check(
      { method: "POST", path: "/store/orders" },
      {
        status: 201,
        headers: jsonHeaders({ location: "/store/orders/1" }),
        body: { id: 1, petId: 1, quantity: 1, complete: false, ownerKeyId: 3 },
      },
    );
    expect(extraField.join()).toMatch(/additional properties/);
  });

  it("fails on a missing documented header and on an error code not documented for that status", () => {
    const noLocation = check.check(
      { method: "POST", path: "/categories" },
      { status: 201, headers: jsonHeaders(), body: { id: 1, name: "Dogs" } },
    );
    expect(noLocation.join()).toMatch(/missing documented header Location/);
    const noRateLimit = check.check(
      { method: "GET", path: "/categories/1" },
      {
        status: 200,
        headers: new Headers({ "content-type": "application/json" }),
        body: { id: 1, name: "Dogs" },
      },
    );
    expect(noRateLimit.join()).toMatch(/missing documented header X-RateLimit-Limit/);
    const wrongCode = check.check(
      { method: "DELETE", path: "/categories/1" },
      {
        status: 409,
        headers: jsonHeaders(),
        body: { code: "pet_has_open_orders", message: "x", status: 409 },
      },
    );
    expect(wrongCode.join()).toMatch(
      /code pet_has_open_orders is not documented for 409 \(documented: category_in_use\)/,
    );
  });

  it("holds requests outside the document to the conventions: 404/405 with the Error body", () => {
    const notFound = { code: "not_found", message: "No resource", status: 404 };
    expect(
      check.check({ method: "GET", path: "/nowhere" }, { status: 404, headers: jsonHeaders(), body: notFound }),
    ).toEqual([]);
    expect(
      check.check({ method: "GET", path: "/nowhere" }, { status: 200, headers: jsonHeaders(), body: {} }).join(),
    ).toMatch(/undocumented path answered 200/);
    const noAllow = check.check(
      { method: "PATCH", path: "/pets" },
      {
        status: 405,
        headers: jsonHeaders(),
        body: { code: "method_not_allowed", message: "no", status: 405 },
      },
    );
    expect(noAllow.join()).toMatch(/405 without an Allow header/);
  });

  it("is wired into every TestClient response by the setup file", async () => {
    // An app that answers what the document does not describe: the observer records it, and the
    // setup file's afterEach would fail this test with it; here we take it first to look at it.
    const rogue = new H3().get("/pets", () => new Response("I'm a teapot", { status: 418 }));
    await new TestClient(rogue).get("/pets");
    expect(takeRecordedDrift()).toEqual([
      expect.stringContaining("GET /pets → 418: status 418 is not documented for GET /pets"),
    ]);
  });

  it("fails the test that produced an undocumented response (a child vitest run)", () => {
    const run = spawnSync(
      process.execPath,
      [
        "node_modules/vitest/vitest.mjs",
        "run",
        "--config",
        "test/openapi/fixtures/vitest.fixture.config.ts",
        "--reporter=default",
      ],
      { encoding: "utf8", env: { ...process.env, CI: "true", NO_COLOR: "1" }, timeout: 60_000 },
    );
    const output = run.stdout + run.stderr;
    expect(run.status, output).toBe(1);
    expect(output).toMatch(/OpenAPI drift: the document does not describe 1 response\(s\) of this test/);
    expect(output).toMatch(/GET \/pets → 418: status 418 is not documented for GET \/pets/);
    expect(output).toMatch(/1 failed/);
  });
});
