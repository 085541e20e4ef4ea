/**
 * @petstore/client against the running service, on Node (its sources) and in headless Chromium (its build, as
 * `npm pack` makes it, loaded as ES modules with an import map): `/me`, a typed walk to an order, and `events()`
 * from the first event after the stream opened to a resumption with Last-Event-ID that repeats nothing; on Node also
 * the service's `reset` (an id beyond the log's end) and `end` (the key revoked).
 * Chromium is /usr/bin/chromium (Debian's `chromium`; `.ci/install-browser.sh`). Without it the browser half is
 * skipped, unless CI=true, where it fails.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, normalize, resolve } from "node:path";
import { promisify } from "node:util";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servePetstore, type ServedPetstore } from "../support/serve-petstore.ts";

import type * as Client from "../../clients/typescript/src/index.ts";

type ClientModule = typeof Client;

const root = resolve(import.meta.dirname, "../..");
const CHROMIUM = process.env.PETSTORE_CHROMIUM ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
const inCi = process.env.CI === "true";
const missing = `no Chromium at ${CHROMIUM}: install it with \`bash .ci/install-browser.sh\` (apt-get install -y chromium)`;

interface WalkResult {
  role: string;
  firstOrder: number;
  secondOrder: number;
  resumedAfter: string;
  /** `kind type id data.id` of each item, up to the first order's `order.placed`. */
  seen: string[];
  /** The same, from the resumption up to the second order's `order.placed`. */
  resumed: string[];
}

/**
 * The walk, run on Node and, serialised, in the browser: it uses nothing but its arguments. The stream opens before
 * anything happens (onOpen), so every event of the walk is delivered; nothing here waits on a clock.
 */
async function walk(lib: ClientModule, origin: string, key: string, label: string): Promise<WalkResult> {
  const petstore = lib.createPetstoreClient({ baseUrl: origin, apiKey: key, logger: false });
  const fail = (what: string, error: { code: string; message: string }) => {
    throw new Error(`${what}: ${error.code}: ${error.message}`);
  };
  const describe = (item: Client.PetstoreStreamItem) =>
    item.kind === "event"
      ? `event ${item.type} ${item.id} ${"id" in item.data ? item.data.id : "-"}`
      : `reset ${item.reason} ${item.from}`;

  const me = await petstore.GET("/me");
  if (me.error) return fail("GET /me", me.error);

  let opened = () => {};
  const open = new Promise<void>((resolve) => (opened = resolve));
  const stream = petstore.events({ onOpen: () => opened() });
  const first = stream.next();
  await open;

  const category = await petstore.POST("/categories", { body: { name: label } });
  if (category.error) return fail("POST /categories", category.error);
  const pet = await petstore.POST("/pets", { body: { name: "Rex", categoryId: category.data.id } });
  if (pet.error) return fail("POST /pets", pet.error);
  const petId = pet.data.id;
  await petstore.PUT("/store/inventory/{petId}", { params: { path: { petId } }, body: { quantity: 2 } });
  const order = await petstore.POST("/store/orders", { body: { petId, quantity: 1 } });
  if (order.error) return fail("POST /store/orders", order.error);

  const seen: string[] = [];
  let resumedAfter = "";
  for (let next = await first; ; next = await stream.next()) {
    if (next.done) throw new Error("the stream ended");
    seen.push(describe(next.value));
    if (next.value.kind === "event" && next.value.type === "order.placed" && next.value.data.id === order.data.id) {
      resumedAfter = next.value.id;
      break;
    }
  }
  await stream.return(undefined);

  const second = await petstore.POST("/store/orders", { body: { petId, quantity: 1 } });
  if (second.error) return fail("POST /store/orders", second.error);
  const resumed: string[] = [];
  for await (const item of petstore.events({ lastEventId: resumedAfter })) {
    resumed.push(describe(item));
    if (item.kind === "event" && item.type === "order.placed" && item.data.id === second.data.id) break;
  }
  return { role: me.data.role, firstOrder: order.data.id, secondOrder: second.data.id, resumedAfter, seen, resumed };
}

const checkWalk = (result: WalkResult, role: string) => {
  expect(result.role).toBe(role);
  expect(result.seen.at(-1)).toBe(`event order.placed ${result.resumedAfter} ${result.firstOrder}`);
  expect(result.seen.every((line) => line.startsWith("event "))).toBe(true);
  // The resumption starts after the id sent: nothing repeated, no reset, and the second order arrives.
  expect(result.resumed.every((line) => line.startsWith("event "))).toBe(true);
  const ids = result.resumed.map((line) => BigInt(line.split(" ")[2]!));
  expect(ids.every((id) => id > BigInt(result.resumedAfter))).toBe(true);
  expect(result.resumed.at(-1)).toMatch(new RegExp(`^event order\\.placed \\d+ ${result.secondOrder}$`));
};

