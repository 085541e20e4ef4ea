// @ts-check
// CSV export of a list as filtered now: page after page of 100 through `Link: rel="next"`, within the key's budget
// (it pauses when few requests are left, and waits out a 429's Retry-After), then one file to save.

import { useRef, useState } from "preact/hooks";
import { ApiError, nextLink } from "./api.js";
import { html } from "./ui.js";

/** Requests left for the rest of the page (a save, the next page's names) while an export waits for the window. */
const RESERVE = 5;

/**
 * One CSV field: quoted when it must be, and a leading =, +, - or @ made plain text for spreadsheets.
 * @param {unknown} value
 */
const csvField = (value) => {
  let text = value === undefined || value === null ? "" : String(value);
  if (/^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** @param {unknown[]} fields */
const csvLine = (fields) => `${fields.map(csvField).join(",")}\r\n`;

/**
 * @param {number} ms
 * @param {AbortSignal} signal
 */
const pause = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });

/**
 * @typedef {{ header: string[], rows: (items: any[]) => Promise<unknown[][]> }} CsvShape
 * @typedef {{ rows: number, pages: number, waitingUntil?: number | undefined }} Progress
 */

/**
 * Every page from `first` (its `limit` raised to 100) as CSV text.
 * @param {import("./api.js").Api} api
 * @param {string} first
 * @param {CsvShape} shape
 * @param {(progress: Progress) => void} onProgress
 * @param {AbortSignal} signal
 */
const exportCsv = async (api, first, shape, onProgress, signal) => {
  const chunks = [csvLine(shape.header)];
  const progress = { rows: 0, pages: 0 };
  /** @type {string | undefined} */
  let next = first.replace(/([?&])limit=\d+/, "$1limit=100");
  while (next && !signal.aborted) {
    let res;
    try {
      res = await api("GET", next);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 429) throw e;
      const until = Date.now() + e.retryAfter * 1000;
      onProgress({ ...progress, waitingUntil: until });
      await pause(until - Date.now(), signal);
      continue;
    }
    for (const fields of await shape.rows(res.body)) chunks.push(csvLine(fields));
    progress.rows += res.body.length;
    progress.pages += 1;
    next = nextLink(res.link);
    const quota = res.quota;
    if (next && quota && quota.remaining <= RESERVE && quota.resetsAt > Date.now()) {
      onProgress({ ...progress, waitingUntil: quota.resetsAt });
      await pause(quota.resetsAt - Date.now() + 250, signal);
    }
    onProgress({ ...progress });
  }
  return chunks.join("");
};

/** @param {string} text @param {string} name */
const save = (text, name) => {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
};

/**
 * "Export CSV" for a list as filtered now, with its progress and outcome beside the button.
 * @param {{ api: import("./api.js").Api, first: string, shape: CsvShape, file: string, what: string, id: string }} props
 */
export const ExportButton = ({ api, first, shape, file, what, id }) => {
  const [state, setState] = useState(
    /** @type {{ running: boolean, message: string, error?: boolean }} */ ({ running: false, message: "" }),
  );
  const controller = useRef(/** @type {AbortController | undefined} */ (undefined));
  const start = async () => {
    controller.current = new AbortController();
    setState({ running: true, message: `Exporting ${what}…` });
    let rows = 0;
    try {
      const text = await exportCsv(
        api,
        first,
        shape,
        (p) => {
          rows = p.rows;
          setState({
            running: true,
            message: p.waitingUntil
              ? `${p.rows} ${what} so far; waiting for this key's budget until ${new Date(p.waitingUntil).toLocaleTimeString()}…`
              : `Exporting ${what}… ${p.rows} so far (page ${p.pages})`,
          });
        },
        controller.current.signal,
      );
      if (controller.current.signal.aborted) return setState({ running: false, message: "Export stopped." });
      save(text, file);
      setState({ running: false, message: `Exported ${rows} ${what} to ${file}.` });
    } catch (e) {
      setState({ running: false, error: true, message: `Export failed: ${e instanceof Error ? e.message : e}` });
    }
  };
  return html`<span class="export">
    ${
      state.running
        ? html`<button type="button" id=${id} onClick=${() => controller.current?.abort()}>Stop export</button>`
        : html`<button type="button" id=${id} onClick=${start}>Export CSV</button>`
    }
    <span class=${state.error ? "error" : "muted"} role="status" id=${`${id}-status`}>${state.message}</span>
  </span>`;
};
