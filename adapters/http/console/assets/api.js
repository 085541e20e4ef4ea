// @ts-check
// Talking to the service: one fetch wrapper that sends the key, turns refusals into ApiErrors and reports what
// concerns the whole page (quota, 429, 503, 401, bans).

/**
 * @typedef {"available" | "pending" | "sold"} PetStatus
 * @typedef {{ id: number, name: string, categoryId: number, status: PetStatus }} Pet
 * @typedef {{ id: number, name: string, description?: string }} Category
 * @typedef {{ id: number, petId: number, quantity: number, shipDate?: string, complete: boolean }} Order
 * @typedef {{ petId: number, quantity: number, status: PetStatus }} InventoryItem
 * @typedef {{ id: number, label: string, role: "customer" | "staff" | "admin", plan: string,
 *   limits: Record<string, number>, usage: Record<string, number | string> }} Me
 * @typedef {{ path: string, message: string }} ErrorDetail
 * @typedef {{ remaining: number, limit: number, window: string, resetsAt: number }} Quota
 * @typedef {{ kind: "ok" } | { kind: "offline" } | { kind: "unauthorized", message: string }
 *   | { kind: "rate_limited" | "unavailable" | "banned", until: number, message: string }} Problem
 * @typedef {(event: Problem, quota: Quota | undefined) => void} Report
 * @typedef {{ body?: unknown, ifMatch?: string | null | undefined }} CallOptions
 * @typedef {{ status: number, body: any, etag: string | null, link: string | null, quota: Quota | undefined }} Answer
 * @typedef {(method: string, path: string, options?: CallOptions) => Promise<Answer>} Api
 */

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {ErrorDetail[] | undefined} [details]
   * @param {number} [retryAfter] seconds, from `Retry-After`
   */
  constructor(status, code, message, details, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter ?? 0;
  }
}

/**
 * What a person reads for a refused request, in place: the service's own message, and what to do.
 * @param {unknown} error
 */
export const explain = (error) => {
  if (!(error instanceof ApiError)) return String(error instanceof Error ? error.message : error);
  if (error.status === 403 && error.code === "forbidden") return `Your key may not do this: ${error.message}.`;
  if (error.status === 429) return "Too many requests: this key has used its quota for now.";
  if (error.status === 503) return "The service is unavailable right now: try again in a moment.";
  const details = (error.details ?? []).map((d) => d.message).join("; ");
  return details ? `${error.message}: ${details}` : error.message;
};

/**
 * The window the rate-limit headers describe (`RateLimit: "minute";r=52;t=31`), with the seed's figures.
 * @param {Headers} headers
 * @returns {Quota | undefined}
 */
export const quotaOf = (headers) => {
  const limit = Number(headers.get("x-ratelimit-limit"));
  const remaining = Number(headers.get("x-ratelimit-remaining"));
  const reset = Number(headers.get("x-ratelimit-reset"));
  if (!headers.has("x-ratelimit-limit") || !Number.isFinite(limit) || !Number.isFinite(remaining)) return undefined;
  const window = /^"([^"]+)"/.exec(headers.get("ratelimit") ?? "")?.[1] ?? "window";
  return { limit, remaining, window, resetsAt: Number.isFinite(reset) ? reset * 1000 : 0 };
};

/**
 * The URL of `Link: <…>; rel="next"`, if any.
 * @param {string | null} link
 */
export const nextLink = (link) => /<([^>]+)>;\s*rel="next"/.exec(link ?? "")?.[1];

/**
 * A fetch with the key; refusals become ApiErrors, and the ones that concern the whole page are reported.
 * @param {string} key
 * @param {Report} report
 * @returns {Api}
 */
export const createApi =
  (key, report) =>
  async (method, path, options = {}) => {
    /** @type {Record<string, string>} */
    const headers = { "X-API-Key": key };
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    if (options.ifMatch) headers["If-Match"] = options.ifMatch;
    let response;
    try {
      response = await fetch(path, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    } catch {
      report({ kind: "offline" }, undefined);
      throw new ApiError(0, "offline", "The service cannot be reached");
    }
    const text = await response.text();
    const json = text && (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : undefined;
    const quota = quotaOf(response.headers);
    if (response.ok) {
      report({ kind: "ok" }, quota);
      return {
        status: response.status,
        body: json,
        etag: response.headers.get("etag"),
        link: response.headers.get("link"),
        quota,
      };
    }
    const retryAfter = Math.max(1, Number(response.headers.get("retry-after")) || 0);
    const error = new ApiError(
      response.status,
      json?.code ?? "error",
      json?.message ?? response.statusText,
      json?.details,
      retryAfter,
    );
    const until = Date.now() + retryAfter * 1000;
    if (response.status === 429) report({ kind: "rate_limited", until, message: error.message }, quota);
    else if (response.status === 503) report({ kind: "unavailable", until, message: error.message }, quota);
    else if (response.status === 401) report({ kind: "unauthorized", message: error.message }, quota);
    else if (error.code === "api_key_banned") report({ kind: "banned", until, message: error.message }, quota);
    else report({ kind: "ok" }, quota);
    throw error;
  };

/**
 * Every page of a list, following `Link: rel="next"`, up to `maxPages`: for lookups (the category names), never
 * for a table, which pages with the service.
 * @param {Api} api
 * @param {string} path
 * @param {number} [maxPages]
 * @returns {Promise<any[]>}
 */
export const allPages = async (api, path, maxPages = 10) => {
  const items = [];
  /** @type {string | undefined} */
  let next = path;
  for (let page = 0; next && page < maxPages; page++) {
    const res = await api("GET", next);
    items.push(...res.body);
    next = nextLink(res.link);
  }
  return items;
};

/**
 * The pets with these ids, in one call (the API takes up to 100 ids), as a map by id.
 * @param {Api} api
 * @param {number[]} ids
 * @returns {Promise<Map<number, Pet>>}
 */
export const petsById = async (api, ids) => {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const res = await api("GET", `/pets?ids=${unique.join(",")}&limit=100`);
  return new Map(res.body.map((/** @type {Pet} */ pet) => [pet.id, pet]));
};

/**
 * A query string from the parameters that are set.
 * @param {Record<string, string | number | undefined>} params
 */
export const query = (params) => {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== "")
    .map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`);
  return parts.length ? `?${parts.join("&")}` : "";
};
