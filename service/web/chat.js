// The play page's chat panel: the game's rooms as this viewer may read them (a seat: the seats'
// room and the spectators'; anyone else: the spectators'), written in the viewer's own room, new
// messages announced by a polite live region, your own messages deletable. Words are text, never
// markup (lit-html writes them as text nodes); only a link to this service's own origin is made
// clickable. The server leaves out the words of anyone the viewer mutes or blocks.
import { html, nothing, render } from "/web/html.js";
import { explain, onLanguageChange, t } from "/web/i18n.js";
import { pageState } from "/web/state.js";
import { api } from "/web/transport.js";

const LONGEST = 500; // characters in one message (the API's limit)
const URL_TEXT = /(https?:\/\/[^\s<>"]+)/g;

/** Whether ``text`` is a URL of this service's own origin (the only links made clickable). */
function sameOrigin(text) {
  try {
    return new URL(text).origin === location.origin;
  } catch {
    return false;
  }
}

/** Start the panel in ``element`` for ``game``, as the seat of ``token`` (null: a spectator);
 * returns what the page calls with the chat frames of the game's stream, and after a reconnection. */
export function startChat(element, game, token, seat) {
  const rooms = seat === null ? ["spectators"] : ["seats", "spectators"];
  const mine = seat === null ? "spectators" : "seats";
  const [state, update] = pageState(
    {
      messages: [], // both rooms, oldest first: {id, room, author, seat, name, text, at, removed}
      account: null, // a spectator's account (GET /me), to know their own messages
      signedIn: seat !== null, // a seat may write; a spectator once signed in
      sending: false,
      problem: null,
    },
    draw,
  );
  const number = (id) => Number(id.split("-")[1]);
  const own = (m) => (seat !== null ? m.room === "seats" && m.seat === seat : m.author === state.account);

  function merged(found) {
    const byId = new Map(state.messages.map((m) => [m.id, m]));
    for (const m of found) byId.set(m.id, { ...byId.get(m.id), ...m });
    return [...byId.values()].sort((a, b) => number(a.id) - number(b.id));
  }

  async function readAll() {
    for (const room of rooms) {
      let after = null;
      for (let pages = 0; pages < 20; pages++) {
        const query = after ? `?after=${after}` : "";
        const page = await api("GET", `/games/${game}/chat/${room}${query}`, undefined, token);
        if (!page.ok) break;
        update({ messages: merged(page.body.messages) });
        after = page.body.next;
        if (!page.body.more) break;
      }
    }
  }

  function heard(notices) {
    const posted = notices.filter((n) => n.type === "chat").map((n) => n.data.message);
    const removed = notices.filter((n) => n.type === "chat.removed").map((n) => ({ ...n.data.message, text: null }));
    const known = new Set(state.messages.map((m) => m.id));
    update({ messages: merged([...posted, ...removed.filter((m) => known.has(m.id))]) });
  }

  async function send(event) {
    event.preventDefault();
    const box = element.querySelector("#chat-text");
    const text = box.value;
    if (!text.trim()) return;
    update({ sending: true, problem: null });
    const key = crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
    const sent = await api("POST", `/games/${game}/chat/${mine}`, { text }, token, { "Idempotency-Key": key });
    if (sent.ok) {
      box.value = "";
      update({ sending: false, messages: merged([sent.body]) }, "#chat-text");
    } else {
      update({ sending: false, problem: sent.problem }, "#chat-text");
    }
  }

  async function remove(message) {
    const done = await api("DELETE", `/games/${game}/chat/${message.room}/${message.id}`, undefined, token);
    if (done.ok) update({ messages: merged([{ ...message, text: null, removed: "deleted" }]) }, "#chat-text");
    else update({ problem: done.problem });
  }

  function words(text) {
    // text only; a link is made clickable only when it leads to this service's own origin
    return text.split(URL_TEXT).map((part, i) => {
      if (i % 2 === 0) return part;
      return sameOrigin(part) ? html`<a href=${part}>${part}</a>` : part;
    });
  }

  function line(m) {
    const who = m.name || (m.seat === null ? t("chat.spectator") : t("chat.seat", { seat: m.seat + 1 }));
    const where =
      seat !== null && m.room === "spectators"
        ? html` <span class="muted">${t("chat.fromSpectators")}</span>`
        : nothing;
    const gone = m.removed === "hidden" ? t("chat.hidden") : t("chat.deleted");
    const body =
      m.text === null ? html`<em class="muted">${gone}</em>` : html`<span class="chat-text">${words(m.text)}</span>`;
    const del =
      own(m) && m.text !== null
        ? html` <button type="button" class="chat-delete" @click=${() => remove(m)}>${t("chat.delete")}</button>`
        : nothing;
    return html`<li data-id=${m.id}><strong>${who}</strong>${where}: ${body}${del}</li>`;
  }

  function draw() {
    const form = state.signedIn
      ? html`<form id="chat-form" @submit=${send}>
          <label for="chat-text">${mine === "seats" ? t("chat.toSeats") : t("chat.toSpectators")}</label>
          <textarea id="chat-text" rows="2" maxlength=${LONGEST} required></textarea>
          <button type="submit" id="chat-send" ?disabled=${state.sending}>${t("chat.send")}</button>
        </form>`
      : html`<p class="muted">${t("chat.signIn")}</p>`;
    render(
      html`<ol id="chat-messages" tabindex="0" aria-label=${t("chat.messages")} aria-live="polite" aria-relevant="additions">${state.messages.map(line)}</ol>
        ${form}
        <p class="problem" role="alert">${explain(state.problem)}</p>`,
      element,
    );
  }

  async function who() {
    if (seat !== null) return;
    // signed out is an answer here, not an error (GET /me would answer 401 to a spectator signed out)
    const session = await api("GET", "/auth/session");
    if (session.ok && session.body.signed_in) update({ account: session.body.profile.account, signedIn: true });
  }

  onLanguageChange(() => update({}));
  draw();
  who();
  readAll();
  return { heard, reopened: readAll };
}
