/**
 * The staff console (/console) in a real headless Chromium, against the whole service on each store (memory, and
 * MongoDB when the run has one): sign in, search, set stock, another client's order appearing live, completing it,
 * a 412 conflict, a 429 countdown, pets and categories with the service's errors in place, keyboard-only use and an
 * axe-core check. Screenshots go to test-output/console/ (CI output). Needs /usr/bin/chromium
 * (`.ci/install-browser.sh`): without it the suite is skipped, unless CI=true, where it fails.
 */
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshMongoDatabase, mongoSkipReason, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";
import { servePetstore, type ServedPetstore } from "../support/serve-petstore.ts";

const CHROMIUM = process.env.PETSTORE_CHROMIUM ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
const inCi = process.env.CI === "true";
const missing = `no Chromium at ${CHROMIUM}: install it with \`bash .ci/install-browser.sh\` (apt-get install -y chromium)`;
const SHOTS = join(process.cwd(), "test-output", "console");
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

if (!available) {
  describe("the console in headless Chromium, without Chromium", () => {
    it.skipIf(!inCi)(`is skipped: ${missing}`, () => {
      throw new Error(`CI=true and ${missing}`);
    });
  });
}

const env = {
  PETSTORE_SEED_DEMO: "false",
  PETSTORE_EVENTS_POLL_MS: "100",
  PETSTORE_WEBHOOK_POLL_MS: "100",
  // The 429 test keeps a key over its limit: no ban should replace the countdown meanwhile.
  PETSTORE_BAN_STRIKES: "1000",
};

const mongoReason = mongoSkipReason();
const stores: ["memory" | "mongo", boolean][] = [
  ["memory", true],
  ["mongo", !mongoReason || inCi],
];

/** A generous bound for anything the page does after a click; nothing here is a timing assertion. */
const PATIENCE = 15_000;

