/**
 * The staff console (/console) in a real headless Chromium, against the whole service on each store (memory, and
 * MongoDB when the run has one): sign in; lists paged and sorted by the service; the category column and filters;
 * orders with their pet's name, who placed them (the key's label) and when, filtered by a pet picked by name; forms checked in the
 * browser with the API's rules before anything is sent; where the focus goes; a 412 conflict; another client's order
 * appearing live; 429 countdowns (at sign-in and signed in) with the quota line agreeing; keyboard-only use; the
 * phone width without sideways scrolling; axe-core in light and dark mode at desktop and phone widths.
 * Screenshots go to test-output/console/ (CI output). Needs /usr/bin/chromium (`.ci/install-browser.sh`): without it
 * the suite is skipped, unless CI=true, where it fails.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from "vitest";
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
  // The 429 tests keep a key over its limit: no ban should replace the countdown meanwhile.
  PETSTORE_BAN_STRIKES: "1000",
};

const mongoReason = mongoSkipReason();
const stores: ["memory" | "mongo", boolean][] = [
  ["memory", true],
  ["mongo", !mongoReason || inCi],
];

/**
 * A generous bound for anything the page does after a click (the machine may be shared and loaded); nothing here is
 * a timing assertion. Every test's own bound is a few of these.
 */
const PATIENCE = 60_000;
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const SECTIONS = ["Inventory", "Orders", "Pets and categories", "Live"] as const;
const HAMSTERS = 20;

type Axe = { run(): Promise<{ violations: { id: string; impact: string; help: string; nodes: unknown[] }[] }> };

