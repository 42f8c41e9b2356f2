// The pages' one way to the service: its public REST API and its event streams, as any client
// would use them (like boardgame.io's Transport). api() sends a call with the caller's token
// and headers and reads its answer or its problem; follow() reads an event stream and resumes it
// where it stopped. No page calls fetch itself.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const bearer = (token) => (token ? { Authorization: `Bearer ${token}` } : {});

/** One call: {ok, status, body, problem, etag}. A 429 is waited out as told and sent again
 * (``retries`` times; a command keeps its Idempotency-Key, so it is still played at most once). */
export async function api(method, path, body, token, headers = {}, retries = 2) {
  const response = await fetch(path, {
    method,
    headers: {
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      ...bearer(token),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 429 && retries > 0) {
    const seconds = Number(response.headers.get("Retry-After") || "1");
    await sleep(Math.min(seconds, 30) * 1000);
    return api(method, path, body, token, headers, retries - 1);
  }
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  // a refusal is its problem document (RFC 9457), worded by the page from its code (i18n.js explain)
  const problem = response.ok
    ? null
    : parsed?.code
      ? parsed
      : { status: response.status, detail: parsed?.detail || parsed?.title || `HTTP ${response.status}` };
  return { ok: response.ok, status: response.status, body: parsed, problem, etag: response.headers.get("ETag") };
}

/** A static file of the pages (a catalogue of words): its JSON. */
export async function file(path) {
  const response = await fetch(path);
  return response.json();
}

/** Follow the event stream at ``path`` for ever: ``heard`` gets the events of each burst that
 * arrived together. EventSource cannot send a token, so the stream is read with fetch; when the
 * connection drops (a sleeping tab, a restart) it is resumed a second later from the last event
 * heard (Last-Event-ID), so no event is missed or heard twice. Frames without an id (a game's
 * chat, asked for with ?chat=true) go to ``beside`` as {type, data} and leave Last-Event-ID as it
 * was; ``reopened`` is called after each reconnection (what came meanwhile beside is not resent). */
export async function follow(path, token, heard, beside = null, reopened = null) {
  let lastEvent = "";
  let opened = 0;
  for (;;) {
    try {
      const response = await fetch(path, {
        headers: { ...bearer(token), ...(lastEvent ? { "Last-Event-ID": lastEvent } : {}) },
      });
      if (opened++ && reopened) reopened();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const frames = [];
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const frame = parsed(buffer.slice(0, cut));
          if (frame) frames.push(frame);
          buffer = buffer.slice(cut + 2);
        }
        const numbered = frames.filter((f) => f.id !== undefined);
        const others = frames.filter((f) => f.id === undefined);
        if (others.length && beside) beside(others.map((f) => ({ type: f.type, data: f.event })));
        if (!numbered.length) continue;
        lastEvent = numbered.at(-1).id;
        heard(numbered.map((f) => f.event));
      }
    } catch {
      // the connection dropped: resume after a second
    }
    await sleep(1000);
  }
}

/** One server-sent event: {id, event}, or null for a comment (a keep-alive). */
function parsed(text) {
  const fields = Object.fromEntries(
    text
      .split("\n")
      .filter((l) => l && !l.startsWith(":"))
      .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]),
  );
  return fields.data ? { id: fields.id, type: fields.event, event: JSON.parse(fields.data) } : null;
}
