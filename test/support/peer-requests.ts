/** A request to one of the bench's peers (bench/peer-fastify*), with an API key, and its answer with the body parsed. */
export const peerRequest = async (
  url: string,
  path: string,
  key?: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; headers: Headers; body: unknown }> => {
  const res = await fetch(`${url}${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(key ? { "x-api-key": key } : {}),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
};
