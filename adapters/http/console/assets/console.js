// The staff console: Preact with htm, served as ES modules by the service itself (no build step, no CDN).
import { h, render } from "./preact.mjs";
import { useCallback, useEffect, useMemo, useRef, useState } from "./hooks.mjs";
import htm from "./htm.mjs";

const html = htm.bind(h);

/** Where the key is kept: this tab only, gone when it closes; never in a URL. */
const KEY_STORAGE = "petstore.console.key";
const LOW_STOCK = 2;

// --- Talking to the service -----------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** What a person reads for a refused request, in place: the service's own message, and what to do. */
const explain = (error) => {
  if (!(error instanceof ApiError)) return String(error?.message ?? error);
  if (error.status === 403 && error.code === "forbidden") return `Your key may not do this: ${error.message}.`;
  if (error.status === 429) return "Too many requests: wait for the countdown above, then try again.";
  if (error.status === 503) return "The service is unavailable right now: try again in a moment.";
  const details = (error.details ?? []).map((d) => d.message).join("; ");
  return details ? `${error.message}: ${details}` : error.message;
};

/** A fetch with the key; refusals become ApiErrors, and the ones that concern the whole page are reported. */
const createApi =
  (key, report) =>
  async (method, path, options = {}) => {
    const headers = { "X-API-Key": key };
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    if (options.ifMatch) headers["If-Match"] = options.ifMatch;
    let response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
    } catch {
      report({ kind: "offline" });
      throw new ApiError(0, "offline", "The service cannot be reached");
    }
    const text = await response.text();
    const json = text && (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : undefined;
    const usage = {
      remaining: Number(response.headers.get("x-ratelimit-remaining")),
      limit: Number(response.headers.get("x-ratelimit-limit")),
    };
    if (response.ok) {
      report({ kind: "ok", usage });
      return {
        status: response.status,
        body: json,
        etag: response.headers.get("etag"),
        link: response.headers.get("link"),
      };
    }
    const error = new ApiError(
      response.status,
      json?.code ?? "error",
      json?.message ?? response.statusText,
      json?.details,
    );
    const retryAfter = Math.max(1, Number(response.headers.get("retry-after")) || 0);
    if (response.status === 429)
      report({ kind: "rate_limited", until: Date.now() + retryAfter * 1000, message: error.message });
    else if (response.status === 503)
      report({ kind: "unavailable", until: Date.now() + retryAfter * 1000, message: error.message });
    else if (response.status === 401) report({ kind: "unauthorized", message: error.message });
    else if (error.code === "api_key_banned")
      report({ kind: "banned", until: Date.now() + retryAfter * 1000, message: error.message });
    throw error;
  };

/** Every page of a list, following `Link: rel="next"`, up to `maxPages`. */
const allPages = async (api, path, maxPages = 10) => {
  const items = [];
  let next = path;
  for (let page = 0; next && page < maxPages; page++) {
    const res = await api("GET", next);
    items.push(...res.body);
    next = /<([^>]+)>;\s*rel="next"/.exec(res.link ?? "")?.[1];
  }
  return items;
};

// --- Live events ----------------------------------------------------------------------------------------------

/** Subscribers to the event stream, by any part of the page. */
const createBus = () => {
  const listeners = new Set();
  return {
    on: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit: (event) => listeners.forEach((listener) => listener(event)),
  };
};

/**
 * Follows GET /events with fetch (EventSource cannot send the key in a header): parses the stream, remembers the
 * last id and resumes after it, waiting `retry` between connections.
 */
const followEvents = (key, bus, setState) => {
  let stopped = false;
  let lastEventId;
  let retryMs = 2000;
  let controller;
  const connect = async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const headers = { "X-API-Key": key };
        if (lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
        const response = await fetch("/events", { headers, signal: controller.signal });
        if (response.status === 403) return setState("forbidden");
        if (response.status === 401) return setState("unauthorized");
        if (!response.ok || !response.body) throw new Error(`status ${response.status}`);
        setState("live");
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const message = {};
            for (const line of block.split("\n")) {
              if (line.startsWith(":")) continue;
              const colon = line.indexOf(":");
              const field = colon < 0 ? line : line.slice(0, colon);
              const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
              message[field] = message[field] === undefined ? value : `${message[field]}\n${value}`;
            }
            if (message.retry) retryMs = Number(message.retry) || retryMs;
            if (message.id !== undefined) lastEventId = message.id;
            // `reset`: the stream stands at `from` now; `end`: it closes, and the reconnection is authorized afresh.
            if (message.event === "reset") lastEventId = JSON.parse(message.data).from;
            else if (message.event !== "end" && message.data !== undefined) bus.emit(JSON.parse(message.data));
          }
        }
      } catch {
        // A dropped connection or a refused one: wait `retry`, then resume after the last id.
      }
      if (stopped) return;
      setState("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  };
  void connect();
  return () => {
    stopped = true;
    controller?.abort();
  };
};

