// @ts-check
// The staff console: Preact with htm, bundled into one script the service serves itself (no CDN). This file holds
// the page's frame (sign-in or the signed-in shell, the tab in the URL); each section and concern has its own module.

import { render } from "preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, allPages, createApi, explain } from "./api.js";
import { Catalog } from "./catalog.js";
import { createBus, followEvents } from "./events.js";
import { Inventory } from "./inventory.js";
import { Live } from "./live.js";
import { Notices, QuotaLine } from "./notices.js";
import { Orders } from "./orders.js";
import { SignIn } from "./sign-in.js";
import { html } from "./ui.js";
import { navigate, useUrl } from "./url-state.js";

/** Where the key is kept: this tab only, gone when it closes; never in a URL. */
const KEY_STORAGE = "petstore.console.key";

/**
 * @typedef {import("./api.js").Me} Me
 * @typedef {import("./api.js").Problem} Problem
 * @typedef {import("./api.js").Quota} Quota
 * @typedef {import("./api.js").Category} Category
 */

const sections = [
  ["inventory", "Inventory"],
  ["orders", "Orders"],
  ["catalog", "Pets and categories"],
  ["live", "Live"],
];

/**
 * Lookups every section shares: category names (all of them, a bounded number of pages, for pickers and the
 * category column) and, for an admin key, the keys' labels (staff keys may not read them).
 * @param {import("./api.js").Api} api
 * @param {Me} me
 */
const useLookups = (api, me) => {
  const [categories, setCategories] = useState(/** @type {Map<number, Category>} */ (new Map()));
  const [labels, setLabels] = useState(/** @type {Map<number, string>} */ (new Map()));
  const loadCategories = useCallback(async () => {
    try {
      const all = await allPages(api, "/categories?limit=100");
      setCategories(new Map(all.map((/** @type {Category} */ c) => [c.id, c])));
    } catch {
      // The sections show their own refusals; names fall back to ids.
    }
  }, [api]);
  useEffect(() => {
    void loadCategories();
    if (me.role !== "admin") return;
    allPages(api, "/admin/api-keys?limit=100")
      .then((keys) => setLabels(new Map(keys.map((/** @type {{ id: number, label: string }} */ k) => [k.id, k.label]))))
      .catch(() => undefined);
  }, [api]);
  return { categories, labels, loadCategories };
};

/**
 * @param {{ apiKey: string, me: Me, onSignOut: (message?: string) => void }} props
 */
