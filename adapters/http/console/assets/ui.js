// @ts-check
// Small parts every screen uses: the html tag, messages, countdowns, focus, confirmations.

import { h } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import htm from "htm";

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
 * A question asked in place. The safe answer has the focus first (Enter twice never does the irreversible thing),
 * Escape answers it, and either answer hands the focus back through `onNo`/`onYes`.
 * @param {{ question: string, yes: string, no: string, onYes: () => void, onNo: () => void }} props
 */
export const Confirm = ({ question, yes, no, onYes, onNo }) => {
  const safe = useAutoFocus();
  /** @param {KeyboardEvent} event */
  const onKeyDown = (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    event.stopPropagation();
    onNo();
  };
  return html`<span class="confirm" role="group" aria-label=${question} onKeyDown=${onKeyDown}>
    <span>${question}</span>
    <button type="button" class="danger" onClick=${onYes}>${yes}</button>
    <button type="button" ref=${safe} onClick=${onNo}>${no}</button>
  </span>`;
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
