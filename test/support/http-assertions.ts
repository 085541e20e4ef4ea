import { expect } from "vitest";
import { notifyResponseObservers, type TestPetstore, type TestResponse } from "./test-petstore.ts";

/**
 * Asserts the seed's Error shape: exactly `{ code, message, status }` (plus `details` when given), the
 * status equal to the HTTP status, JSON, and nothing that looks like a stack trace or an internal name.
 */
export const expectError = (res: TestResponse, status: number, code: string): void => {
  expect({ status: res.status, code: res.body?.code }, JSON.stringify(res.body)).toEqual({ status, code });
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const keys = Object.keys(res.body).sort();
  expect(keys.filter((k) => k !== "details")).toEqual(["code", "message", "status"]);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.message).toBe("string");
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(JSON.stringify(res.body)).not.toMatch(
    /\bat \S+ \(\S*:\d+:\d+\)|\.ts:\d|node_modules|Error:|ZodError|DomainError|HttpProblem/,
  );
  if ("details" in res.body) {
    expect(Array.isArray(res.body.details)).toBe(true);
    for (const detail of res.body.details) {
      expect(Object.keys(detail).sort()).toEqual(["message", "path"]);
      expect(typeof detail.path).toBe("string");
      expect(typeof detail.message).toBe("string");
    }
  }
};

/** 400 validation_failed whose `details` name every given path (each detail path starts with one of them). */
export const expectValidationFailed = (res: TestResponse, ...paths: string[]): void => {
  expectError(res, 400, "validation_failed");
  const detailPaths: string[] = (res.body.details ?? []).map((d: { path: string }) => d.path);
  for (const path of paths) {
    expect(
      detailPaths.some((p) => p === path || p.startsWith(`${path}.`)),
      `details ${JSON.stringify(detailPaths)} should name ${path}`,
    ).toBe(true);
  }
};

export const rateLimitHeaders = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"] as const;

/** The three X-RateLimit-* headers, each a non-negative whole number. */
export const expectRateLimitHeaders = (res: TestResponse): void => {
  for (const name of rateLimitHeaders) {
    expect(res.headers.get(name), `${name} on a ${res.status}`).toMatch(/^\d+$/);
  }
};

export const limitOf = (res: TestResponse): number => Number(res.headers.get("x-ratelimit-limit"));
export const remainingOf = (res: TestResponse): number => Number(res.headers.get("x-ratelimit-remaining"));
export const resetOf = (res: TestResponse): number => Number(res.headers.get("x-ratelimit-reset"));
export const retryAfterOf = (res: TestResponse): number => Number(res.headers.get("retry-after"));

/** Unix seconds of an ISO instant. */
export const unix = (iso: string): number => Date.parse(iso) / 1000;

/** Sends a request straight to app.fetch: for bodies the test client cannot express (streams, raw headers). */
export const rawFetch = async (
  t: TestPetstore,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: BodyInit } = {},
): Promise<TestResponse> => {
  const request = new Request(new URL(path, "http://petstore.test"), {
    method,
    headers: init.headers,
    body: init.body,
    ...(init.body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
  const response = await t.petstore.app.fetch(request);
  const text = await response.text();
  const result: TestResponse = {
    status: response.status,
    headers: response.headers,
    body: text && response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text,
  };
  notifyResponseObservers({ method, path }, result); // the OpenAPI drift check sees these too
  return result;
};

/** A body stream of `size` bytes in 4 KiB chunks, without any Content-Length. */
export const streamOf = (size: number, fill = " "): ReadableStream<Uint8Array> => {
  let left = size;
  const chunk = new TextEncoder().encode(fill.repeat(4096));
  return new ReadableStream({
    pull(controller) {
      if (left <= 0) return controller.close();
      const part = chunk.subarray(0, Math.min(left, chunk.byteLength));
      left -= part.byteLength;
      controller.enqueue(part);
    },
  });
};

/** Counts responses by status: `{ 200: 60, 429: 20 }`. */
export const countStatuses = (responses: TestResponse[]): Record<number, number> => {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
};