const Console = ({ apiKey, me, onSignOut }) => {
  const [problem, setProblem] = useState(/** @type {Problem | undefined} */ (undefined));
  const [quota, setQuota] = useState(/** @type {Quota | undefined} */ (undefined));
  const { params } = useUrl();
  const asked = params.get("view") ?? "";
  const current = sections.some(([id]) => id === asked) ? asked : "inventory";
  // Signed in: the focus goes to the page's first heading, where a screen reader starts reading.
  useEffect(() => document.getElementById("console-title")?.focus(), []);
  const [connection, setConnection] = useState(/** @type {import("./events.js").Connection} */ ("connecting"));
  const [generation, setGeneration] = useState(0);
  const bus = useMemo(createBus, []);
  const report = useCallback((/** @type {Problem} */ event, /** @type {Quota | undefined} */ figures) => {
    if (figures) setQuota(figures);
    if (event.kind === "ok") setProblem((p) => (p?.kind === "offline" ? undefined : p));
    else if (event.kind === "unauthorized")
      onSignOut("Your key is no longer valid (revoked or changed). Sign in again.");
    else setProblem(event);
  }, []);
  const api = useMemo(() => createApi(apiKey, report), [apiKey]);
  const lookups = useLookups(api, me);
  useEffect(() => followEvents(apiKey, bus, setConnection), [apiKey]);
  const canWrite = me.role !== "customer";
  const limited = problem?.kind === "rate_limited" || problem?.kind === "banned";
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to the content</a>
    <header>
      <h1 id="console-title" tabindex="-1">Petstore console</h1>
      <p class="who" id="who">
        <strong>${me.label}</strong> <span class="muted">(<span id="who-role">${me.role}</span>, ${me.plan} plan, key #${me.id})</span>
        <${QuotaLine} quota=${quota} limited=${limited} />
      </p>
      <button type="button" onClick=${() => onSignOut()}>Sign out</button>
    </header>
    ${canWrite ? null : html`<p class="notice">This is a customer key: you can look, but changes need a staff or admin key.</p>`}
    <${Notices} problem=${problem} onRetry=${() => {
      setProblem(undefined);
      setGeneration((g) => g + 1);
    }} />
    <nav aria-label="Sections">
      <ul>
        ${sections.map(
          ([id, label]) => html`<li key=${id}>
            <button type="button" class="tab" aria-current=${current === id ? "page" : undefined} aria-controls=${`section-${id}`} onClick=${() => navigate({ view: id === "inventory" ? "" : id })}>${label}</button>
          </li>`,
        )}
      </ul>
    </nav>
    <main id="main" tabindex="-1" key=${generation}>
      <div id="section-inventory" hidden=${current !== "inventory"}>
        <${Inventory} api=${api} bus=${bus} canWrite=${canWrite} categories=${lookups.categories} />
      </div>
      <div id="section-orders" hidden=${current !== "orders"}>
        <${Orders} api=${api} bus=${bus} canWrite=${canWrite} me=${me} labels=${lookups.labels} />
      </div>
      <div id="section-catalog" hidden=${current !== "catalog"}>
        <${Catalog} api=${api} canWrite=${canWrite} categories=${lookups.categories} onCategoriesChanged=${lookups.loadCategories} />
      </div>
      <div id="section-live" hidden=${current !== "live"}><${Live} bus=${bus} connection=${connection} /></div>
    </main>
  </div>`;
};

/** @typedef {{ notice?: string | undefined, key?: string, limitedUntil?: number }} SignInState */

const App = () => {
  const [session, setSession] = useState(/** @type {{ key: string, me: Me } | undefined} */ (undefined));
  const [signIn, setSignIn] = useState(/** @type {SignInState} */ ({}));
  const [checking, setChecking] = useState(() => sessionStorage.getItem(KEY_STORAGE) !== null);
  useEffect(() => {
    const kept = sessionStorage.getItem(KEY_STORAGE);
    if (kept === null) return;
    createApi(kept, () => undefined)("GET", "/me")
      .then((res) => setSession({ key: kept, me: res.body }))
      .catch((e) => {
        if (e instanceof ApiError && e.status === 429) {
          // Refused for now: the sign-in page says so with the wait, and tries the kept key again when it is over.
          setSignIn({ key: kept, limitedUntil: Date.now() + e.retryAfter * 1000 });
          return;
        }
        if (e.status === 401) sessionStorage.removeItem(KEY_STORAGE);
        setSignIn({ notice: e.status === 401 ? "Your key is no longer valid. Sign in again." : explain(e) });
      })
      .finally(() => setChecking(false));
  }, []);
  if (checking) return html`<p class="loading">Loading…</p>`;
  if (!session) {
    return html`<${SignIn}
      notice=${signIn.notice}
      initialKey=${signIn.key}
      initialLimitedUntil=${signIn.limitedUntil}
      onSignedIn=${(/** @type {string} */ key, /** @type {Me} */ me) => {
        sessionStorage.setItem(KEY_STORAGE, key);
        setSignIn({});
        setSession({ key, me });
      }}
    />`;
  }
  return html`<${Console}
    apiKey=${session.key}
    me=${session.me}
    onSignOut=${(/** @type {string | undefined} */ message) => {
      sessionStorage.removeItem(KEY_STORAGE);
      setSignIn({ notice: message });
      setSession(undefined);
    }}
  />`;
};

const root = document.getElementById("app");
if (root) {
  // The page's own "Loading…" goes; Preact renders into an empty element.
  root.replaceChildren();
  render(html`<${App} />`, root);
}
