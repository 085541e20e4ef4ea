/** A scripted stand-in for the service: answers in turn, and keeps every request it was sent (with its body read). */
export interface Sent {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

export type Answer = Response | Error | ((sent: Sent) => Response);

export const fakeFetch = (...answers: Answer[]) => {
  const sent: Sent[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const one: Sent = {
      method: request.method,
      url: request.url,
      headers: new Headers(request.headers),
      body: await request.text(),
    };
    sent.push(one);
    const answer = answers[Math.min(sent.length, answers.length) - 1];
    if (answer === undefined) throw new Error("the fake has no answers");
    if (answer instanceof Error) throw answer;
    return typeof answer === "function" ? answer(one) : answer.clone();
  };
  return { fetch, sent };
};

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

export const errorBody = (status: number, code: string, headers: Record<string, string> = {}): Response =>
  json(status, { code, message: `a ${code}`, status }, headers);

/** A clock that only moves when the client sleeps: waits are recorded, and cost no time. */
export const manualTime = (start = Date.UTC(2030, 0, 1)) => {
  let now = start;
  const slept: number[] = [];
  return {
    now: () => now,
    slept,
    sleep: async (ms: number, signal: AbortSignal) => {
      signal.throwIfAborted();
      slept.push(ms);
      now += ms;
    },
  };
};
