// @ts-check
// Live: the connection's state, a chart of orders placed and cancelled per minute over the last hour (counted since
// the page opened), and the latest events.

import { useEffect, useState } from "preact/hooks";
import { html } from "./ui.js";

const MINUTES = 60;
/** @param {number} ms */
const minuteOf = (ms) => Math.floor(ms / 60_000);

/** @typedef {{ placed: number, cancelled: number }} Minute */

/**
 * @param {{ bus: import("./events.js").Bus, connection: import("./events.js").Connection }} props
 */
export const Live = ({ bus, connection }) => {
  const [counts, setCounts] = useState(/** @type {Map<number, Minute>} */ (new Map()));
  const [recent, setRecent] = useState(/** @type {import("./events.js").ServiceEvent[]} */ ([]));
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
  const bar = (/** @type {number} */ value) => (value / max) * (height - 10);
  const summary = `Last hour: ${totals.placed} orders placed and ${totals.cancelled} cancelled`;
  /** @type {Record<string, string>} */
  const states = {
    connecting: "Connecting to the event stream…",
    live: "Live: tables update as things happen.",
    reconnecting: "Reconnecting to the event stream… (nothing is lost: it resumes where it stopped)",
    forbidden: "Live updates need a staff or admin key.",
    unauthorized: "Live updates stopped: the key is no longer valid.",
  };
  return html`<section aria-labelledby="live-title">
    <h2 id="live-title" tabindex="-1">Live</h2>
    <p class="connection" id="connection" data-state=${connection}>${states[connection] ?? connection}</p>
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
