// @ts-check
// Forms checked in the browser with the API's own rules: a field's message shows once it matters and goes as soon as
// it no longer applies; the service's refusal shows next to what was tried.

import { useState } from "preact/hooks";
import { explain } from "./api.js";
import { check } from "./rules.js";
import { Alert, Confirm, FieldError, html, useAutoFocus } from "./ui.js";

/** @typedef {import("./rules.js").Rules} Rules */

/**
 * A text field checked against one rule of the API: its message shows once the field was left or a send was tried,
 * and goes away as soon as the text is right.
 * @param {{ id: string, label: string, value: string, problem: string, shown: boolean, onValue: (value: string) => void,
 *   onLeave?: () => void, inputRef?: any }} props
 */
export const CheckedText = ({
  id,
  label,
  value,
  problem,
  shown,
  onValue,
  onLeave,
  inputRef,
}) => html`<span class="field">
  <label for=${id}>${label}</label>
  <input id=${id} ref=${inputRef} value=${value} autocomplete="off"
    aria-invalid=${shown && problem ? "true" : undefined} aria-describedby=${shown && problem ? `${id}-problem` : undefined}
    onInput=${(/** @type {Event} */ e) => onValue(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
    onBlur=${onLeave} />
  <${FieldError} id=${`${id}-problem`} message=${shown ? problem : ""} />
</span>`;

/**
 * A one-field inline form (rename), checked with the API's rule, the service's refusal shown next to it.
 * @param {{ label: string, id: string, initial: string, rules: Rules | undefined, body: string,
 *   onSubmit: (value: string) => Promise<void>, onCancel: () => void }} props
 */
export const InlineText = ({ label, id, initial, rules, body, onSubmit, onCancel }) => {
  const [value, setValue] = useState(initial);
  const [tried, setTried] = useState(false);
  const [error, setError] = useState("");
  const input = useAutoFocus();
  const problem = check(rules, body, "name", value, "Name");
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    setTried(true);
    if (problem) return input.current?.focus();
    try {
      await onSubmit(value.trim());
    } catch (e) {
      setError(explain(e));
      input.current?.focus();
    }
  };
  return html`<form class="inline" novalidate onSubmit=${submit}
    onKeyDown=${(/** @type {KeyboardEvent} */ e) => e.key === "Escape" && onCancel()}>
    <label for=${id} class="visually-hidden">${label}</label>
    <input id=${id} ref=${input} value=${value} autocomplete="off"
      aria-invalid=${tried && problem ? "true" : undefined} aria-describedby=${tried && problem ? `${id}-problem` : undefined}
      onInput=${(/** @type {Event} */ e) => {
        setValue(/** @type {HTMLInputElement} */ (e.currentTarget).value);
        setError("");
      }} />
    <button type="submit">Rename</button>
    <button type="button" onClick=${onCancel}>Cancel</button>
    <${FieldError} id=${`${id}-problem`} message=${tried ? problem : ""} />
    <${Alert} message=${error} />
  </form>`;
};

/**
 * The state of a create form: values, which fields were left, whether a send was tried, the service's refusal.
 * @param {Record<string, string>} initial
 */
export const useForm = (initial) => {
  const [values, setValues] = useState(initial);
  const [left, setLeft] = useState(/** @type {Record<string, boolean>} */ ({}));
  const [edited, setEdited] = useState(/** @type {Record<string, boolean>} */ ({}));
  const [tried, setTried] = useState(false);
  const [error, setError] = useState("");
  return {
    values,
    error,
    tried,
    /** A field's message shows once a send was tried, or once it was edited and left (not merely passed through). */
    /** @param {string} field */
    shown: (field) => tried || Boolean(left[field] && edited[field]),
    /** @param {string} field @param {string} value */
    set: (field, value) => {
      setValues((current) => ({ ...current, [field]: value }));
      setEdited((current) => ({ ...current, [field]: true }));
      setError("");
    },
    /** @param {string} field */
    leave: (field) => setLeft((current) => ({ ...current, [field]: true })),
    try: () => setTried(true),
    /** @param {string} message */
    fail: (message) => setError(message),
    /** @param {Record<string, string>} next */
    reset: (next) => {
      setValues(next);
      setLeft({});
      setEdited({});
      setTried(false);
      setError("");
    },
  };
};

/**
 * A row's Rename and Delete; Delete asks first, in a dialog that says what cannot be undone.
 * @param {{ ctx: import("./catalog.js").CatalogContext, rowKey: string, label: string, detail: string,
 *   onDelete: () => Promise<void> }} props
 */
export const RowActions = ({
  ctx,
  rowKey,
  label,
  detail,
  onDelete,
}) => html`<button type="button" id=${`rename-${rowKey}`}
    disabled=${!ctx.canWrite} aria-label=${`Rename ${label}`} onClick=${() => {
      ctx.begin();
      ctx.setEditing(rowKey);
    }}>Rename</button>
  <button type="button" id=${`delete-${rowKey}`} disabled=${!ctx.canWrite} aria-label=${`Delete ${label}`} onClick=${() => {
    ctx.begin();
    ctx.setConfirming(rowKey);
  }}>Delete</button>
  ${
    ctx.confirming === rowKey
      ? html`<${Confirm} question=${`Delete ${label}?`} detail=${detail} yes="Yes, delete" no="Keep it"
          onYes=${onDelete}
          onNo=${() => {
            ctx.setConfirming(undefined);
            ctx.focusAfter(`#delete-${rowKey}`);
          }} />`
      : null
  }`;
