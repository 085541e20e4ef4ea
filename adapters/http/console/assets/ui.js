// @ts-check
// Small parts every screen uses: the html tag, messages, countdowns, focus, confirmations.

import { h } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import htm from "htm";
import { ApiError, explain } from "./api.js";

export const html = htm.bind(h);

/**
 * A message shown in place (a refusal, a form's problem); nothing when empty.
 * @param {{ message?: string | undefined, id?: string }} props
 */
export const Alert = ({ message, id }) =>
  message ? html`<p class="error" role="alert" id=${id}>${message}</p>` : null;

/**
 * Seconds left until `until` (ms since the epoch), ticking; 0 when there is no deadline or it passed.
 * @param {number | undefined} until
 */
export const useCountdown = (until) => {
  // The tick only re-renders; the time is read at render, so a deadline set after the last tick never reads long.
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!until) return undefined;
    const timer = setInterval(() => setTick((n) => n + 1), 250);
    return () => clearInterval(timer);
  }, [until]);
  return until ? Math.max(0, Math.ceil((until - Date.now()) / 1000)) : 0;
};

/**
 * Focuses the element once it appears: for an editor or a confirmation the keyboard user just opened.
 * @template {HTMLElement} T
 */
export const useAutoFocus = () => {
  const ref = useRef(/** @type {T | null} */ (null));
  useEffect(() => ref.current?.focus(), []);
  return ref;
};

/**
 * Where the focus goes after an action: a selector focused once the next render shows it, else the fallback
 * (a section's heading), so the focus never falls back to the page's body.
 * @param {string} fallback
 * @returns {(selector: string) => void}
 */
export const useFocusAfter = (fallback) => {
  const [target, setTarget] = useState(/** @type {{ selector: string } | undefined} */ (undefined));
  useLayoutEffect(() => {
    if (!target) return;
    const element = /** @type {HTMLElement | null} */ (
      document.querySelector(target.selector) ?? document.querySelector(fallback)
    );
    element?.focus();
    setTarget(undefined);
  }, [target]);
  return (selector) => setTarget({ selector });
};

/**
 * A question in a modal dialog above the page, so the table under it does not move. The safe answer has the focus
 * first (Enter twice never does the irreversible thing); Escape answers it. `detail` says what cannot be undone.
 * @param {{ question: string, detail?: string, yes: string, no: string, onYes: () => void, onNo: () => void }} props
 */
export const Confirm = ({ question, detail, yes, no, onYes, onNo }) => {
  const dialog = useRef(/** @type {HTMLDialogElement | null} */ (null));
  useLayoutEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return html`<dialog ref=${dialog} class="confirm" aria-label=${question}
    onCancel=${(/** @type {Event} */ event) => {
      event.preventDefault();
      onNo();
    }}>
    <p class="question">${question}</p>
    ${detail ? html`<p class="detail">${detail}</p>` : null}
    <div class="answers">
      <button type="button" autofocus onClick=${onNo}>${no}</button>
      <button type="button" class="danger" onClick=${onYes}>${yes}</button>
    </div>
  </dialog>`;
};

/**
 * What became of an action, shown next to the control that started it: a refusal, with the wait when the service
 * gave one, or what was done, with Undo where the API can undo it.
 * @typedef {{ kind: "error" | "done", message: string, until?: number | undefined, undo?: (() => void) | undefined }} Outcome
 */

/**
 * A refusal as an Outcome: a 429 or a ban carries its wait.
 * @param {unknown} error
 * @returns {Outcome}
 */
export const refusal = (error) => ({
  kind: "error",
  message: explain(error),
  until:
    error instanceof ApiError && (error.status === 429 || error.code === "api_key_banned")
      ? Date.now() + error.retryAfter * 1000
      : undefined,
});

/**
 * An Outcome in place; a wait counts down, and `onWaited` runs once it is over (to try again).
 * @param {{ outcome: Outcome | undefined, onWaited?: () => void, id?: string }} props
 */
export const OutcomeLine = ({ outcome, onWaited, id }) => {
  const seconds = useCountdown(outcome?.until);
  useEffect(() => {
    if (outcome?.until && seconds === 0) onWaited?.();
  }, [seconds, outcome]);
  if (!outcome) return null;
  if (outcome.kind === "done") {
    return html`<p class="done" role="status" id=${id}>
      ${outcome.message}${outcome.undo ? html` <button type="button" class="undo" onClick=${outcome.undo}>Undo</button>` : null}
    </p>`;
  }
  return html`<p class="error" role="alert" id=${id}>
    ${outcome.message}${outcome.until ? html` Trying again in <span class="countdown">${seconds}</span> s.` : null}
  </p>`;
};

/**
 * A field's problem, tied to its input with aria-describedby; gone once the input is right.
 * @param {{ id: string, message: string }} props
 */
export const FieldError = ({ id, message }) =>
  message ? html`<span class="field-error" id=${id}>${message}</span>` : null;

/**
 * A time as the reader's locale writes it, short.
 * @param {string | undefined} iso
 */
export const when = (iso) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "—";

/**
 * A pet status filter: any, or one of the API's statuses.
 * @param {{ id: string, value: string, onChange: (status: string) => void }} props
 */
export const StatusFilter = ({ id, value, onChange }) => html`<label for=${id}>Status</label>
  <select id=${id} value=${value}
    onChange=${(/** @type {Event} */ e) => onChange(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
    <option value="">Any status</option>
    <option value="available">Available</option>
    <option value="pending">Pending</option>
    <option value="sold">Sold</option>
  </select>`;
