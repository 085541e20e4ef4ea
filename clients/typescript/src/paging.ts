/**
 * The target of `Link: <…>; rel="next"` (RFC 8288), resolved against the response's URL (or `base`, for a response
 * made without one), or undefined on the last page. A link's `rel` may name several relations ("next last").
 */
export const nextLink = (response: Response, base?: string): URL | undefined => {
  const header = response.headers.get("link");
  if (!header) return undefined;
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2] ?? "");
    const relations = (rel?.[1] ?? rel?.[2] ?? "").toLowerCase().split(/\s+/);
    if (relations.includes("next")) return new URL(match[1] ?? "", response.url || base);
  }
  return undefined;
};
