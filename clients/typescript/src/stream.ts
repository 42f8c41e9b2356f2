// Following a Server-Sent Events stream with resume, as EventSource does but over fetch: it sends
// a bearer token (EventSource cannot send headers) and runs in node 18+ as in browsers. When the
// stream ends (the service ends them every few minutes) or breaks, it waits the `retry:` the server
// asked for and connects again with Last-Event-ID, so every event is delivered once, in order.
import { ApiError, type Event, type Problem } from "./client.js";

/** One event of a stream: its id (resume after it), its type and its data as sent. */
export interface ServerEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export interface FollowOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Start after this event id (else after the URL's `after` parameter, else from the start). */
  after?: string | number;
  /** Abort to stop following (leaving a `for await` loop stops it too). */
  signal?: AbortSignal;
}

/** Every event of the SSE stream at `url`, for as long as the caller reads. A 4xx answer other
 * than 429 is thrown as an ApiError: connecting again would not help. */
export async function* follow(url: string | URL, options: FollowOptions = {}): AsyncGenerator<ServerEvent> {
  const target = new URL(url);
  // the stream takes `after` over Last-Event-ID: resume by the header only
  let lastId = options.after === undefined ? (target.searchParams.get("after") ?? undefined) : String(options.after);
  target.searchParams.delete("after");
  let retry = 1000;
  for (;;) {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (options.token) headers["Authorization"] = `Bearer ${options.token}`;
    if (lastId !== undefined) headers["Last-Event-ID"] = lastId;
    try {
      const response = await fetch(target, { headers, signal: options.signal });
      if (response.status >= 400 && response.status < 500 && response.status !== 429) {
        throw new ApiError(response.status, (await response.json()) as Problem);
      }
      if (response.ok && response.body) {
        for await (const item of parse(response.body)) {
          if (typeof item === "number") {
            retry = item;
          } else {
            lastId = item.id ?? lastId;
            yield item;
          }
        }
      } else {
        await response.body?.cancel();
      }
    } catch (error) {
      if (error instanceof ApiError || options.signal?.aborted) throw error;
      // broken: connect again after `retry`
    }
    await new Promise((resolve) => setTimeout(resolve, retry));
  }
}

/** A game's events as the Event objects of openapi.yaml, from `base` (the service's URL). */
export async function* followGame(base: string, game: string, options: FollowOptions = {}): AsyncGenerator<Event> {
  for await (const item of follow(`${base}/games/${encodeURIComponent(game)}/stream`, options)) {
    yield JSON.parse(item.data) as Event;
  }
}

/** The events of a stream's body, and each `retry:` (in ms) as it comes; an event cut off before
 * its blank line is never delivered (it comes again after the resume). */
async function* parse(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent | number> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let id: string | undefined;
  let kind = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        if (line === "") {
          if (data.length) yield { id, event: kind || "message", data: data.join("\n") };
          kind = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") data.push(value);
        else if (field === "event") kind = value;
        else if (field === "id" && !value.includes("\0")) id = value;
        else if (field === "retry" && /^\d+$/.test(value)) yield Number(value);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
