// @ts-check
// Sign-in: the key is checked with GET /me; a 429 shows its own countdown, holds the button, and tries again when
// the wait is over.

import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, createApi, explain } from "./api.js";
import { Alert, html, useAutoFocus, useCountdown } from "./ui.js";

/**
 * @param {{ onSignedIn: (key: string, me: import("./api.js").Me) => void, notice?: string | undefined,
 *   initialKey?: string | undefined, initialLimitedUntil?: number | undefined }} props
 */
export const SignIn = ({ onSignedIn, notice, initialKey, initialLimitedUntil }) => {
  const [key, setKey] = useState(initialKey ?? "");
  const [error, setError] = useState(notice ?? "");
  const [busy, setBusy] = useState(false);
  const [limitedUntil, setLimitedUntil] = useState(initialLimitedUntil);
  const seconds = useCountdown(limitedUntil);
  const limited = limitedUntil !== undefined && seconds > 0;
  const input = useAutoFocus();
  const form = useRef(/** @type {HTMLFormElement | null} */ (null));
  // The wait is over: try the same key again, as the countdown promised.
  useEffect(() => {
    if (limitedUntil !== undefined && seconds === 0) form.current?.requestSubmit();
  }, [seconds, limitedUntil]);
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    if (limited || busy) return;
    if (key.trim() === "") {
      setError("Enter an API key.");
      input.current?.focus();
      return;
    }
    setBusy(true);
    setError("");
    setLimitedUntil(undefined);
    try {
      const res = await createApi(key.trim(), () => undefined)("GET", "/me");
      onSignedIn(key.trim(), res.body);
    } catch (e) {
      if (e instanceof ApiError && e.status === 429) {
        setLimitedUntil(Date.now() + e.retryAfter * 1000);
      } else {
        setError(
          e instanceof ApiError && e.status === 401
            ? "That key is unknown or revoked. Check it and try again."
            : explain(e),
        );
      }
      input.current?.focus();
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin">
    <h1>Petstore staff console</h1>
    <form ref=${form} onSubmit=${submit} novalidate>
      <label for="api-key">API key</label>
      <input id="api-key" ref=${input} type="password" autocomplete="off" value=${key}
        aria-invalid=${error ? "true" : undefined} aria-describedby="api-key-hint"
        onInput=${(/** @type {Event} */ e) => {
          setKey(/** @type {HTMLInputElement} */ (e.currentTarget).value);
          setError("");
        }} />
      <p class="hint" id="api-key-hint">Kept in this browser tab only (session storage) until you sign out or close the tab.</p>
      <button type="submit" disabled=${busy} aria-disabled=${limited ? "true" : undefined}>
        ${busy ? "Signing in…" : limited ? `Sign in (in ${seconds} s)` : "Sign in"}
      </button>
      ${
        limited
          ? html`<p class="notice warn" role="status" id="sign-in-limited">
              <strong>Too many requests</strong> for this key right now. Signing in again in <span class="countdown">${seconds}</span> s.
            </p>`
          : null
      }
      <${Alert} message=${error} />
    </form>
  </main>`;
};
