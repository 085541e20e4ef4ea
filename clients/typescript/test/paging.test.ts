import { describe, expect, it } from "vitest";
import { createPetstoreClient, isPetstoreError, nextLink } from "../src/index.ts";
import { errorBody, fakeFetch, json, type Sent } from "./fake-fetch.ts";

const pet = (id: number) => ({ id, name: `Pet ${id}`, categoryId: 1, status: "available" as const });

/** Pages of two pets, ids 1 to 5, each but the last linking to the next as the service does. */
const pages = (sent: Sent): Response => {
  const url = new URL(sent.url);
  const after = Number(url.searchParams.get("after") ?? 0);
  const ids = [1, 2, 3, 4, 5].filter((id) => id > after).slice(0, 2);
  const next = new URLSearchParams(url.searchParams);
  next.set("after", String(ids.at(-1)));
  return json(200, ids.map(pet), ids.at(-1)! < 5 ? { link: `<${url.pathname}?${next}>; rel="next"` } : {});
};

describe("paging", () => {
  it("finds the next link among several, whatever the order of its parameters", () => {
    const response = (link: string) => {
      const r = new Response(null, { headers: { link } });
      Object.defineProperty(r, "url", { value: "http://petstore.test/pets?limit=2" });
      return r;
    };
    expect(nextLink(response('</pets?after=2>; rel="next"'))?.href).toBe("http://petstore.test/pets?after=2");
    expect(nextLink(response('</a>; rel="prev", </b>; title="x"; rel="next last"'))?.href).toBe(
      "http://petstore.test/b",
    );
    expect(nextLink(response("</b>; rel=next"))?.pathname).toBe("/b");
    expect(nextLink(response('</a>; rel="prev"'))).toBeUndefined();
    expect(nextLink(new Response(null))).toBeUndefined();
  });

  it("yields every item of every page, following Link: rel=next with the query it gives", async () => {
    const fake = fakeFetch(pages);
    const client = createPetstoreClient({ baseUrl: "http://petstore.test", apiKey: "k", fetch: fake.fetch });
    const ids: number[] = [];
    for await (const p of client.paginate("/pets", {
      params: { query: { limit: 2, status: ["available", "pending"] } },
    }))
      ids.push(p.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(fake.sent.map((s) => new URL(s.url).search)).toEqual([
      "?limit=2&status=available,pending",
      "?limit=2&status=available%2Cpending&after=2",
      "?limit=2&status=available%2Cpending&after=4",
    ]);
    expect(fake.sent.every((s) => s.headers.get("x-api-key") === "k")).toBe(true);
  });

  it("stops early when the loop does, and throws a page's error", async () => {
    const early = fakeFetch(pages);
    const client = createPetstoreClient({ baseUrl: "http://petstore.test", fetch: early.fetch });
    for await (const p of client.paginate("/pets", { params: { query: { limit: 2 } } })) if (p.id === 2) break;
    expect(early.sent).toHaveLength(1);

    const failing = fakeFetch(pages, errorBody(403, "forbidden"));
    const other = createPetstoreClient({ baseUrl: "http://petstore.test", fetch: failing.fetch });
    const seen: number[] = [];
    const walk = async () => {
      for await (const p of other.paginate("/pets", { params: { query: { limit: 2 } } })) seen.push(p.id);
    };
    const thrown = await walk().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isPetstoreError(thrown, "forbidden")).toBe(true);
    expect(seen).toEqual([1, 2]);
  });
});