// --- Small parts ----------------------------------------------------------------------------------------------

const Alert = ({ message }) => (message ? html`<p class="error" role="alert">${message}</p>` : null);

/** Seconds left until `until`, ticking. */
const useCountdown = (until) => {
  // The tick only re-renders; the time is read at render, so a deadline set after the last tick never reads long.
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!until) return undefined;
    const timer = setInterval(() => setTick((n) => n + 1), 250);
    return () => clearInterval(timer);
  }, [until]);
  return until ? Math.max(0, Math.ceil((until - Date.now()) / 1000)) : 0;
};

/** Focuses the element once it appears: for an editor or a confirmation the keyboard user just opened. */
const useAutoFocus = () => {
  const ref = useRef(null);
  useEffect(() => ref.current?.focus(), []);
  return ref;
};

const Confirm = ({ question, yes, no, onYes, onNo }) => {
  const first = useAutoFocus();
  return html`<span class="confirm" role="group" aria-label=${question}>
    <span>${question}</span>
    <button ref=${first} class="danger" onClick=${onYes}>${yes}</button>
    <button onClick=${onNo}>${no}</button>
  </span>`;
};

// --- Sign in --------------------------------------------------------------------------------------------------

const SignIn = ({ onSignedIn, notice }) => {
  const [key, setKey] = useState("");
  const [error, setError] = useState(notice ?? "");
  const [busy, setBusy] = useState(false);
  const input = useAutoFocus();
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError("");
    try {
      const res = await createApi(key.trim(), () => undefined)("GET", "/me");
      onSignedIn(key.trim(), res.body);
    } catch (e) {
      setError(e.status === 401 ? "That key is unknown or revoked. Check it and try again." : explain(e));
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin">
    <h1>Petstore staff console</h1>
    <form onSubmit=${submit}>
      <label for="api-key">API key</label>
      <input id="api-key" ref=${input} type="password" autocomplete="off" required value=${key} onInput=${(e) => setKey(e.currentTarget.value)} />
      <p class="hint">Kept in this browser tab only (session storage) until you sign out or close the tab.</p>
      <button type="submit" disabled=${busy}>${busy ? "Signing in…" : "Sign in"}</button>
      <${Alert} message=${error} />
    </form>
  </main>`;
};

// --- Page-wide notices: 429, 503, bans, the connection --------------------------------------------------------

const Notices = ({ problem, onRetry }) => {
  const seconds = useCountdown(problem?.until);
  useEffect(() => {
    if (problem?.until && seconds === 0) onRetry();
  }, [seconds, problem]);
  if (!problem) return null;
  if (problem.kind === "rate_limited") {
    return html`<div class="notice warn" role="status" id="rate-limited">
      <strong>Too many requests.</strong> This key has used its quota for now. You can work again in <span class="countdown">${seconds}</span> s.
    </div>`;
  }
  if (problem.kind === "unavailable") {
    return html`<div class="notice warn" role="status" id="unavailable">
      <strong>The service is unavailable right now.</strong> ${problem.message}. Retrying in <span class="countdown">${seconds}</span> s; nothing you did was lost.
    </div>`;
  }
  if (problem.kind === "banned") {
    return html`<div class="notice error-notice" role="alert">
      <strong>This key is banned</strong> for calling on while rate limited. It works again in <span class="countdown">${seconds}</span> s.
    </div>`;
  }
  if (problem.kind === "offline") {
    return html`<div class="notice warn" role="status"><strong>The service cannot be reached.</strong> Check the network; the page keeps trying.</div>`;
  }
  return null;
};

// --- Inventory ------------------------------------------------------------------------------------------------

const StockEditor = ({ api, row, onDone, onCancel }) => {
  const [state, setState] = useState({ loading: true });
  const input = useRef(null);
  useEffect(() => {
    api("GET", `/store/inventory/${row.id}`)
      .then((res) => {
        setState({ etag: res.etag, value: String(res.body.quantity), was: res.body.quantity });
        setTimeout(() => input.current?.focus());
      })
      .catch((e) => setState({ error: explain(e) }));
  }, []);
  const save = async (event) => {
    event.preventDefault();
    try {
      const res = await api("PUT", `/store/inventory/${row.id}`, {
        body: { quantity: Number(state.value) },
        ifMatch: state.etag,
      });
      onDone(res.body);
    } catch (e) {
      if (e.status === 412) {
        const fresh = await api("GET", `/store/inventory/${row.id}`).catch(() => undefined);
        setState({
          ...state,
          etag: fresh?.etag,
          was: fresh?.body.quantity,
          error: `Not saved: the stock changed meanwhile. It is now ${fresh?.body.quantity ?? "unknown"}. Save again to set ${state.value} over it.`,
          newer: fresh?.body.quantity,
        });
      } else setState({ ...state, error: explain(e) });
    }
  };
  if (state.loading) return html`<span>Loading…</span>`;
  return html`<form class="inline" onSubmit=${save} onKeyDown=${(e) => e.key === "Escape" && onCancel()}>
    <label for=${`stock-${row.id}`} class="visually-hidden">New stock for ${row.name}</label>
    <input id=${`stock-${row.id}`} ref=${input} type="number" min="0" max="1000000" required value=${state.value ?? ""}
      onInput=${(e) => setState({ ...state, value: e.currentTarget.value })} />
    <button type="submit">Save</button>
    <button type="button" onClick=${onCancel}>Cancel</button>
    ${state.newer !== undefined ? html`<span class="newer">Newer value: <strong>${state.newer}</strong></span>` : null}
    <${Alert} message=${state.error} />
  </form>`;
};

const Inventory = ({ api, bus, canWrite }) => {
  const [search, setSearch] = useState("");
  const [lowFirst, setLowFirst] = useState(true);
  const [rows, setRows] = useState(undefined);
  const [error, setError] = useState("");
  const [editing, setEditing] = useState(undefined);
  const [said, setSaid] = useState("");
  const load = useCallback(
    async (name) => {
      try {
        const query = name ? `&name=${encodeURIComponent(name)}` : "";
        const [pets, stock] = await Promise.all([
          allPages(api, `/pets?sort=name&limit=100${query}`),
          allPages(api, "/store/inventory?limit=100"),
        ]);
        const quantities = new Map(stock.map((item) => [item.petId, item.quantity]));
        setRows(pets.map((pet) => ({ ...pet, quantity: quantities.get(pet.id) ?? 0 })));
        setError("");
      } catch (e) {
        setError(explain(e));
      }
    },
    [api],
  );
  useEffect(() => {
    const timer = setTimeout(() => load(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);
  useEffect(
    () =>
      bus.on((event) => {
        if (event.type === "inventory.changed") {
          setRows((current) =>
            current?.map((row) =>
              row.id === event.data.petId
                ? { ...row, quantity: "quantity" in event.data ? event.data.quantity : row.quantity + event.data.delta }
                : row,
            ),
          );
        }
        if (event.type === "pet.status_changed") {
          setRows((current) =>
            current?.map((row) => (row.id === event.data.petId ? { ...row, status: event.data.to } : row)),
          );
        }
      }),
    [],
  );
  const shown = useMemo(() => {
    if (!rows) return [];
    return lowFirst ? [...rows].sort((a, b) => a.quantity - b.quantity || a.name.localeCompare(b.name)) : rows;
  }, [rows, lowFirst]);
  return html`<section aria-labelledby="inventory-title">
    <h2 id="inventory-title">Inventory</h2>
    <div class="toolbar">
      <label for="pet-search">Search pets by name</label>
      <input id="pet-search" type="search" value=${search} onInput=${(e) => setSearch(e.currentTarget.value)} />
      <label class="check"><input type="checkbox" checked=${lowFirst} onChange=${(e) => setLowFirst(e.currentTarget.checked)} /> Low stock first</label>
    </div>
    <p class="visually-hidden" role="status" aria-live="polite">${said}</p>
    <${Alert} message=${error} />
    ${
      rows === undefined
        ? error
          ? null
          : html`<p>Loading…</p>`
        : html`<table id="inventory">
          <caption class="visually-hidden">Pets with their stock and status</caption>
          <thead><tr><th scope="col">Pet</th><th scope="col">Status</th><th scope="col">Stock</th><th scope="col">Set stock</th></tr></thead>
          <tbody>
            ${shown.length === 0 ? html`<tr><td colspan="4">No pets${search ? ` whose name starts with “${search}”` : ""}.</td></tr>` : null}
            ${shown.map(
              (row) => html`<tr key=${row.id} data-pet-id=${row.id} class=${row.quantity <= LOW_STOCK ? "low" : ""}>
                <th scope="row">${row.name} <span class="id">#${row.id}</span></th>
                <td><span class=${`status ${row.status}`}>${row.status}</span></td>
                <td class="stock">${row.quantity}${row.quantity <= LOW_STOCK ? html` <span class="badge">low</span>` : null}</td>
                <td>
                  ${
                    editing === row.id
                      ? html`<${StockEditor}
                        api=${api}
                        row=${row}
                        onCancel=${() => setEditing(undefined)}
                        onDone=${(item) => {
                          setRows((current) =>
                            current.map((r) =>
                              r.id === item.petId ? { ...r, quantity: item.quantity, status: item.status } : r,
                            ),
                          );
                          setEditing(undefined);
                          setSaid(`Stock of ${row.name} set to ${item.quantity}`);
                        }}
                      />`
                      : html`<button disabled=${!canWrite} onClick=${() => setEditing(row.id)} aria-label=${`Set stock of ${row.name}`}>Set stock</button>`
                  }
                </td>
              </tr>`,
            )}
          </tbody>
        </table>`
    }
  </section>`;
};

// --- Orders ---------------------------------------------------------------------------------------------------

const Orders = ({ api, bus, canWrite }) => {
  const [state, setState] = useState("all");
  const [petId, setPetId] = useState("");
  const [orders, setOrders] = useState(undefined);
  const [fresh, setFresh] = useState(new Set());
  const [confirming, setConfirming] = useState(undefined);
  const [errors, setErrors] = useState({});
  const [error, setError] = useState("");
  const [said, setSaid] = useState("");
  const filter = useRef({ state, petId });
  filter.current = { state, petId };
  const load = useCallback(async () => {
    const pet = /^\d+$/.test(petId.trim()) ? `&petId=${petId.trim()}` : "";
    try {
      const open =
        state === "complete" ? [] : (await api("GET", `/store/orders?state=open&sort=-id&limit=100${pet}`)).body;
      const complete =
        state === "open" ? [] : (await api("GET", `/store/orders?state=complete&sort=-id&limit=50${pet}`)).body;
      setOrders([...open, ...complete]);
      setError("");
    } catch (e) {
      setError(explain(e));
    }
  }, [api, state, petId]);
  useEffect(() => {
    const timer = setTimeout(load, 250);
    return () => clearTimeout(timer);
  }, [state, petId]);
  useEffect(
    () =>
      bus.on((event) => {
        const order = event.data;
        const { state: wanted, petId: pet } = filter.current;
        if (event.type === "order.placed") {
          if (wanted === "complete" || (pet.trim() && Number(pet) !== order.petId)) return;
          setOrders((current) => (current && !current.some((o) => o.id === order.id) ? [order, ...current] : current));
          setFresh((current) => new Set(current).add(order.id));
        }
        if (event.type === "order.completed") {
          setOrders((current) => {
            if (!current) return current;
            const rest = current.filter((o) => o.id !== order.id);
            if (wanted === "open") return rest;
            const firstComplete = rest.findIndex((o) => o.complete);
            const at = firstComplete < 0 ? rest.length : firstComplete;
            return current.some((o) => o.id === order.id) ? [...rest.slice(0, at), order, ...rest.slice(at)] : current;
          });
        }
        if (event.type === "order.cancelled") setOrders((current) => current?.filter((o) => o.id !== order.id));
      }),
    [],
  );
  const act = async (order, action) => {
    setConfirming(undefined);
    try {
      if (action === "complete") {
        const res = await api("PATCH", `/store/orders/${order.id}`, { body: { complete: true } });
        setOrders((current) => current.map((o) => (o.id === order.id ? res.body : o)));
        setSaid(`Order ${order.id} completed`);
      } else {
        await api("DELETE", `/store/orders/${order.id}`);
        setOrders((current) => current.filter((o) => o.id !== order.id));
        setSaid(`Order ${order.id} cancelled`);
      }
      setErrors((current) => ({ ...current, [order.id]: undefined }));
    } catch (e) {
      setErrors((current) => ({ ...current, [order.id]: explain(e) }));
    }
  };
  return html`<section aria-labelledby="orders-title">
    <h2 id="orders-title">Orders</h2>
    <div class="toolbar">
      <label for="order-state">Show</label>
      <select id="order-state" value=${state} onChange=${(e) => setState(e.currentTarget.value)}>
        <option value="all">Open first, then complete</option>
        <option value="open">Open only</option>
        <option value="complete">Complete only</option>
      </select>
      <label for="order-pet">Pet id</label>
      <input id="order-pet" inputmode="numeric" pattern="[0-9]*" size="8" value=${petId} onInput=${(e) => setPetId(e.currentTarget.value)} />
    </div>
    <p class="visually-hidden" role="status" aria-live="polite">${said}</p>
    <${Alert} message=${error} />
    ${
      orders === undefined
        ? error
          ? null
          : html`<p>Loading…</p>`
        : html`<table id="orders">
          <caption class="visually-hidden">Orders, open ones first, newest first</caption>
          <thead><tr><th scope="col">Order</th><th scope="col">Pet</th><th scope="col">Quantity</th><th scope="col">Ship date</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            ${orders.length === 0 ? html`<tr><td colspan="6">No orders.</td></tr>` : null}
            ${orders.map(
              (order) => html`<tr key=${order.id} data-order-id=${order.id} class=${fresh.has(order.id) ? "fresh" : ""}>
                <th scope="row">#${order.id}${fresh.has(order.id) ? html` <span class="badge new">new</span>` : null}</th>
                <td>#${order.petId}</td>
                <td>${order.quantity}</td>
                <td>${order.shipDate ? new Date(order.shipDate).toLocaleString() : "—"}</td>
                <td><span class=${`state ${order.complete ? "complete" : "open"}`}>${order.complete ? "complete" : "open"}</span></td>
                <td>
                  ${
                    order.complete
                      ? null
                      : confirming?.id === order.id
                        ? html`<${Confirm}
                          question=${confirming.action === "complete" ? `Complete order ${order.id}?` : `Cancel order ${order.id}? Its units go back to stock.`}
                          yes=${confirming.action === "complete" ? "Yes, complete" : "Yes, cancel"}
                          no=${confirming.action === "complete" ? "Not yet" : "Keep it"}
                          onYes=${() => act(order, confirming.action)}
                          onNo=${() => setConfirming(undefined)}
                        />`
                        : html`<button disabled=${!canWrite} onClick=${() => setConfirming({ id: order.id, action: "complete" })} aria-label=${`Complete order ${order.id}`}>Complete</button>
                          <button onClick=${() => setConfirming({ id: order.id, action: "cancel" })} aria-label=${`Cancel order ${order.id}`}>Cancel</button>`
                  }
                  <${Alert} message=${errors[order.id]} />
                </td>
              </tr>`,
            )}
          </tbody>
        </table>`
    }
  </section>`;
};

// --- Catalog: categories and pets -----------------------------------------------------------------------------

/** A one-field inline form (rename), with the service's refusal shown next to it. */
const InlineText = ({ label, id, initial, submitText, onSubmit, onCancel }) => {
  const [value, setValue] = useState(initial);
  const [error, setError] = useState("");
  const input = useAutoFocus();
  const submit = async (event) => {
    event.preventDefault();
    try {
      await onSubmit(value);
    } catch (e) {
      setError(explain(e));
    }
  };
  return html`<form class="inline" onSubmit=${submit} onKeyDown=${(e) => e.key === "Escape" && onCancel()}>
    <label for=${id} class="visually-hidden">${label}</label>
    <input id=${id} ref=${input} value=${value} onInput=${(e) => setValue(e.currentTarget.value)} />
    <button type="submit">${submitText}</button>
    <button type="button" onClick=${onCancel}>Cancel</button>
    <${Alert} message=${error} />
  </form>`;
};

const Catalog = ({ api, canWrite }) => {
  const [categories, setCategories] = useState([]);
  const [pets, setPets] = useState([]);
  const [error, setError] = useState("");
  const [rowErrors, setRowErrors] = useState({});
  const [editing, setEditing] = useState(undefined);
  const [confirming, setConfirming] = useState(undefined);
  const [newCategory, setNewCategory] = useState({ name: "", error: "" });
  const [newPet, setNewPet] = useState({ name: "", categoryId: "", error: "" });
  const load = useCallback(async () => {
    try {
      const [c, p] = await Promise.all([
        allPages(api, "/categories?limit=100"),
        allPages(api, "/pets?sort=name&limit=100"),
      ]);
      setCategories(c);
      setPets(p);
      setError("");
    } catch (e) {
      setError(explain(e));
    }
  }, [api]);
  useEffect(() => void load(), []);
  const categoryName = (id) => categories.find((c) => c.id === id)?.name ?? `#${id}`;
  const rowError = (key, message) => setRowErrors((current) => ({ ...current, [key]: message }));
  const attempt = async (key, run) => {
    try {
      await run();
      rowError(key, undefined);
      setConfirming(undefined);
      await load();
    } catch (e) {
      rowError(key, explain(e));
      setConfirming(undefined);
    }
  };
  const createCategory = async (event) => {
    event.preventDefault();
    try {
      await api("POST", "/categories", { body: { name: newCategory.name } });
      setNewCategory({ name: "", error: "" });
      await load();
    } catch (e) {
      setNewCategory({ ...newCategory, error: explain(e) });
    }
  };
  const createPet = async (event) => {
    event.preventDefault();
    try {
      await api("POST", "/pets", { body: { name: newPet.name, categoryId: Number(newPet.categoryId) } });
      setNewPet({ ...newPet, name: "", error: "" });
      await load();
    } catch (e) {
      setNewPet({ ...newPet, error: explain(e) });
    }
  };
  const categoryOptions = categories.map((c) => html`<option value=${c.id}>${c.name}</option>`);
  return html`<section aria-labelledby="catalog-title">
    <h2 id="catalog-title">Pets and categories</h2>
    <${Alert} message=${error} />
    <div class="columns">
      <div>
        <h3>Categories</h3>
        <form class="create" onSubmit=${createCategory}>
          <label for="new-category">New category</label>
          <input id="new-category" value=${newCategory.name} onInput=${(e) => setNewCategory({ ...newCategory, name: e.currentTarget.value })} />
          <button type="submit" disabled=${!canWrite}>Create category</button>
          <${Alert} message=${newCategory.error} />
        </form>
        <ul class="rows" id="categories">
          ${categories.map(
            (c) => html`<li key=${c.id} data-category-id=${c.id}>
              ${
                editing === `c${c.id}`
                  ? html`<${InlineText}
                    id=${`rename-category-${c.id}`}
                    label=${`New name for category ${c.name}`}
                    initial=${c.name}
                    submitText="Rename"
                    onCancel=${() => setEditing(undefined)}
                    onSubmit=${async (name) => {
                      await api("PUT", `/categories/${c.id}`, {
                        body: { name, ...(c.description ? { description: c.description } : {}) },
                      });
                      setEditing(undefined);
                      await load();
                    }}
                  />`
                  : html`<span class="name">${c.name} <span class="id">#${c.id}</span></span>
                    ${
                      confirming === `c${c.id}`
                        ? html`<${Confirm} question=${`Delete category ${c.name}?`} yes="Yes, delete" no="Keep it"
                          onYes=${() => attempt(`c${c.id}`, () => api("DELETE", `/categories/${c.id}`))} onNo=${() => setConfirming(undefined)} />`
                        : html`<button disabled=${!canWrite} onClick=${() => setEditing(`c${c.id}`)} aria-label=${`Rename category ${c.name}`}>Rename</button>
                          <button disabled=${!canWrite} onClick=${() => setConfirming(`c${c.id}`)} aria-label=${`Delete category ${c.name}`}>Delete</button>`
                    }`
              }
              <${Alert} message=${rowErrors[`c${c.id}`]} />
            </li>`,
          )}
        </ul>
      </div>
      <div>
        <h3>Pets</h3>
        <form class="create" onSubmit=${createPet}>
          <label for="new-pet">New pet's name</label>
          <input id="new-pet" value=${newPet.name} onInput=${(e) => setNewPet({ ...newPet, name: e.currentTarget.value })} />
          <label for="new-pet-category">Category</label>
          <select id="new-pet-category" value=${newPet.categoryId} onChange=${(e) => setNewPet({ ...newPet, categoryId: e.currentTarget.value })}>
            <option value="">Choose…</option>
            ${categoryOptions}
          </select>
          <button type="submit" disabled=${!canWrite}>Create pet</button>
          <${Alert} message=${newPet.error} />
        </form>
        <ul class="rows" id="pets">
          ${pets.map(
            (p) => html`<li key=${p.id} data-pet-id=${p.id}>
              ${
                editing === `p${p.id}`
                  ? html`<${InlineText}
                    id=${`rename-pet-${p.id}`}
                    label=${`New name for ${p.name}`}
                    initial=${p.name}
                    submitText="Rename"
                    onCancel=${() => setEditing(undefined)}
                    onSubmit=${async (name) => {
                      await api("PUT", `/pets/${p.id}`, { body: { name, categoryId: p.categoryId, status: p.status } });
                      setEditing(undefined);
                      await load();
                    }}
                  />`
                  : html`<span class="name">${p.name} <span class="id">#${p.id}</span> <span class="muted">in ${categoryName(p.categoryId)}</span></span>
                    <label for=${`move-pet-${p.id}`} class="visually-hidden">Move ${p.name} to category</label>
                    <select id=${`move-pet-${p.id}`} disabled=${!canWrite} value=${p.categoryId}
                      onChange=${(e) =>
                        attempt(`p${p.id}`, () =>
                          api("PUT", `/pets/${p.id}`, {
                            body: { name: p.name, categoryId: Number(e.currentTarget.value), status: p.status },
                          }),
                        )}>
                      ${categoryOptions}
                    </select>
                    ${
                      confirming === `p${p.id}`
                        ? html`<${Confirm} question=${`Delete ${p.name}?`} yes="Yes, delete" no="Keep it"
                          onYes=${() => attempt(`p${p.id}`, () => api("DELETE", `/pets/${p.id}`))} onNo=${() => setConfirming(undefined)} />`
                        : html`<button disabled=${!canWrite} onClick=${() => setEditing(`p${p.id}`)} aria-label=${`Rename ${p.name}`}>Rename</button>
                          <button disabled=${!canWrite} onClick=${() => setConfirming(`p${p.id}`)} aria-label=${`Delete ${p.name}`}>Delete</button>`
                    }`
              }
              <${Alert} message=${rowErrors[`p${p.id}`]} />
            </li>`,
          )}
        </ul>
      </div>
    </div>
  </section>`;
};

// --- Live: the chart of the last hour -------------------------------------------------------------------------

const MINUTES = 60;
const minuteOf = (ms) => Math.floor(ms / 60_000);

const Live = ({ bus, connection }) => {
  const [counts, setCounts] = useState(new Map());
  const [recent, setRecent] = useState([]);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 10_000);
    return () => clearInterval(timer);
  }, []);
  useEffect(
    () =>
      bus.on((event) => {
        setRecent((current) => [event, ...current].slice(0, 8));
        if (event.type !== "order.placed" && event.type !== "order.cancelled") return;
        const minute = minuteOf(Date.parse(event.timestamp));
        setCounts((current) => {
          const next = new Map(current);
          const entry = next.get(minute) ?? { placed: 0, cancelled: 0 };
          next.set(
            minute,
            event.type === "order.placed"
              ? { ...entry, placed: entry.placed + 1 }
              : { ...entry, cancelled: entry.cancelled + 1 },
          );
          return next;
        });
      }),
    [],
  );
  const last = minuteOf(now);
  const series = Array.from(
    { length: MINUTES },
    (_, i) => counts.get(last - MINUTES + 1 + i) ?? { placed: 0, cancelled: 0 },
  );
  const max = Math.max(1, ...series.map((s) => Math.max(s.placed, s.cancelled)));
  const totals = series.reduce((t, s) => ({ placed: t.placed + s.placed, cancelled: t.cancelled + s.cancelled }), {
    placed: 0,
    cancelled: 0,
  });
  const width = 600;
  const height = 120;
  const step = width / MINUTES;
  const bar = (value) => (value / max) * (height - 10);
  const summary = `Last hour: ${totals.placed} orders placed and ${totals.cancelled} cancelled`;
  return html`<section aria-labelledby="live-title">
    <h2 id="live-title">Live</h2>
    <p class="connection" id="connection" data-state=${connection}>
      ${
        {
          connecting: "Connecting to the event stream…",
          live: "Live: tables update as things happen.",
          reconnecting: "Reconnecting to the event stream… (nothing is lost: it resumes where it stopped)",
          forbidden: "Live updates need a staff or admin key.",
          unauthorized: "Live updates stopped: the key is no longer valid.",
        }[connection] ?? connection
      }
    </p>
    <figure>
      <svg id="chart" viewBox=${`0 0 ${width} ${height + 20}`} role="img" aria-labelledby="chart-title chart-desc">
        <title id="chart-title">Orders and cancellations per minute</title>
        <desc id="chart-desc">${summary}, counted since this page opened.</desc>
        <line x1="0" y1=${height} x2=${width} y2=${height} class="axis" />
        ${series.map(
          (s, i) => html`<g key=${i}>
            <rect x=${i * step + 1} y=${height - bar(s.placed)} width=${step / 2 - 1} height=${bar(s.placed)} class="placed" />
            <rect x=${i * step + step / 2} y=${height - bar(s.cancelled)} width=${step / 2 - 1} height=${bar(s.cancelled)} class="cancelled" />
          </g>`,
        )}
        <text x="0" y=${height + 16} class="tick">60 min ago</text>
        <text x=${width} y=${height + 16} class="tick" text-anchor="end">now</text>
      </svg>
      <figcaption>
        <span class="key placed-key">Orders placed</span> <span class="key cancelled-key">Cancellations</span> · ${summary} (since this page opened).
      </figcaption>
    </figure>
    <h3>Latest events</h3>
    <ul class="events" aria-live="off">
      ${recent.length === 0 ? html`<li>None yet.</li>` : null}
      ${recent.map((e, i) => html`<li key=${i}><code>${e.type}</code> ${JSON.stringify(e.data)}</li>`)}
    </ul>
  </section>`;
};

