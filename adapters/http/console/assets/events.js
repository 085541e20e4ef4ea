// @ts-check
// The live event stream: GET /events read with fetch (EventSource cannot send the key in a header).

/**
 * @typedef {{ type: string, timestamp: string, data: any }} ServiceEvent
 * @typedef {(event: ServiceEvent) => void} Listener
 * @typedef {{ on: (listener: Listener) => () => void, emit: (event: ServiceEvent) => void }} Bus
 * @typedef {"connecting" | "live" | "reconnecting" | "forbidden" | "unauthorized"} Connection
 */

/**
 * Subscribers to the event stream, by any part of the page.
 * @returns {Bus}
 */
export const createBus = () => {
  /** @type {Set<Listener>} */
  const listeners = new Set();
  return {
    on: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    emit: (event) => listeners.forEach((listener) => listener(event)),
  };
};

/**
 * One message of a text/event-stream block (`field: value` lines; comments start with a colon).
 * @param {string} block
 * @returns {Record<string, string>}
 */
export const parseBlock = (block) => {
  /** @type {Record<string, string>} */
  const message = {};
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    message[field] = message[field] === undefined ? value : `${message[field]}\n${value}`;
  }
  return message;
};

/**
 * Follows GET /events: parses the stream, remembers the last id and resumes after it, waiting `retry` between
 * connections. Returns the function that stops it.
 * @param {string} key
 * @param {Bus} bus
 * @param {(state: Connection) => void} setState
 */
export const followEvents = (key, bus, setState) => {
  let stopped = false;
  /** @type {string | undefined} */
  let lastEventId;
  let retryMs = 2000;
  /** @type {AbortController | undefined} */
  let controller;
  const connect = async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        /** @type {Record<string, string>} */
        const headers = { "X-API-Key": key };
        if (lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
        const response = await fetch("/events", { headers, signal: controller.signal });
        if (response.status === 403) return setState("forbidden");
        if (response.status === 401) return setState("unauthorized");
        if (!response.ok || !response.body) throw new Error(`status ${response.status}`);
        setState("live");
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const message = parseBlock(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            if (message.retry) retryMs = Number(message.retry) || retryMs;
            if (message.id !== undefined) lastEventId = message.id;
            // `reset`: the stream stands at `from` now; `end`: it closes, and the reconnection is authorized afresh.
            if (message.event === "reset") lastEventId = JSON.parse(message.data ?? "{}").from;
            else if (message.event !== "end" && message.data !== undefined) bus.emit(JSON.parse(message.data));
          }
        }
      } catch {
        // A dropped connection or a refused one: wait `retry`, then resume after the last id.
      }
      if (stopped) return;
      setState("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  };
  void connect();
  return () => {
    stopped = true;
    controller?.abort();
  };
};
