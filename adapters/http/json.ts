/** JSON responses with our headers; bodies are serialised once, here. */
export const json = (body: unknown, status = 200, headers?: HeadersInit): Response => {
  const response = new Response(JSON.stringify(body), { status, headers });
  response.headers.set("content-type", "application/json; charset=utf-8");
  return response;
};

export const noContent = (): Response => new Response(null, { status: 204 });