describe("@petstore/client against the running service", () => {
  let service: ServedPetstore;

  const issueKey = async (role: "staff" | "admin", label: string) => {
    const created = await fetch(`${service.origin}/admin/api-keys`, {
      method: "POST",
      headers: { "x-api-key": service.adminKey, "content-type": "application/json" },
      body: JSON.stringify({ label, role, plan: "business" }),
    });
    expect(created.status).toBe(201);
    return (await created.json()) as { key: string; id: number };
  };
  const newKey = async (role: "staff" | "admin", label: string) => (await issueKey(role, label)).key;

  /** A stream on a fresh staff key, its first item asked for, once the connection is open. */
  const openStream = async (options: Client.EventsOptions = {}) => {
    const lib = await import("../../clients/typescript/src/index.ts");
    const { key, id } = await issueKey("staff", "stream");
    const petstore = lib.createPetstoreClient({ baseUrl: service.origin, apiKey: key, logger: false });
    let opened = () => {};
    const open = new Promise<void>((resolve) => (opened = resolve));
    const stream = petstore.events({ ...options, onOpen: () => opened() });
    const first = stream.next();
    await open;
    return { lib, petstore, stream, first, keyId: id };
  };

  beforeAll(async () => {
    service = await servePetstore();
    // The relay (part of the webhook worker, as main.ts starts it) takes events to the shared log /events reads.
    service.petstore.webhookWorker.start();
  });
  afterAll(() => service?.close());

  it("on Node: /me, a walk to an order, and events() from open to a resumption", async () => {
    const lib = await import("../../clients/typescript/src/index.ts");
    checkWalk(await walk(lib, service.origin, await newKey("staff", "node"), "Node pets"), "staff");
  }, 60_000);

  it("on Node: a reset for an id beyond the log's end, then the events after its `from`", async () => {
    const ahead = "9007199254740991";
    const { petstore, stream, first } = await openStream({ lastEventId: ahead });
    const category = await petstore.POST("/categories", { body: { name: "Reset pets" } });
    const pet = await petstore.POST("/pets", { body: { name: "Rex", categoryId: category.data!.id } });
    const petId = pet.data!.id;
    await petstore.PUT("/store/inventory/{petId}", { params: { path: { petId } }, body: { quantity: 1 } });
    const order = await petstore.POST("/store/orders", { body: { petId, quantity: 1 } });
    const reset = (await first).value;
    expect(reset).toMatchObject({ kind: "reset", reason: "ahead", lastEventId: ahead });
    const from = BigInt((reset as Client.PetstoreStreamReset).from);
    for (let next = await stream.next(); ; next = await stream.next()) {
      if (next.done || next.value.kind !== "event") throw new Error(`unexpected ${JSON.stringify(next)}`);
      expect(BigInt(next.value.id) > from).toBe(true);
      if (next.value.type === "order.placed" && next.value.data.id === order.data!.id) break;
    }
    await stream.return(undefined);
  }, 60_000);

  it("on Node: stops with PetstoreStreamEndedError when the stream's key is revoked", async () => {
    const { lib, first, keyId } = await openStream();
    const revoked = await fetch(`${service.origin}/admin/api-keys/${keyId}`, {
      method: "DELETE",
      headers: { "x-api-key": service.adminKey },
    });
    expect(revoked.status).toBe(204);
    const ended = await first.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ended).toBeInstanceOf(lib.PetstoreStreamEndedError);
    expect((ended as Client.PetstoreStreamEndedError).reason).toBe("key_revoked");
  }, 60_000);

  if (!available) {
    it.skipIf(!inCi)(`in Chromium is skipped: ${missing}`, () => {
      throw new Error(`CI=true and ${missing}`);
    });
  }

  describe.runIf(available)("in headless Chromium, from the package's build", () => {
    let browser: Browser;
    let build: string;

    beforeAll(async () => {
      build = mkdtempSync(join(tmpdir(), "petstore-client-build-"));
      await promisify(execFile)(
        process.execPath,
        [
          join(root, "node_modules/@typescript/native/bin/tsc"),
          "-p",
          join(root, "clients/typescript/tsconfig.build.json"),
          "--outDir",
          build,
        ],
        { timeout: 120_000 },
      );
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
      });
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      if (build) rmSync(build, { recursive: true, force: true });
    });

    it("runs the same walk", async () => {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(error.message));
      // The build and openapi-fetch served under the service's origin: the page calls the API as its own origin.
      await page.route(`${service.origin}/__client/**`, async (route) => {
        const path = new URL(route.request().url()).pathname.replace("/__client/", "");
        if (path === "page.html") {
          const importMap = { imports: { "openapi-fetch": "/__client/openapi-fetch.mjs" } };
          return route.fulfill({
            contentType: "text/html",
            body: `<!doctype html><script type="importmap">${JSON.stringify(importMap)}</script><title>client</title>`,
          });
        }
        const file =
          path === "openapi-fetch.mjs"
            ? join(root, "node_modules/openapi-fetch/dist/index.mjs")
            : join(build, normalize(path).replace(/^(\.\.[/\\])+/, ""));
        if (!existsSync(file)) return route.fulfill({ status: 404, body: "" });
        return route.fulfill({ contentType: "text/javascript", body: readFileSync(file, "utf8") });
      });
      await page.goto(`${service.origin}/__client/page.html`);
      const key = await newKey("admin", "browser");
      // As an expression: a function handed to evaluate would carry this test runner's rewrite of import().
      const result = (await page.evaluate(
        `(async () => {
          const lib = await import(${JSON.stringify(`${service.origin}/__client/index.js`)});
          return (${walk.toString()})(lib, ${JSON.stringify(service.origin)}, ${JSON.stringify(key)}, "Browser pets");
        })()`,
      )) as WalkResult;
      checkWalk(result, "admin");
      expect(problems).toEqual([]);
    }, 60_000);
  });
});