describe.runIf(available).each(stores)("the console in headless Chromium on the %s store", (store, enabled) => {
  let mongo: FreshMongoDatabase | undefined;
  let service: ServedPetstore;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let staffKey: string;
  let customerKey: string;
  const problems: string[] = [];

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await fetch(`${service.origin}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const admin = (method: string, path: string, body?: unknown) => call(method, path, service.adminKey, body);
  const newKey = async (role: string, plan = "business", limits?: unknown) =>
    (
      await admin("POST", "/admin/api-keys", {
        label: `${role} at the counter`,
        role,
        plan,
        ...(limits ? { limits } : {}),
      })
    ).body.key as string;
  const shot = (name: string, on: Page = page) =>
    on.screenshot({ path: join(SHOTS, `${store}-${name}.png`), fullPage: true });
  const watch = (on: Page) => {
    on.on("console", (message) => {
      // A CSP refusal would mean inline code or another host. 4xx answers the page provokes on purpose are logged
      // by Chromium as failed loads: those are expected.
      if (/Refused to|Content Security Policy/i.test(message.text())) problems.push(message.text());
      if (message.type() === "error" && !/status of (4\d\d)/.test(message.text())) problems.push(message.text());
    });
    on.on("pageerror", (error) => problems.push(error.message));
  };
  const signIn = async (on: Page, key: string) => {
    await on.goto(`${service.origin}/console`);
    await on.getByLabel("API key").fill(key);
    await on.getByRole("button", { name: "Sign in" }).click();
    await on.locator("#who").waitFor({ timeout: PATIENCE });
  };
  const stockCell = (on: Page, petId: number) => on.locator(`#inventory tr[data-pet-id="${petId}"] td.stock`);

  beforeAll(async () => {
    if (!enabled) return;
    mkdirSync(SHOTS, { recursive: true });
    if (store === "mongo") mongo = await freshMongoDatabase("console");
    service = await servePetstore(
      store === "mongo"
        ? { ...env, PETSTORE_STORE: "mongo", MONGODB_URL: mongoUrl(), MONGODB_DB: mongo!.db.databaseName }
        : env,
    );
    // The relay (part of the webhook worker, as main.ts starts it) takes events to the shared log /events reads.
    service.petstore.webhookWorker.start();
    staffKey = await newKey("staff");
    customerKey = await newKey("customer");
    const dogs = (await admin("POST", "/categories", { name: "Dogs" })).body;
    await admin("POST", "/categories", { name: "Cats" });
    for (const [name, stock] of [
      ["Rex", 5],
      ["Bella", 1],
      ["Max", 12],
      ["Rexy", 0],
      ["Luna", 3],
    ] as const) {
      const pet = (await admin("POST", "/pets", { name, categoryId: dogs.id })).body;
      if (stock > 0) await admin("PUT", `/store/inventory/${pet.id}`, { quantity: stock });
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watch(page);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await mongo?.close();
  });

  it.runIf(enabled)(
    "signs in with a staff key (kept in session storage, never in the URL) and shows who you are",
    async () => {
      await page.goto(`${service.origin}/console`);
      await page.getByLabel("API key").waitFor();
      await shot("sign-in");
      await signIn(page, staffKey);

      expect(await page.locator("#who").textContent()).toMatch(/staff at the counter.*staff.*business plan/s);
      expect(page.url()).toBe(`${service.origin}/console`);
      expect(await page.evaluate(() => sessionStorage.getItem("petstore.console.key"))).toBe(staffKey);
      await expect.poll(() => page.locator("#inventory tbody tr").count(), { timeout: PATIENCE }).toBe(5);
      // Low stock first: Rexy (0), Bella (1), Luna (3), Rex (5), Max (12).
      expect(await page.locator("#inventory tbody th").allTextContents()).toEqual([
        "Rexy #4",
        "Bella #2",
        "Luna #5",
        "Rex #1",
        "Max #3",
      ]);
      await shot("inventory");
    },
  );

  it.runIf(enabled)("searches pets by the start of their name, ignoring case", async () => {
    await page.getByLabel("Search pets by name").fill("re");
    await expect
      .poll(() => page.locator("#inventory tbody th").allTextContents(), { timeout: PATIENCE })
      .toEqual(["Rexy #4", "Rex #1"]);
    await shot("search");
    await page.getByLabel("Search pets by name").fill("");
    await expect.poll(() => page.locator("#inventory tbody tr").count(), { timeout: PATIENCE }).toBe(5);
  });

  it.runIf(enabled)("sets stock inline with If-Match", async () => {
    await page.getByRole("button", { name: "Set stock of Rex", exact: true }).click();
    await page.getByLabel("New stock for Rex").fill("7");
    await page.getByRole("button", { name: "Save" }).click();

    await expect.poll(() => stockCell(page, 1).textContent(), { timeout: PATIENCE }).toBe("7");
    expect((await admin("GET", "/store/inventory/1")).body.quantity).toBe(7);
  });

  it.runIf(enabled)(
    "shows the newer value when the stock changed meanwhile (412), and saves over it on a second try",
    async () => {
      await page.getByRole("button", { name: "Set stock of Luna" }).click();
      await page.getByLabel("New stock for Luna").waitFor();
      expect((await call("PUT", "/store/inventory/5", staffKey, { quantity: 9 })).status).toBe(200);
      await page.getByLabel("New stock for Luna").fill("4");
      await page.getByRole("button", { name: "Save" }).click();

      const alert = page.locator("#inventory tr[data-pet-id='5'] [role=alert]");
      await alert.waitFor({ timeout: PATIENCE });
      expect(await alert.textContent()).toMatch(/changed meanwhile\. It is now 9/);
      expect(await page.locator("#inventory tr[data-pet-id='5'] .newer").textContent()).toBe("Newer value: 9");
      await shot("conflict-412");
      await page.getByRole("button", { name: "Save" }).click();
      await expect.poll(() => stockCell(page, 5).textContent(), { timeout: PATIENCE }).toBe("4");
      expect((await admin("GET", "/store/inventory/5")).body.quantity).toBe(4);
    },
  );

  it.runIf(enabled)(
    "shows another client's order live, then completes it with confirmation",
    async () => {
      await page.getByRole("button", { name: "Live", exact: true }).click();
      await expect
        .poll(() => page.locator("#connection").getAttribute("data-state"), { timeout: PATIENCE })
        .toBe("live");
      await page.getByRole("button", { name: "Orders", exact: true }).click();
      await page.locator("#orders").waitFor({ timeout: PATIENCE });

      const placed = await call("POST", "/store/orders", customerKey, { petId: 3, quantity: 2 });
      const answeredAt = performance.now();
      expect(placed.status).toBe(201);
      const row = page.locator(`#orders tr[data-order-id="${placed.body.id}"]`);
      await row.waitFor({ timeout: 30_000 });
      const delayMs = performance.now() - answeredAt;
      console.log(
        `[console ${store}] order ${placed.body.id} appeared in the page ${delayMs.toFixed(0)} ms after its 201`,
      );
      expect(await row.locator(".badge.new").textContent()).toBe("new");
      await shot("order-live");

      await page.getByRole("button", { name: `Complete order ${placed.body.id}` }).click();
      await page.getByRole("button", { name: "Yes, complete" }).click();
      await expect.poll(() => row.locator(".state").textContent(), { timeout: PATIENCE }).toBe("complete");
      expect((await admin("GET", `/store/orders/${placed.body.id}`)).body.complete).toBe(true);
      // The stock the order took shows in the inventory too, from the live events.
      await page.getByRole("button", { name: "Inventory", exact: true }).click();
      await expect.poll(() => stockCell(page, 3).textContent(), { timeout: PATIENCE }).toBe("10");
    },
    90_000,
  );

  it.runIf(enabled)(
    "creates, renames, moves and deletes, with the service's refusals in place",
    async () => {
      await page.getByRole("button", { name: "Pets and categories", exact: true }).click();
      await page.getByLabel("New category").fill("Birds");
      await page.getByRole("button", { name: "Create category" }).click();
      await page.locator("#categories li", { hasText: "Birds" }).waitFor({ timeout: PATIENCE });

      await page.getByLabel("New category").fill("dogs");
      await page.getByRole("button", { name: "Create category" }).click();
      await expect
        .poll(() => page.locator("form.create [role=alert]").first().textContent(), { timeout: PATIENCE })
        .toMatch(/already/i);

      await page.getByLabel("New pet's name").fill("Tweety");
      await page.getByLabel("Category", { exact: true }).selectOption({ label: "Birds" });
      await page.getByRole("button", { name: "Create pet" }).click();
      const tweety = page.locator("#pets li", { hasText: "Tweety" });
      await tweety.waitFor({ timeout: PATIENCE });
      await tweety.getByRole("button", { name: "Rename Tweety" }).click();
      await page.getByLabel("New name for Tweety").fill("Tweety Bird");
      await page.getByLabel("New name for Tweety").press("Enter");
      const renamed = page.locator("#pets li", { hasText: "Tweety Bird" });
      await renamed.waitFor({ timeout: PATIENCE });
      await renamed.getByLabel("Move Tweety Bird to category").selectOption({ label: "Cats" });
      await expect.poll(() => renamed.textContent(), { timeout: PATIENCE }).toMatch(/in Cats/);

      const dogs = page.locator("#categories li", { hasText: "Dogs" });
      await dogs.getByRole("button", { name: "Delete category Dogs" }).click();
      await dogs.getByRole("button", { name: "Yes, delete" }).click();
      await expect.poll(() => dogs.locator("[role=alert]").textContent(), { timeout: PATIENCE }).toMatch(/pet/i);
      await shot("catalog-error-in-place");

      await renamed.getByRole("button", { name: "Delete Tweety Bird" }).click();
      await renamed.getByRole("button", { name: "Yes, delete" }).click();
      await expect.poll(() => page.locator("#pets li", { hasText: "Tweety" }).count(), { timeout: PATIENCE }).toBe(0);
    },
    60_000,
  );

  it.runIf(enabled)(
    "works from the keyboard alone: sign in, search, set stock",
    async () => {
      const keyboard = await context.newPage();
      watch(keyboard);
      await keyboard.goto(`${service.origin}/console`);
      await keyboard.evaluate(() => sessionStorage.clear());
      await keyboard.reload();
      const focusedIs = (selector: string) => () =>
        keyboard.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);
      // The key field has the focus on arrival.
      await expect.poll(focusedIs("#api-key"), { timeout: PATIENCE }).toBe(true);
      await keyboard.keyboard.type(staffKey);
      await keyboard.keyboard.press("Enter");
      await keyboard.locator("#who").waitFor({ timeout: PATIENCE });
      await expect.poll(() => keyboard.locator("#inventory tbody tr").count(), { timeout: PATIENCE }).toBe(5);

      const tabTo = async (matches: () => Promise<boolean>, what: string) => {
        for (let presses = 0; presses < 40; presses++) {
          if (await matches()) return;
          await keyboard.keyboard.press("Tab");
        }
        throw new Error(`Tab never reached ${what}`);
      };
      await tabTo(focusedIs("#pet-search"), "the search field");
      await keyboard.keyboard.type("max");
      await expect
        .poll(() => keyboard.locator("#inventory tbody th").allTextContents(), { timeout: PATIENCE })
        .toEqual(["Max #3"]);
      await tabTo(
        () => keyboard.evaluate(() => document.activeElement?.getAttribute("aria-label") === "Set stock of Max"),
        "Set stock of Max",
      );
      await keyboard.keyboard.press("Enter");
      await keyboard.getByLabel("New stock for Max").waitFor({ timeout: PATIENCE });
      await expect.poll(focusedIs("#stock-3"), { timeout: PATIENCE }).toBe(true);
      await keyboard.keyboard.press("Control+A");
      await keyboard.keyboard.type("11");
      await keyboard.keyboard.press("Enter");
      await expect.poll(() => stockCell(keyboard, 3).textContent(), { timeout: PATIENCE }).toBe("11");
      await shot("keyboard", keyboard);
      await keyboard.close();
    },
    60_000,
  );

  it.runIf(enabled)(
    "has no serious or critical accessibility violations (axe-core) in any section",
    async () => {
      // axe is injected as a script: this page alone lets the test's own script past the console's CSP.
      const audit = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
      const a11y = await audit.newPage();
      await a11y.goto(`${service.origin}/console`);
      await a11y.addScriptTag({ path: AXE });
      const check = async (where: string) => {
        const violations = await a11y.evaluate(async () => {
          const axe = (
            window as unknown as {
              axe: { run(): Promise<{ violations: { id: string; impact: string; help: string; nodes: unknown[] }[] }> };
            }
          ).axe;
          return (await axe.run()).violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            help: v.help,
            nodes: v.nodes.length,
          }));
        });
        const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
        expect(serious, `${where}: ${JSON.stringify(violations)}`).toEqual([]);
      };
      await check("sign-in page");
      await a11y.getByLabel("API key").fill(staffKey);
      await a11y.getByRole("button", { name: "Sign in" }).click();
      await a11y.locator("#inventory").waitFor({ timeout: PATIENCE });
      for (const section of ["Inventory", "Orders", "Pets and categories", "Live"]) {
        await a11y.getByRole("button", { name: section, exact: true }).click();
        await a11y.waitForTimeout(300);
        await check(section);
      }
      await shot("live", a11y);
      await audit.close();
    },
    60_000,
  );

  it.runIf(enabled)("counts down from Retry-After when the key is rate limited", async () => {
    const limited = await newKey("staff", "enterprise", { perMinute: 3, perDay: 1000 });
    const tight = await context.newPage();
    watch(tight);
    await tight.goto(`${service.origin}/console`);
    await tight.evaluate(() => sessionStorage.clear());
    await signIn(tight, limited);
    // Its first loads (pets, stock, orders, categories) are more than 3 in a minute.
    const countdown = tight.locator("#rate-limited .countdown");
    await countdown.waitFor({ timeout: PATIENCE });
    const seconds = Number(await countdown.textContent());
    expect(seconds).toBeGreaterThanOrEqual(0);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(await tight.locator("#rate-limited").textContent()).toMatch(/Too many requests.*work again in \d+ s/s);
    await shot("rate-limited-429", tight);
    await tight.close();
  });

  it.runIf(enabled)("served the page and its assets without a CSP refusal or a script error", () => {
    expect(problems).toEqual([]);
  });
});
