// @ts-check
// Page-wide notices (429, 503, bans, the connection) and the quota line, both from the latest answer's headers.

import { useEffect } from "preact/hooks";
import { html, useCountdown } from "./ui.js";

/**
 * @typedef {import("./api.js").Problem} Problem
 * @typedef {import("./api.js").Quota} Quota
 */

/**
 * @param {{ problem: Problem | undefined, onRetry: () => void }} props
 */
export const Notices = ({ problem, onRetry }) => {
  const until = problem && "until" in problem ? problem.until : undefined;
  const seconds = useCountdown(until);
  useEffect(() => {
    if (until && seconds === 0) onRetry();
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

/**
 * The key's quota as the latest answer gave it; while the key is limited it agrees with the banner (none left).
 * @param {{ quota: Quota | undefined, limited: boolean }} props
 */
export const QuotaLine = ({ quota, limited }) => {
  if (!quota) return null;
  const left = limited ? 0 : quota.remaining;
  return html`<span class="quota" id="quota" data-remaining=${left}>
    ${left} of ${quota.limit} requests left this ${quota.window}
  </span>`;
};