// --- The page -------------------------------------------------------------------------------------------------

const sections = [
  ["inventory", "Inventory"],
  ["orders", "Orders"],
  ["catalog", "Pets and categories"],
  ["live", "Live"],
];

const Console = ({ apiKey, me, onSignOut }) => {
  const [problem, setProblem] = useState(undefined);
  const [usage, setUsage] = useState(undefined);
  const [current, setCurrent] = useState("inventory");
  const [connection, setConnection] = useState("connecting");
  const [generation, setGeneration] = useState(0);
  const bus = useMemo(createBus, []);
  const report = useCallback((event) => {
    if (event.kind === "ok") {
      setUsage(event.usage);
      setProblem((p) => (p?.kind === "offline" ? undefined : p));
    } else if (event.kind === "unauthorized")
      onSignOut("Your key is no longer valid (revoked or changed). Sign in again.");
    else setProblem(event);
  }, []);
  const api = useMemo(() => createApi(apiKey, report), [apiKey]);
  useEffect(() => followEvents(apiKey, bus, setConnection), [apiKey]);
  const canWrite = me.role !== "customer";
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to the content</a>
    <header>
      <h1>Petstore console</h1>
      <p class="who" id="who">
        Signed in as <strong>${me.label}</strong> (<span id="who-role">${me.role}</span>, ${me.plan} plan, key #${me.id})${" · "}${me.usage.day} of ${me.limits.perDay} requests today at sign-in${usage && Number.isFinite(usage.remaining) ? ` · ${usage.remaining} left in this window` : ""}
      </p>
      <button onClick=${() => onSignOut()}>Sign out</button>
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
            <button class="tab" aria-current=${current === id ? "page" : undefined} aria-controls=${`section-${id}`} onClick=${() => setCurrent(id)}>${label}</button>
          </li>`,
        )}
      </ul>
    </nav>
    <main id="main" tabindex="-1" key=${generation}>
      <div id="section-inventory" hidden=${current !== "inventory"}><${Inventory} api=${api} bus=${bus} canWrite=${canWrite} /></div>
      <div id="section-orders" hidden=${current !== "orders"}><${Orders} api=${api} bus=${bus} canWrite=${canWrite} /></div>
      <div id="section-catalog" hidden=${current !== "catalog"}><${Catalog} api=${api} canWrite=${canWrite} /></div>
      <div id="section-live" hidden=${current !== "live"}><${Live} bus=${bus} connection=${connection} /></div>
    </main>
  </div>`;
};

const App = () => {
  const [session, setSession] = useState(undefined);
  const [notice, setNotice] = useState(undefined);
  const [checking, setChecking] = useState(() => sessionStorage.getItem(KEY_STORAGE) !== null);
  useEffect(() => {
    const kept = sessionStorage.getItem(KEY_STORAGE);
    if (kept === null) return;
    createApi(kept, () => undefined)("GET", "/me")
      .then((res) => setSession({ key: kept, me: res.body }))
      .catch((e) => {
        if (e.status === 401) sessionStorage.removeItem(KEY_STORAGE);
        setNotice(e.status === 401 ? "Your key is no longer valid. Sign in again." : explain(e));
      })
      .finally(() => setChecking(false));
  }, []);
  if (checking) return html`<p>Loading…</p>`;
  if (!session) {
    return html`<${SignIn}
      notice=${notice}
      onSignedIn=${(key, me) => {
        sessionStorage.setItem(KEY_STORAGE, key);
        setNotice(undefined);
        setSession({ key, me });
      }}
    />`;
  }
  return html`<${Console}
    apiKey=${session.key}
    me=${session.me}
    onSignOut=${(message) => {
      sessionStorage.removeItem(KEY_STORAGE);
      setNotice(message);
      setSession(undefined);
    }}
  />`;
};

render(html`<${App} />`, document.getElementById("app"));
