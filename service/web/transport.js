// The pages' one way to the service: its public REST API, its event streams and its play socket,
// as any client would use them (like boardgame.io's Transport). api() sends a call with the
// caller's token and headers and reads its answer or its problem; follow() reads an event stream
// and resumes it where it stopped; playSocket() sends a seat's commands over one WebSocket, and
// over REST when it cannot. No page calls fetch itself.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const bearer = (token) => (token ? { Authorization: `Bearer ${token}` } : {});

/** One call: {ok, status, body, problem, etag}. A 429 is waited out as told and sent again
 * (``retries`` times; a command keeps its Idempotency-Key, so it is still played at most once).
 * No answer at all (a dropped connection, a network gone) is never thrown: a read is sent again
 * a second later (``retries`` times), and then, as a write at once, answered with the problem
 * ``offline`` (status 0), so that a page keeps going (its event stream resumes by itself). */
export async function api(method, path, body, token, headers = {}, retries = 2) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...bearer(token),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    if (retries > 0 && (method === "GET" || method === "HEAD")) {
      await sleep(1000);
      return api(method, path, body, token, headers, retries - 1);
    }
    const problem = { status: 0, code: "offline", detail: String(error?.message ?? error) };
    return { ok: false, status: 0, body: null, problem, etag: null };
  }
  if (response.status === 429 && retries > 0) {
    const seconds = Number(response.headers.get("Retry-After") || "1");
    await sleep(Math.min(seconds, 30) * 1000);
    return api(method, path, body, token, headers, retries - 1);
  }
  const text = await response.text();
  const parsed = json(text);
  const problem = response.ok ? null : problemOf(response.status, parsed);
  return { ok: response.ok, status: response.status, body: parsed, problem, etag: response.headers.get("ETag") };
}

/** An answer's JSON; null for none, or for what is not this service's JSON (a proxy's error
 * page): then the status alone says it. */
function json(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** A refusal is its problem document (RFC 9457), worded by the page from its code (i18n.js explain). */
function problemOf(status, parsed) {
  return parsed?.code ? parsed : { status, detail: parsed?.detail || parsed?.title || `HTTP ${status}` };
}

const OPENING_MS = 5000; // a play socket not open by then is given up: the command goes over REST
const ANSWER_MS = 10000; // a command unanswered on the socket by then is sent over REST (its key kept)
const BACKOFF_MS = [1000, 30000]; // after a drop or a failed opening, the next try waits 1 s, doubled up to 30 s

/** A seat's play socket (``GET /games/{game}/socket``, docs/api.md): ``send(command, version, key)``
 * plays a command over one WebSocket instead of a request each, answered as api() answers
 * ``POST /games/{game}/commands`` (the same result, the same problem document, 429 waited out as
 * told). The socket opens at the first command, so spectators never hold one, and again after a
 * drop once its backoff is over. A command that finds no socket open, or whose socket drops (or
 * stays silent) before the answer, goes over REST with the same Idempotency-Key and version: it is
 * played at most once. The socket's pushed events are not read: the page's event stream (which
 * carries the chat too) tells it what happens. ``close()`` lets the socket go for good. */
export function playSocket(game, token) {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/games/${game}/socket`;
  const waiting = new Map(); // a message's id -> what its answer (null: none will come) is given to
  let socket = null; // the open socket
  let opening = null; // the opening on its way: a promise of the socket, or of null if it failed
  let backoff = 0;
  let nextTry = 0; // no opening is tried before this (Date.now())
  let ended = false;
  let sent = 0;

  const dropped = (ws) => {
    if (socket === ws) socket = null;
    for (const give of waiting.values()) give(null);
    waiting.clear();
    backoff = Math.min(backoff ? backoff * 2 : BACKOFF_MS[0], BACKOFF_MS[1]);
    nextTry = Date.now() + backoff;
  };

  function open() {
    if (opening) return opening;
    if (socket || ended || Date.now() < nextTry) return Promise.resolve(socket);
    opening = new Promise((resolve) => {
      let ws;
      try {
        ws = new WebSocket(url, ["bluemoon.v1", ...(token ? [`bearer.${token}`] : [])]);
      } catch {
        dropped(null); // a URL or a token the browser refuses (its policy, say): REST it is
        resolve(null);
        return;
      }
      const late = setTimeout(() => ws.close(), OPENING_MS);
      ws.onopen = () => {
        clearTimeout(late);
        socket = ws;
        backoff = 0;
        resolve(ws);
      };
      ws.onclose = () => {
        clearTimeout(late);
        dropped(ws);
        resolve(null);
      };
      ws.onmessage = (message) => {
        const answer = JSON.parse(message.data);
        const give = waiting.get(answer.id);
        if (!give) return; // pushed events, and answers given up on
        waiting.delete(answer.id);
        give(answer);
      };
    }).finally(() => (opening = null));
    return opening;
  }

  async function send(command, version, key, retries = 2) {
    const ws = await open();
    const answer = ws && (await asked(ws, { ...command, expected_version: version }, key));
    if (answer?.type === "result") return { ok: true, status: 200, body: answer.result, problem: null, etag: null };
    if (answer?.type === "problem") {
      const { status, retry_after: seconds } = answer.problem;
      if (status === 429 && retries > 0) {
        await sleep(Math.min(seconds || 1, 30) * 1000);
        return send(command, version, key, retries - 1);
      }
      return { ok: false, status, body: answer.problem, problem: problemOf(status, answer.problem), etag: null };
    }
    const headers = { "If-Match": `"${version}"`, "Idempotency-Key": key };
    return api("POST", `/games/${game}/commands`, command, token, headers);
  }

  /** The socket's answer to one command, or null if none came (the socket is then let go). */
  function asked(ws, command, key) {
    const id = `c${++sent}`;
    return new Promise((give) => {
      waiting.set(id, give);
      setTimeout(() => {
        if (!waiting.delete(id)) return; // answered
        give(null);
        ws.close();
      }, ANSWER_MS);
      ws.send(JSON.stringify({ id, idempotency_key: key, command }));
    });
  }

  function close() {
    ended = true;
    socket?.close();
  }

  return { send, close };
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