describe.runIf(available).each(stores)(
  "the console in headless Chromium on the %s store",
  (store, enabled) => {
    let mongo: FreshMongoDatabase | undefined;
    let service: ServedPetstore;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let staffKey: string;
    let staffKeyId: number;
    let customerKey: string;
    let customerKeyId: number;
    const problems: string[] = [];
    /** Every request a page sent, as "METHOD /path?query". */
    const sent: string[] = [];

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
    const newKey = async (role: string, plan = "business", limits?: unknown, label = `${role} at the counter`) =>
      (await admin("POST", "/admin/api-keys", { label, role, plan, ...(limits ? { limits } : {}) })).body as {
        id: number;
        key: string;
      };
    const shot = (name: string, on: Page = page) =>
      on.screenshot({ path: join(SHOTS, `${store}-${name}.png`), fullPage: true });
    const watch = (on: Page) => {
      on.setDefaultTimeout(PATIENCE);
      on.on("console", (message) => {
        // A CSP refusal would mean inline code or another host. 4xx answers the page provokes on purpose are logged
        // by Chromium as failed loads: those are expected.
        if (/Refused to|Content Security Policy/i.test(message.text())) problems.push(message.text());
        if (message.type() === "error" && !/status of (4\d\d)/.test(message.text())) problems.push(message.text());
      });
      on.on("pageerror", (error) => problems.push(error.message));
      on.on("request", (request) => {
        const url = new URL(request.url());
        sent.push(`${request.method()} ${url.pathname}${url.search}`);
      });
    };
    const signIn = async (on: Page, key: string) => {
      await on.goto(`${service.origin}/console`);
      await on.getByLabel("API key").fill(key);
      await on.getByRole("button", { name: "Sign in" }).click();
      await on.locator("#who").waitFor({ timeout: PATIENCE });
    };
    /** A new tab signed in with a new staff key allowed `perMinute` requests a minute. */
    const signedInWithin = async (perMinute: number, perDay = 1000) => {
      const limited = (await newKey("staff", "enterprise", { perMinute, perDay })).key;
      const tight = await context.newPage();
      watch(tight);
      await tight.goto(`${service.origin}/console`);
      await tight.evaluate(() => sessionStorage.clear());
      await signIn(tight, limited);
      return { limited, tight };
    };
    const section = (on: Page, name: (typeof SECTIONS)[number]) =>
      on.getByRole("button", { name, exact: true }).click();
    const stockCell = (on: Page, petId: number) => on.locator(`#inventory tr[data-pet-id="${petId}"] td.stock`);
    const focused = (on: Page) =>
      on.evaluate(() => {
        const element = document.activeElement;
        return element
          ? `${element.tagName.toLowerCase()}#${element.id}|${element.getAttribute("aria-label") ?? ""}|${element.textContent?.trim() ?? ""}`
          : "";
      });
    const rowNames = (on: Page, table: string) => on.locator(`#${table} tbody th`).allTextContents();
    const axeCheck = async (on: Page, where: string) => {
      const violations = await on.evaluate(async () =>
        (await (window as unknown as { axe: Axe }).axe.run()).violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes.length,
        })),
      );
      const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      expect(serious, `${where}: ${JSON.stringify(violations)}`).toEqual([]);
    };

    beforeAll(async () => {
      if (!enabled) return;
      mkdirSync(SHOTS, { recursive: true });
      if (store === "mongo") mongo = await freshMongoDatabase("console");
      service = await servePetstore(
        store === "mongo"
          ? {
              ...env,
              PETSTORE_STORE: "mongo",
              MONGODB_URL: mongoUrl(),
              MONGODB_DB: mongo!.db.databaseName,
              // A shared, loaded machine: a store that answers slowly is not one that is down.
              MONGODB_TIMEOUT_MS: "30000",
            }
          : env,
      );
      // The relay (part of the webhook worker, as main.ts starts it) takes events to the shared log /events reads.
      service.petstore.webhookWorker.start();
      const staff = await newKey("staff");
      staffKey = staff.key;
      staffKeyId = staff.id;
      const customer = await newKey("customer", "business", undefined, "Alice's shop");
      customerKey = customer.key;
      customerKeyId = customer.id;
      const dogs = (await admin("POST", "/categories", { name: "Dogs" })).body;
      const cats = (await admin("POST", "/categories", { name: "Cats" })).body;
      const rodents = (await admin("POST", "/categories", { name: "Rodents" })).body;
      for (const [name, stock, category] of [
        ["Rex", 5, dogs.id],
        ["Bella", 1, dogs.id],
        ["Max", 12, dogs.id],
        ["Rexy", 0, dogs.id],
        ["Luna", 3, cats.id],
      ] as const) {
        const pet = (await admin("POST", "/pets", { name, categoryId: category })).body;
        if (stock > 0) await admin("PUT", `/store/inventory/${pet.id}`, { quantity: stock });
      }
      // Pets 6 to 25: more than a page of twenty.
      for (let n = 1; n <= HAMSTERS; n++) {
        const pet = (await admin("POST", "/pets", { name: `Hamster ${n}`, categoryId: rodents.id })).body;
        await admin("PUT", `/store/inventory/${pet.id}`, { quantity: 4 });
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
      context = await browser.newContext({ viewport: DESKTOP });
      page = await context.newPage();
      watch(page);
    }, 5 * PATIENCE);

    beforeEach(() => {
      // What the page showed when a test failed, beside the other screenshots.
      onTestFailed(async ({ task }) => {
        const name = task.name.slice(0, 40).replace(/\W+/g, "-");
        await page
          ?.screenshot({ path: join(SHOTS, `${store}-FAILED-${name}.png`), fullPage: true })
          .catch(() => undefined);
      });
    });

    afterAll(async () => {
      await browser?.close();
      await service?.close();
      await mongo?.close();
    });

    it.runIf(enabled)(
      "renders twenty first visits from one address: a visit loads the page, its one script and its one stylesheet",
      async () => {
        for (let visit = 1; visit <= 20; visit++) {
          // A new context has an empty cache: each visit is a first one, from the same (loopback) address.
          const fresh = await browser.newContext({ viewport: PHONE });
          const first = await fresh.newPage();
          watch(first);
          const loads: string[] = [];
          first.on("request", (request) => {
            const url = new URL(request.url());
            if (url.origin === service.origin) loads.push(url.pathname.replace(/console\.[\w-]+\./, "console.*."));
          });
          await first.goto(`${service.origin}/console`);
          await first.getByLabel("API key").waitFor({ timeout: PATIENCE });
          expect(loads.sort(), `visit ${visit}`).toEqual([
            "/console",
            "/console/script/console.*.js",
            "/console/style/console.*.css",
          ]);
          if (visit === 20) await shot("twentieth-first-visit", first);
          await fresh.close();
        }
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)(
      "signs in with a staff key (kept in session storage, never in the URL) and shows who you are and the quota",
      async () => {
        await page.goto(`${service.origin}/console`);
        await page.getByLabel("API key").waitFor();
        await shot("sign-in");
        await signIn(page, staffKey);

        expect(await page.locator("#who").textContent()).toMatch(/staff at the counter.*staff.*business plan/s);
        // Signed in, the focus is on the page's first heading.
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/^h1#console-title\|/);
        expect(page.url()).toBe(`${service.origin}/console`);
        expect(await page.evaluate(() => sessionStorage.getItem("petstore.console.key"))).toBe(staffKey);
        await expect
          .poll(() => page.locator("#quota").textContent(), { timeout: PATIENCE })
          .toMatch(/\d+ of 1000 requests left this minute/);
      },
    );

    it.runIf(enabled)("pages the inventory with the service's own paging, with a category column", async () => {
      await expect.poll(() => page.locator("#inventory tbody tr").count(), { timeout: PATIENCE }).toBe(20);
      expect(sent).toContain("GET /store/inventory?limit=20");
      expect((await rowNames(page, "inventory")).slice(0, 5)).toEqual(["Rex", "Bella", "Max", "Rexy", "Luna"]);
      // Totals where the API gives them cheaply: "more than" until the last page says how many.
      expect(await page.locator("#inventory-size-range").textContent()).toBe("1–20 of more than 20");
      // The category names come from their own lookup, which may answer after the stock.
      await expect
        .poll(() => page.locator('#inventory tr[data-pet-id="1"] td.category').textContent(), { timeout: PATIENCE })
        .toBe("Dogs");
      expect(await page.locator('#inventory tr[data-pet-id="5"] td.category').textContent()).toBe("Cats");
      await shot("inventory");

      await page.getByRole("button", { name: "Next page of stock" }).click();
      await expect
        .poll(() => rowNames(page, "inventory"), { timeout: PATIENCE })
        .toEqual([21, 22, 23, 24, 25].map((id) => `Hamster ${id - 5}`));
      expect(await page.locator("#inventory-size-range").textContent()).toBe("21–25 of 25");
      // The URL the service gave in Link, not one the page made up.
      expect(sent.some((s) => /^GET \/store\/inventory\?.*after=20/.test(s))).toBe(true);
      expect(await page.getByRole("button", { name: "Next page of stock" }).getAttribute("aria-disabled")).toBe("true");
      expect(await page.locator("#section-inventory .page-number").textContent()).toBe("Page 2");

      await page.getByRole("button", { name: "Previous page of stock" }).click();
      await expect.poll(() => page.locator("#inventory tbody tr").count(), { timeout: PATIENCE }).toBe(20);
      await page.getByLabel("Per page").first().selectOption("10");
      await expect.poll(() => page.locator("#inventory tbody tr").count(), { timeout: PATIENCE }).toBe(10);
      expect(sent).toContain("GET /store/inventory?limit=10");
      await page.getByLabel("Per page").first().selectOption("20");
      await expect.poll(() => page.locator("#inventory tbody tr").count(), { timeout: PATIENCE }).toBe(20);
    });

    it.runIf(enabled)("sets stock inline with If-Match, then gives the focus back to the row's button", async () => {
      await page.getByRole("button", { name: "Set stock of Rex", exact: true }).click();
      await page.getByLabel("New stock for Rex").fill("7");
      await page.getByRole("button", { name: "Save" }).click();

      await expect.poll(() => stockCell(page, 1).textContent(), { timeout: PATIENCE }).toBe("7");
      expect((await admin("GET", "/store/inventory/1")).body.quantity).toBe(7);
      await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/^button#set-stock-1\|Set stock of Rex/);
    });

    it.runIf(enabled)(
      "refuses a stock the API would refuse before sending it, and drops the message once right",
      async () => {
        await page.getByRole("button", { name: "Set stock of Bella", exact: true }).click();
        const input = page.getByLabel("New stock for Bella");
        await input.fill("-1");
        const puts = () => sent.filter((s) => s.startsWith("PUT /store/inventory/2")).length;
        const before = puts();
        await page.getByRole("button", { name: "Save" }).click();
        const message = page.locator("#stock-2-problem");
        await expect.poll(() => message.textContent(), { timeout: PATIENCE }).toBe("Stock: at least 0.");
        expect(await input.getAttribute("aria-invalid")).toBe("true");
        await input.fill("1000001");
        await expect.poll(() => message.textContent(), { timeout: PATIENCE }).toBe("Stock: at most 1000000.");
        expect(puts()).toBe(before);
        await shot("stock-refused-in-browser");
        await input.fill("2");
        await expect.poll(() => message.count(), { timeout: PATIENCE }).toBe(0);
        // Escape leaves the editor, and the focus returns to its button.
        await input.press("Escape");
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/^button#set-stock-2\|/);
        expect(puts()).toBe(before);
      },
    );

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
      "lists pets sorted by the service (name, id up, id down), filtered by category, status and name",
      async () => {
        await section(page, "Pets and categories");
        await expect.poll(() => page.locator("#pets tbody tr").count(), { timeout: PATIENCE }).toBe(20);
        // By name, as the service sorts (case-insensitive, natural: "Hamster 2" before "Hamster 10").
        const byName = await rowNames(page, "pets");
        expect(byName.slice(0, 4)).toEqual(["Bella", "Hamster 1", "Hamster 2", "Hamster 3"]);
        expect(byName.indexOf("Hamster 2")).toBeLessThan(byName.indexOf("Hamster 10"));
        expect(await page.locator("#pets th[aria-sort=ascending]").textContent()).toMatch(/Name/);
        expect(sent.some((s) => s.startsWith("GET /pets?sort=name&limit=20"))).toBe(true);
        // The second page follows the service's Link (after and afterName).
        await page.getByRole("button", { name: "Next page of pets" }).click();
        await expect.poll(() => page.locator("#pets tbody tr").count(), { timeout: PATIENCE }).toBe(5);
        expect(await rowNames(page, "pets")).toEqual([`Hamster ${HAMSTERS}`, "Luna", "Max", "Rex", "Rexy"]);
        expect(sent.some((s) => /^GET \/pets\?.*afterName=/.test(s))).toBe(true);

        await page.getByRole("button", { name: /^Id: sort ascending/ }).click();
        await expect
          .poll(async () => (await rowNames(page, "pets")).slice(0, 2), { timeout: PATIENCE })
          .toEqual(["Rex", "Bella"]);
        expect(await page.locator("#section-catalog .pager .page-number").last().textContent()).toBe("Page 1");
        await page.getByRole("button", { name: /^Id: sort descending/ }).click();
        await expect
          .poll(async () => (await rowNames(page, "pets"))[0], { timeout: PATIENCE })
          .toBe(`Hamster ${HAMSTERS}`);
        expect(await page.locator("#pets th[aria-sort=descending]").textContent()).toMatch(/Id/);

        await page.getByLabel("In category").selectOption({ label: "Cats" });
        await expect.poll(() => rowNames(page, "pets"), { timeout: PATIENCE }).toEqual(["Luna"]);
        expect(await page.locator('#pets tr[data-pet-id="5"] td.category select').inputValue()).toBe("2");
        await page.getByLabel("In category").selectOption({ label: "Dogs" });
        await page.getByLabel("Name starts with", { exact: true }).fill("re");
        await expect.poll(() => rowNames(page, "pets"), { timeout: PATIENCE }).toEqual(["Rexy", "Rex"]);
        await page.getByLabel("Status", { exact: true }).last().selectOption("sold");
        await expect
          .poll(() => page.locator("#pets tbody td").first().textContent(), { timeout: PATIENCE })
          .toBe("No pets match.");
        await page.getByLabel("Status", { exact: true }).last().selectOption("");
        await page.getByLabel("Name starts with", { exact: true }).fill("");
        await page.getByLabel("In category").selectOption("");
        await page.getByRole("button", { name: /^Name: sort ascending/ }).click();
        await expect.poll(() => page.locator("#pets tbody tr").count(), { timeout: PATIENCE }).toBe(20);
        await shot("pets");
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)(
      "checks forms with the API's rules before sending; the messages go when they no longer apply",
      async () => {
        const posts = (path: string) => sent.filter((s) => s === `POST ${path}`).length;
        const before = { categories: posts("/categories"), pets: posts("/pets") };

        await page.getByRole("button", { name: "Create category" }).click();
        const categoryProblem = page.locator("#new-category-problem");
        await expect.poll(() => categoryProblem.textContent(), { timeout: PATIENCE }).toBe("Name: required.");
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/^input#new-category/);
        await page.getByLabel("New category").fill("x".repeat(101));
        await expect
          .poll(() => categoryProblem.textContent(), { timeout: PATIENCE })
          .toBe("Name: 1 to 100 characters (now 101).");
        await page.getByLabel("New category").fill("   ");
        await expect.poll(() => categoryProblem.textContent(), { timeout: PATIENCE }).toBe("Name: required.");

        await page.getByLabel("New pet's name").fill("Tweety");
        await page.getByRole("button", { name: "Create pet" }).click();
        const petCategoryProblem = page.locator("#new-pet-category-problem");
        await expect.poll(() => petCategoryProblem.textContent(), { timeout: PATIENCE }).toBe("Category: required.");
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/^select#new-pet-category/);
        await shot("forms-refused-in-browser");
        expect(posts("/categories")).toBe(before.categories);
        expect(posts("/pets")).toBe(before.pets);

        await page.getByLabel("New category").fill("Birds");
        await expect.poll(() => categoryProblem.count(), { timeout: PATIENCE }).toBe(0);
        await page.getByRole("button", { name: "Create category" }).click();
        await page.locator("#categories li", { hasText: "Birds" }).waitFor({ timeout: PATIENCE });
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/^input#new-category/);

        // The service's own refusal (a name taken) shows in place, and goes as soon as the name is edited.
        await page.getByLabel("New category").fill("dogs");
        await page.getByRole("button", { name: "Create category" }).click();
        const refusal = page.locator("#new-category-error");
        await expect.poll(() => refusal.textContent(), { timeout: PATIENCE }).toMatch(/already/i);
        await page.getByLabel("New category").fill("dogs2");
        await expect.poll(() => refusal.count(), { timeout: PATIENCE }).toBe(0);
        await page.getByLabel("New category").fill("");

        await page.getByLabel("Category", { exact: true }).selectOption({ label: "Birds" });
        await expect.poll(() => petCategoryProblem.count(), { timeout: PATIENCE }).toBe(0);
        await page.getByRole("button", { name: "Create pet" }).click();
        // Done: announced, and the focus is back in the name field for the next pet.
        await expect
          .poll(() => page.locator("#catalog-said").textContent(), { timeout: PATIENCE })
          .toBe("Pet Tweety created");
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/^input#new-pet\|/);
        await page.getByLabel("Name starts with", { exact: true }).fill("Twe");
        const tweety = page.locator("#pets tr", { hasText: "Tweety" });
        await tweety.waitFor({ timeout: PATIENCE });
        expect(posts("/pets")).toBe(before.pets + 1);

        // Rename, checked the same way: an empty name never leaves the browser.
        await tweety.getByRole("button", { name: "Rename Tweety" }).click();
        const rename = page.getByLabel("New name for Tweety");
        await rename.fill(" ");
        await rename.press("Enter");
        await expect
          .poll(() => page.locator("#rename-pet-26-problem, [id^=rename-pet-][id$=-problem]").first().textContent(), {
            timeout: PATIENCE,
          })
          .toBe("Name: required.");
        expect(sent.filter((s) => s.startsWith("PUT /pets/")).length).toBe(0);
        await rename.fill("Tweety Bird");
        await rename.press("Enter");
        const renamed = page.locator("#pets tr", { hasText: "Tweety Bird" });
        await renamed.waitFor({ timeout: PATIENCE });
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/\|Rename Tweety Bird\|/);
        await renamed.getByLabel("Category of Tweety Bird").selectOption({ label: "Cats" });
        // Choosing is a draft: nothing is sent until Save.
        await renamed.getByRole("button", { name: "Save the category of Tweety Bird" }).click();
        // Done when announced, with the focus back on the select.
        await expect
          .poll(() => page.locator("#catalog-said").textContent(), { timeout: PATIENCE })
          .toBe("Tweety Bird moved to Cats.");
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/^select#move-pet-/);
        expect((await admin("GET", `/pets?name=Tweety`)).body[0].categoryId).toBe(2);
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)(
      "asks before deleting with the safe answer focused; Escape answers no; refusals go after the next action",
      async () => {
        const dogs = page.locator("#categories li", { hasText: "Dogs" });
        await dogs.getByRole("button", { name: "Delete category Dogs" }).click();
        // The safe answer has the focus: Enter, Enter never deletes.
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/\|\|Keep it$/);
        await page.keyboard.press("Escape");
        await expect
          .poll(() => dogs.getByRole("button", { name: "Yes, delete" }).count(), { timeout: PATIENCE })
          .toBe(0);
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/\|Delete category Dogs\|/);

        await dogs.getByRole("button", { name: "Delete category Dogs" }).click();
        await dogs.getByRole("button", { name: "Yes, delete" }).click();
        const refusal = dogs.locator("[role=alert]");
        await expect.poll(() => refusal.textContent(), { timeout: PATIENCE }).toMatch(/pet/i);
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/\|Delete category Dogs\|/);
        await shot("catalog-error-in-place");

        const renamed = page.locator("#pets tr", { hasText: "Tweety Bird" });
        await renamed.getByRole("button", { name: "Delete Tweety Bird" }).click();
        // Starting another action takes the old refusal away: it no longer applies.
        await expect.poll(() => refusal.count(), { timeout: PATIENCE }).toBe(0);
        await renamed.getByRole("button", { name: "Yes, delete" }).click();
        await expect.poll(() => page.locator("#pets tr", { hasText: "Tweety" }).count(), { timeout: PATIENCE }).toBe(0);
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/^input#new-pet\|/);
        await page.getByLabel("Name starts with", { exact: true }).fill("");
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)(
      "shows orders with their pet's name; filters by a pet picked by name and by the key that placed them",
      async () => {
        const max = await call("POST", "/store/orders", customerKey, { petId: 3, quantity: 1 });
        const luna = await call("POST", "/store/orders", customerKey, { petId: 5, quantity: 1 });
        expect([max.status, luna.status]).toEqual([201, 201]);
        await section(page, "Orders");
        const row = (id: number) => page.locator(`#orders tr[data-order-id="${id}"]`);
        await row(luna.body.id).waitFor({ timeout: PATIENCE });
        // Newest first, by the service's sort.
        expect(await page.locator("#orders tbody tr").first().getAttribute("data-order-id")).toBe(String(luna.body.id));
        expect(sent.some((s) => s.startsWith("GET /store/orders?sort=-id&limit=20"))).toBe(true);
        await expect.poll(() => row(max.body.id).locator("td.pet").textContent(), { timeout: PATIENCE }).toBe("Max #3");
        await expect
          .poll(() => row(luna.body.id).locator("td.pet").textContent(), { timeout: PATIENCE })
          .toBe("Luna #5");
        // Who placed it (the customer key's label, which a staff key may not read from /admin/api-keys) and when,
        // from the service's `expand=placement`.
        expect(sent.some((s) => /^GET \/store\/orders\?.*expand=placement/.test(s))).toBe(true);
        expect(await row(max.body.id).locator("td.placed-by").textContent()).toBe(`Alice's shop key #${customerKeyId}`);
        const placedText = await row(max.body.id).locator("td.placed-at").textContent();
        const placed = (await call("GET", `/store/orders/${max.body.id}?expand=placement`, staffKey)).body.placement.at;
        expect(placedText).toBe(
          await page.evaluate(
            (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }),
            placed as string,
          ),
        );
        // A staff key may not read other keys' labels: it filters by its own key (none of these are its own).
        await page.getByLabel("Placed with my key").check();
        await expect
          .poll(() => page.locator("#orders tbody td").first().textContent(), { timeout: PATIENCE })
          .toBe("No orders.");
        expect(sent.some((s) => /^GET \/store\/orders\?.*placedBy=\d+/.test(s))).toBe(true);
        await page.getByLabel("Placed with my key").uncheck();
        await row(max.body.id).waitFor({ timeout: PATIENCE });

        await page.getByRole("button", { name: /^Order: sort ascending/ }).click();
        await expect
          .poll(() => page.locator("#orders tbody tr").first().getAttribute("data-order-id"), { timeout: PATIENCE })
          .toBe(String(max.body.id));
        await page.getByRole("button", { name: /^Order: sort descending/ }).click();

        await page.getByLabel("Pet name starts with").fill("ma");
        await page.getByLabel("Pet", { exact: true }).selectOption({ label: "Max (#3)" });
        await expect
          .poll(
            () =>
              page.locator("#orders tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-order-id"))),
            {
              timeout: PATIENCE,
            },
          )
          .toEqual([String(max.body.id)]);
        expect(sent.some((s) => /^GET \/store\/orders\?.*petId=3/.test(s))).toBe(true);
        await shot("orders-by-pet");
        await page.getByLabel("Pet", { exact: true }).selectOption("");
        await page.getByLabel("Pet name starts with").fill("");
        await row(luna.body.id).waitFor({ timeout: PATIENCE });

        // An admin key reads the keys' labels (/admin/api-keys): it filters by the customer's name.
        const adminPage = await context.newPage();
        watch(adminPage);
        await adminPage.goto(`${service.origin}/console`);
        await adminPage.evaluate(() => sessionStorage.clear());
        await signIn(adminPage, service.adminKey);
        await section(adminPage, "Orders");
        await adminPage.locator(`#orders tr[data-order-id="${max.body.id}"]`).waitFor({ timeout: PATIENCE });
        await adminPage.getByLabel("Placed by").selectOption({ label: `Alice's shop (key #${customerKeyId})` });
        await expect
          .poll(() => adminPage.locator("#orders tbody tr[data-order-id]").count(), { timeout: PATIENCE })
          .toBe(2);
        await adminPage.getByLabel("Placed by").selectOption({ label: `staff at the counter (key #${staffKeyId})` });
        await expect
          .poll(() => adminPage.locator("#orders tbody td").first().textContent(), { timeout: PATIENCE })
          .toBe("No orders.");
        await adminPage.close();
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)(
      "asks before cancelling with the safe answer focused: Enter, Enter keeps the order",
      async () => {
        const first = page.locator("#orders tbody tr").first();
        const id = Number(await first.getAttribute("data-order-id"));
        await page.getByRole("button", { name: `Cancel order ${id}` }).click();
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/\|\|Keep it$/);
        await page.keyboard.press("Enter");
        await expect
          .poll(() => focused(page), { timeout: PATIENCE })
          .toMatch(new RegExp(`^button#cancel-order-${id}\\|`));
        expect((await admin("GET", `/store/orders/${id}`)).status).toBe(200);

        await page.keyboard.press("Enter");
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/\|\|Keep it$/);
        await page.keyboard.press("Escape");
        await expect
          .poll(() => page.getByRole("button", { name: "Yes, cancel" }).count(), { timeout: PATIENCE })
          .toBe(0);
        await expect
          .poll(() => focused(page), { timeout: PATIENCE })
          .toMatch(new RegExp(`^button#cancel-order-${id}\\|`));
        expect((await admin("GET", `/store/orders/${id}`)).status).toBe(200);

        await page.getByRole("button", { name: `Cancel order ${id}` }).click();
        await page.getByRole("button", { name: "Yes, cancel" }).click();
        await expect
          .poll(() => page.locator(`#orders tr[data-order-id="${id}"]`).count(), { timeout: PATIENCE })
          .toBe(0);
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/^h2#orders-title/);
        expect((await admin("GET", `/store/orders/${id}`)).status).toBe(404);
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)(
      "shows another client's order live, then completes it with confirmation",
      async () => {
        await section(page, "Live");
        await expect
          .poll(() => page.locator("#connection").getAttribute("data-state"), { timeout: PATIENCE })
          .toBe("live");
        await section(page, "Orders");
        await page.locator("#orders").waitFor({ timeout: PATIENCE });

        const placed = await call("POST", "/store/orders", customerKey, { petId: 3, quantity: 2 });
        const answeredAt = performance.now();
        expect(placed.status).toBe(201);
        const row = page.locator(`#orders tr[data-order-id="${placed.body.id}"]`);
        await row.waitFor({ timeout: PATIENCE });
        const delayMs = performance.now() - answeredAt;
        console.log(
          `[console ${store}] order ${placed.body.id} appeared in the page ${delayMs.toFixed(0)} ms after its 201`,
        );
        expect(await row.locator(".badge.new").textContent()).toBe("new");
        await expect.poll(() => row.locator("td.pet").textContent(), { timeout: PATIENCE }).toBe("Max #3");
        // Who placed it and when, read from the service once the event announced it.
        expect(await row.locator("td.placed-by").textContent()).toBe(`Alice's shop key #${customerKeyId}`);
        expect(await row.locator("td.placed-at").textContent()).toMatch(/\d/);
        await shot("order-live");

        await page.getByRole("button", { name: `Complete order ${placed.body.id}` }).click();
        await page.getByRole("button", { name: "Yes, complete" }).click();
        await expect.poll(() => row.locator(".state").textContent(), { timeout: PATIENCE }).toBe("complete");
        await expect
          .poll(() => focused(page), { timeout: PATIENCE })
          .toMatch(new RegExp(`^th#order-${placed.body.id}\\|`));
        expect((await admin("GET", `/store/orders/${placed.body.id}`)).body.complete).toBe(true);
        // The stock the orders took shows in the inventory too, from the live events: 12, less 1 and 2.
        await section(page, "Inventory");
        await expect.poll(() => stockCell(page, 3).textContent(), { timeout: PATIENCE }).toBe("9");
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)(
      "works from the keyboard alone: sign in, page, set stock",
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
        await expect.poll(() => keyboard.locator("#inventory tbody tr").count(), { timeout: PATIENCE }).toBe(20);

        const tabTo = async (matches: () => Promise<boolean>, what: string) => {
          for (let presses = 0; presses < 80; presses++) {
            if (await matches()) return;
            await keyboard.keyboard.press("Tab");
          }
          throw new Error(`Tab never reached ${what}`);
        };
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
        await expect.poll(focusedIs("#set-stock-3"), { timeout: PATIENCE }).toBe(true);
        await tabTo(
          () => keyboard.evaluate(() => document.activeElement?.getAttribute("aria-label") === "Next page of stock"),
          "Next page of stock",
        );
        await keyboard.keyboard.press("Enter");
        await expect
          .poll(() => keyboard.locator("#inventory tbody th").first().textContent(), { timeout: PATIENCE })
          .toBe("Hamster 16");
        expect(await keyboard.locator("#section-inventory .page-number").textContent()).toBe("Page 2");
        // At the last page the button stays focusable (aria-disabled): the focus does not drop to the page.
        expect(await keyboard.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
          "Next page of stock",
        );
        await shot("keyboard", keyboard);
        await keyboard.close();
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)(
      "moves a pet to another category only on Save: choosing is a draft, Cancel puts it back, Undo moves it back",
      async () => {
        const puts = () => sent.filter((s) => s === "PUT /pets/1").length;
        const before = puts();
        // A link straight to the view: the kept key signs in again, the URL gives the tab and the search.
        await page.goto(`${service.origin}/console#view=catalog&pets.name=rex`);
        const rex = page.locator('#pets tr[data-pet-id="1"]');
        await rex.waitFor({ timeout: PATIENCE });
        const select = rex.getByLabel("Category of Rex");
        // The issue's own case: one ArrowDown on the select changes it, and sends nothing.
        await select.focus();
        await page.keyboard.press("ArrowDown");
        await rex.getByRole("button", { name: "Save the category of Rex" }).waitFor({ timeout: PATIENCE });
        expect(puts()).toBe(before);
        await rex.getByRole("button", { name: "Keep the category of Rex" }).click();
        await expect.poll(() => select.inputValue(), { timeout: PATIENCE }).toBe("1");
        expect(await rex.getByRole("button", { name: "Save the category of Rex" }).count()).toBe(0);
        expect(puts()).toBe(before);

        await select.selectOption({ label: "Cats" });
        await shot("move-needs-save");
        await rex.getByRole("button", { name: "Save the category of Rex" }).click();
        const outcome = rex.locator(".done");
        await expect.poll(() => outcome.textContent(), { timeout: PATIENCE }).toMatch(/^Rex moved to Cats\.\s*Undo$/);
        expect(puts()).toBe(before + 1);
        expect((await admin("GET", "/pets?ids=1")).body[0].categoryId).toBe(2);
        await rex.getByRole("button", { name: "Undo" }).click();
        await expect.poll(() => outcome.textContent(), { timeout: PATIENCE }).toMatch(/^Rex moved back to Dogs\.$/);
        expect((await admin("GET", "/pets?ids=1")).body[0].categoryId).toBe(1);
        expect(await select.inputValue()).toBe("1");
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)("finds STRAẞE by Straße and the other way round, as the service folds names", async () => {
      const cats = (await admin("GET", "/categories?limit=100")).body.find((c: { name: string }) => c.name === "Cats");
      const strasse = (await admin("POST", "/pets", { name: "Straße", categoryId: cats.id })).body;
      const capital = (await admin("POST", "/pets", { name: "STRAẞE 2", categoryId: cats.id })).body;
      await page.goto(`${service.origin}/console#view=catalog&pets.name=${encodeURIComponent("STRAẞE")}`);
      await expect.poll(() => rowNames(page, "pets"), { timeout: PATIENCE }).toEqual(["Straße", "STRAẞE 2"]);
      await page.getByLabel("Name starts with", { exact: true }).fill("strasse");
      await expect.poll(() => page.url(), { timeout: PATIENCE }).toContain("pets.name=strasse");
      await expect.poll(() => rowNames(page, "pets"), { timeout: PATIENCE }).toEqual(["Straße", "STRAẞE 2"]);
      expect((await admin("DELETE", `/pets/${strasse.id}`)).status).toBe(204);
      expect((await admin("DELETE", `/pets/${capital.id}`)).status).toBe(204);
    });

    it.runIf(enabled)(
      "keeps the view in the URL: Back and Forward move between views, a reload restores one, a link opens it for someone else",
      async () => {
        await page.goto(`${service.origin}/console`);
        await page.locator("#inventory tbody tr").first().waitFor({ timeout: PATIENCE });
        const visible = (id: string) => page.locator(`#section-${id}`).isVisible();
        await section(page, "Orders");
        await section(page, "Pets and categories");
        await page.goBack();
        await expect.poll(() => visible("orders"), { timeout: PATIENCE }).toBe(true);
        await page.goForward();
        await expect.poll(() => visible("catalog"), { timeout: PATIENCE }).toBe(true);

        await page.getByLabel("Name starts with", { exact: true }).fill("ham");
        await expect.poll(() => page.url(), { timeout: PATIENCE }).toContain("pets.name=ham");
        await page.getByLabel("In category").selectOption({ label: "Rodents" });
        await page.getByRole("button", { name: /^Id: sort ascending/ }).click();
        await page.locator("#pets-size").selectOption("10");
        const hamsters = (from: number) => Array.from({ length: 10 }, (_, i) => `Hamster ${from + i}`);
        await expect.poll(() => rowNames(page, "pets"), { timeout: PATIENCE }).toEqual(hamsters(1));
        await page.getByRole("button", { name: "Next page of pets" }).click();
        await expect.poll(() => rowNames(page, "pets"), { timeout: PATIENCE }).toEqual(hamsters(11));
        expect(await page.locator("#pets-size-range").textContent()).toBe("11–20 of 20");
        const link = page.url();
        expect(link).toMatch(/#view=catalog/);
        expect(link).toMatch(/pets\.sort=id/);
        expect(link).toMatch(/pets\.size=10/);
        expect(link).toMatch(/pets\.page=after%3D15/);
        expect(link).not.toContain(staffKey);
        await shot("view-in-url");

        // Back: the first page of the same view; Back again: twenty a page; Forward twice: the second page again.
        await page.goBack();
        await expect.poll(() => rowNames(page, "pets"), { timeout: PATIENCE }).toEqual(hamsters(1));
        expect(await page.locator("#section-catalog .page-number").last().textContent()).toBe("Page 1");
        await page.goBack();
        await expect.poll(() => page.locator("#pets tbody tr").count(), { timeout: PATIENCE }).toBe(20);
        await page.goForward();
        await page.goForward();
        await expect.poll(() => rowNames(page, "pets"), { timeout: PATIENCE }).toEqual(hamsters(11));

        // A reload restores the view, the fields included.
        await page.reload();
        await expect.poll(() => rowNames(page, "pets"), { timeout: PATIENCE }).toEqual(hamsters(11));
        expect(await page.getByLabel("Name starts with", { exact: true }).inputValue()).toBe("ham");
        expect(await page.getByLabel("In category").inputValue()).toBe("3");
        expect(await page.locator("#pets th[aria-sort=ascending]").textContent()).toMatch(/Id/);

        // The link, copied to another member of staff (another browser, another key).
        const other = await browser.newContext({ viewport: DESKTOP });
        const theirs = await other.newPage();
        watch(theirs);
        await theirs.goto(link);
        await theirs.getByLabel("API key").fill(service.adminKey);
        await theirs.getByRole("button", { name: "Sign in" }).click();
        await expect.poll(() => rowNames(theirs, "pets"), { timeout: PATIENCE }).toEqual(hamsters(11));
        expect(await theirs.locator("#section-catalog").isVisible()).toBe(true);
        await other.close();
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)("searches and sorts the inventory by name, in the URL", async () => {
      await page.goto(`${service.origin}/console`);
      await page.locator("#inventory tbody tr").first().waitFor({ timeout: PATIENCE });
      await page.getByLabel("Search pets by name").fill("hamster 1");
      await expect
        .poll(() => rowNames(page, "inventory"), { timeout: PATIENCE })
        .toEqual(["Hamster 1", ...Array.from({ length: 10 }, (_, i) => `Hamster ${10 + i}`)]);
      expect(sent.some((s) => /^GET \/store\/inventory\?.*name=hamster%201/.test(s))).toBe(true);
      expect(await page.locator("#inventory-size-range").textContent()).toBe("1–11 of 11");
      await page.getByLabel("Search pets by name").fill("");
      await page.getByRole("button", { name: /^Pet: sort ascending/ }).click();
      await expect
        .poll(async () => (await rowNames(page, "inventory")).slice(0, 4), { timeout: PATIENCE })
        .toEqual(["Bella", "Hamster 1", "Hamster 2", "Hamster 3"]);
      expect(page.url()).toContain("inventory.sort=name");
      expect(sent.some((s) => /^GET \/store\/inventory\?sort=name&limit=20/.test(s))).toBe(true);
      await page.getByRole("button", { name: /^Pet id: sort ascending/ }).click();
      await expect.poll(async () => (await rowNames(page, "inventory"))[0], { timeout: PATIENCE }).toBe("Rex");
    });

    it.runIf(enabled)(
      "completes and cancels selected orders in bulk, confirmed with a count, with a report per order",
      async () => {
        const place = async (petId: number) =>
          (await call("POST", "/store/orders", customerKey, { petId, quantity: 1 })).body.id as number;
        const [a, b, c] = [await place(6), await place(7), await place(8)];
        await page.goto(`${service.origin}/console#view=orders&orders.state=open`);
        const row = (id: number) => page.locator(`#orders tr[data-order-id="${id}"]`);
        for (const id of [a, b, c]) await row(id).waitFor({ timeout: PATIENCE });
        for (const id of [a, b, c]) await page.getByLabel(`Select order ${id}`).check();
        expect(await page.locator("#selected-count").textContent()).toBe("3 orders selected");
        await page.getByRole("button", { name: "Complete selected" }).click();
        const dialog = page.getByRole("dialog");
        await expect.poll(() => dialog.getAttribute("aria-label"), { timeout: PATIENCE }).toBe("Complete 3 orders?");
        expect(await dialog.textContent()).toMatch(/cannot be undone/);
        await shot("bulk-confirm");
        // Meanwhile someone completes one of them: the report says so for that order.
        expect((await call("PATCH", `/store/orders/${b}`, staffKey, { complete: true })).status).toBe(200);
        await dialog.getByRole("button", { name: "Yes, complete" }).click();
        const report = page.locator("#bulk-report");
        await report.waitFor({ timeout: PATIENCE });
        // In the page's order, newest first.
        expect(await report.locator("li").allTextContents()).toEqual([
          `Order ${c} completed.`,
          expect.stringMatching(new RegExp(`^Order ${b} not completed: .*complete`)),
          `Order ${a} completed.`,
        ]);
        expect(await report.locator("p").textContent()).toBe("2 of 3 orders done.");
        await expect.poll(() => focused(page), { timeout: PATIENCE }).toMatch(/^div#bulk-report/);
        await shot("bulk-report");
        for (const id of [a, c]) expect((await admin("GET", `/store/orders/${id}`)).body.complete).toBe(true);

        const [d, e] = [await place(9), await place(10)];
        for (const id of [d, e]) await row(id).waitFor({ timeout: PATIENCE });
        await page.getByLabel("Select every open order on this page").check();
        const open = await page.locator("#orders tbody input[type=checkbox]:checked").count();
        await page.getByRole("button", { name: "Cancel selected" }).click();
        await expect
          .poll(() => dialog.getAttribute("aria-label"), { timeout: PATIENCE })
          .toBe(`Cancel ${open} orders?`);
        await dialog.getByRole("button", { name: "Yes, cancel" }).click();
        await expect
          .poll(() => report.locator("p").textContent(), { timeout: PATIENCE })
          .toBe(`${open} of ${open} orders done.`);
        for (const id of [d, e]) {
          expect((await admin("GET", `/store/orders/${id}`)).status).toBe(404);
          expect(await row(id).count()).toBe(0);
        }
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)("opens a confirmation above the table without moving it", async () => {
      const id = await (async () =>
        (await call("POST", "/store/orders", customerKey, { petId: 11, quantity: 1 })).body.id as number)();
      await page.goto(`${service.origin}/console#view=orders`);
      await page.locator(`#orders tr[data-order-id="${id}"]`).waitFor({ timeout: PATIENCE });
      const boxes = () =>
        page.evaluate(() =>
          [...document.querySelectorAll("#orders, #orders thead th, #orders tbody tr")].map((e) => {
            const r = e.getBoundingClientRect();
            return [r.x, r.y, r.width, r.height].map(Math.round).join(",");
          }),
        );
      const before = await boxes();
      await page.getByRole("button", { name: `Complete order ${id}` }).click();
      await page.getByRole("dialog").waitFor({ timeout: PATIENCE });
      expect(await boxes()).toEqual(before);
      await page.keyboard.press("Escape");
      await expect.poll(() => page.getByRole("dialog").count(), { timeout: PATIENCE }).toBe(0);
      expect(await boxes()).toEqual(before);
      expect((await admin("GET", `/store/orders/${id}`)).body.complete).toBe(false);
    });

    it.runIf(enabled)(
      "exports the orders and the stock as filtered now to CSV, page by page, as the API lists them",
      async () => {
        const csvOf = async (button: string) => {
          const download = page.waitForEvent("download", { timeout: PATIENCE });
          await page.locator(button).click();
          const file = await (await download).path();
          return readFileSync(file, "utf8").trimEnd().split("\r\n");
        };
        await page.goto(`${service.origin}/console#view=orders&orders.state=complete`);
        await page.locator("#orders tbody tr").first().waitFor({ timeout: PATIENCE });
        const orders = await csvOf("#orders-export");
        expect(orders[0]).toBe("id,petId,pet,quantity,shipDate,complete,placedAt,placedById,placedBy");
        const listed = (await call("GET", "/store/orders?state=complete&sort=-id&limit=100", staffKey)).body as {
          id: number;
        }[];
        expect(orders.slice(1).map((line) => Number(line.split(",")[0]))).toEqual(listed.map((o) => o.id));
        expect(orders.slice(1).every((line) => line.includes(",true,"))).toBe(true);
        expect(sent.some((s) => /^GET \/store\/orders\?sort=-id&limit=100&state=complete/.test(s))).toBe(true);
        await expect
          .poll(() => page.locator("#orders-export-status").textContent(), { timeout: PATIENCE })
          .toBe(`Exported ${listed.length} orders to orders.csv.`);

        await section(page, "Inventory");
        const stock = await csvOf("#inventory-export");
        expect(stock[0]).toBe("petId,name,categoryId,category,status,quantity");
        expect(stock[1]).toMatch(/^1,Rex,1,Dogs,available,\d+$/);
        const items = await call("GET", "/store/inventory?limit=100", staffKey);
        expect(stock.length - 1).toBe(items.body.length);
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)(
      "shows a refused page next to the pager that asked for it, with the wait, and loads it when the wait is over",
      async () => {
        const { limited, tight } = await signedInWithin(40);
        await expect.poll(() => tight.locator("#inventory tbody tr").count(), { timeout: PATIENCE }).toBe(20);
        let status = 0;
        while (status !== 429) status = (await call("GET", "/me", limited)).status;
        await tight.getByRole("button", { name: "Next page of stock" }).click();
        const beside = tight.locator("#section-inventory .pager-outcome [role=alert]");
        await beside.waitFor({ timeout: PATIENCE });
        expect(await beside.textContent()).toMatch(/Too many requests.*Trying again in \d+ s\./s);
        await shot("refused-beside-pager", tight);
        // When the window turns, the page that was asked for loads without another click.
        await expect
          .poll(async () => (await rowNames(tight, "inventory"))[0], { timeout: 2 * PATIENCE })
          .toBe("Hamster 16");
        await tight.close();
      },
      4 * PATIENCE,
    );

    let audit: BrowserContext | undefined;
    let audited: Page | undefined;
    /** axe is injected as a script: this context alone lets the test's own script past the console's CSP. */
    const auditPage = async () => {
      if (audited) return audited;
      audit = await browser.newContext({ viewport: DESKTOP, bypassCSP: true });
      audited = await audit.newPage();
      watch(audited);
      await audited.goto(`${service.origin}/console`);
      return audited;
    };
    afterAll(() => audit?.close().catch(() => undefined));

    for (const scheme of ["light", "dark"] as const) {
      for (const [width, viewport] of [
        ["desktop", DESKTOP],
        ["phone", PHONE],
      ] as const) {
        it.runIf(enabled)(
          `has no serious or critical accessibility violations (axe-core), ${scheme}, ${width} width, no sideways scrolling`,
          async () => {
            // One page for the four audits (its cached assets spare the address's rate limit), emulating each mode
            // and width; signed out first, to audit the sign-in page too.
            const a11y = await auditPage();
            await a11y.emulateMedia({ colorScheme: scheme });
            await a11y.setViewportSize(viewport);
            await a11y.evaluate(() => sessionStorage.clear());
            await a11y.goto(`${service.origin}/console`);
            await a11y.addScriptTag({ path: AXE });
            expect(await a11y.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches)).toBe(
              scheme === "dark",
            );
            const background = await a11y.evaluate(() => getComputedStyle(document.body).backgroundColor);
            expect(background).toBe(scheme === "dark" ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)");
            const wide = () => a11y.evaluate(() => document.documentElement.scrollWidth);
            await axeCheck(a11y, "sign-in page");
            if (width === "phone") expect(await wide()).toBeLessThanOrEqual(PHONE.width);
            await a11y.screenshot({ path: join(SHOTS, `${store}-sign-in-${width}-${scheme}.png`), fullPage: true });
            await a11y.getByLabel("API key").fill(staffKey);
            await a11y.getByRole("button", { name: "Sign in" }).click();
            await expect.poll(() => a11y.locator("#inventory tbody tr").count(), { timeout: PATIENCE }).toBe(20);
            for (const name of SECTIONS) {
              await section(a11y, name);
              const id = { Inventory: "inventory", Orders: "orders", "Pets and categories": "pets", Live: "chart" }[
                name
              ];
              await a11y.locator(`#${id}`).waitFor({ timeout: PATIENCE });
              if (name === "Pets and categories") {
                await expect.poll(() => a11y.locator("#pets tbody tr").count(), { timeout: PATIENCE }).toBe(20);
                // Show a form's message and a confirmation too, so they are checked and pictured.
                await a11y.getByRole("button", { name: "Create category" }).click();
                await a11y.locator("#new-category-problem").waitFor({ timeout: PATIENCE });
              }
              if (name === "Orders") {
                await a11y.locator("#orders tbody tr[data-order-id]").first().waitFor();
                // A confirmation open over the table, checked and pictured too.
                await a11y.locator("#orders tbody input[type=checkbox]").first().check();
                await a11y.getByRole("button", { name: "Cancel selected" }).click();
                await a11y.getByRole("dialog").waitFor({ timeout: PATIENCE });
                await axeCheck(a11y, `Orders with a confirmation, ${scheme}, ${width}`);
                await a11y.screenshot({ path: join(SHOTS, `${store}-confirm-${width}-${scheme}.png`) });
                await a11y.keyboard.press("Escape");
                await expect.poll(() => a11y.getByRole("dialog").count(), { timeout: PATIENCE }).toBe(0);
              }
              await axeCheck(a11y, `${name}, ${scheme}, ${width}`);
              if (width === "phone")
                expect(await wide(), `${name} at ${PHONE.width} px`).toBeLessThanOrEqual(PHONE.width);
              const file = name.split(" ")[0]!.toLowerCase();
              await a11y.screenshot({ path: join(SHOTS, `${store}-${file}-${width}-${scheme}.png`), fullPage: true });
            }
          },
          6 * PATIENCE,
        );
      }
    }

    it.runIf(enabled)(
      "counts down at sign-in when the key is rate limited, and signs in by itself when the wait is over",
      async () => {
        const limited = (await newKey("staff", "enterprise", { perMinute: 2, perDay: 1000 })).key;
        const tight = await context.newPage();
        watch(tight);
        await tight.goto(`${service.origin}/console`);
        await tight.evaluate(() => sessionStorage.clear());
        await tight.reload();
        // Spend the minute's quota elsewhere, so signing in is refused with 429.
        let status = 0;
        while (status !== 429) status = (await call("GET", "/me", limited)).status;
        await tight.getByLabel("API key").fill(limited);
        await tight.getByRole("button", { name: "Sign in" }).click();
        const countdown = tight.locator("#sign-in-limited .countdown");
        await countdown.waitFor({ timeout: PATIENCE });
        const first = Number(await countdown.textContent());
        expect(first).toBeGreaterThan(0);
        expect(first).toBeLessThanOrEqual(60);
        expect(await tight.locator("#sign-in-limited").textContent()).toMatch(
          /Too many requests.*Signing in again in \d+ s/s,
        );
        expect(await tight.getByRole("button", { name: /Sign in/ }).getAttribute("aria-disabled")).toBe("true");
        await shot("sign-in-429", tight);
        // A real countdown: the figure goes down as time passes (no sleep: wait until it has), and at its end the page
        // signs in with the same key by itself.
        if (first > 1) {
          await expect
            .poll(async () => Number(await countdown.textContent()), { timeout: PATIENCE })
            .toBeLessThan(first);
        }
        await tight.locator("#who").waitFor({ timeout: 2 * PATIENCE });
        expect(await tight.locator("#sign-in-limited").count()).toBe(0);
        await tight.close();
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)(
      "counts down from Retry-After when the key is rate limited, the quota line agreeing with the banner",
      async () => {
        const { tight } = await signedInWithin(4);
        // Its first loads (stock, names, categories, the stream, orders) are more than 4 in a minute.
        const countdown = tight.locator("#rate-limited .countdown");
        await countdown.waitFor({ timeout: PATIENCE });
        const seconds = Number(await countdown.textContent());
        expect(seconds).toBeGreaterThanOrEqual(0);
        expect(seconds).toBeLessThanOrEqual(60);
        expect(await tight.locator("#rate-limited").textContent()).toMatch(/Too many requests.*work again in \d+ s/s);
        expect(await tight.locator("#quota").textContent()).toMatch(/^\s*0 of 4 requests left this minute\s*$/);
        await shot("rate-limited-429", tight);
        await tight.close();
      },
    );

    it.runIf(enabled)(
      "says why a reload cannot sign in again, with the wait, when the kept key is refused",
      async () => {
        // The day's budget, spent: refused until the day turns, whatever the minute does meanwhile.
        const { limited, tight } = await signedInWithin(30, 30);
        let status = 0;
        while (status !== 429) status = (await call("GET", "/me", limited)).status;
        await tight.reload();
        const notice = tight.locator("#sign-in-limited");
        await notice.waitFor({ timeout: PATIENCE });
        expect(await notice.textContent()).toMatch(/Too many requests.*Signing in again in \d+ s/s);
        expect(Number(await notice.locator(".countdown").textContent())).toBeGreaterThan(0);
        await shot("reload-429", tight);
        await tight.close();
      },
      4 * PATIENCE,
    );

    it.runIf(enabled)("served the page and its assets without a CSP refusal or a script error", () => {
      expect(problems).toEqual([]);
    });
  },
  4 * PATIENCE,
);
