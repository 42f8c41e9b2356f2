// Challenges that wait (issue 38): the lobby's section lists the challenges to the signed-in
// person (accept, or decline with a reason) and from them (cancel), polled while shown, and says
// when one of theirs was answered. challengeForm() is the form that challenges one person: the
// lobby shows it for a player id, and a person's profile page can render it for that person:
//   import { challengeForm } from "/web/challenges.js";
//   render(challengeForm(account, name), element);
// Only the public API: POST /challenges, GET /me/challenges, GET /challenges/{id}, its accept,
// decline and DELETE.
import { html, nothing, render } from "/web/html.js";
import { explain, onLanguageChange, t } from "/web/i18n.js";
import { pageState } from "/web/state.js";
import { api } from "/web/transport.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 5000;
// the API's reasons, in its order, each in words
const REASONS = {
  no_reason: () => t("challenges.reason.no_reason"),
  busy: () => t("challenges.reason.busy"),
  not_now: () => t("challenges.reason.not_now"),
  clock: () => t("challenges.reason.clock"),
  options: () => t("challenges.reason.options"),
};
const EDITIONS = { cmon: "CMON", classic: "Kosmos" }; // the publishers' names, the same in every language
// the clocks the form offers: none, a day a turn, or a three-day time bank with a day per turn
const CLOCKS = {
  none: { asked: {}, words: () => t("challenges.clock.none") },
  day: { asked: { turn_deadline: 86400, deadline_level: "greedy" }, words: () => t("challenges.clock.day") },
  bank: {
    asked: { clock: { bank_seconds: 259200, increment_seconds: 86400 }, deadline_level: "greedy" },
    words: () => t("challenges.clock.bank"),
  },
};

const [state, update] = pageState(
  {
    shown: false, // a person is signed in: the section is shown
    incoming: null, // GET /me/challenges: to me
    outgoing: null, // from me
    answered: [], // my challenges answered since the page opened: {id, status, name, game, reason}
    problem: null, // why an answer or a cancel was refused
    note: {}, // each form's outcome, by the form's key: a problem, or the challenge sent
  },
  renderSection,
);

function renderSection() {
  const section = $("challenges-section");
  if (!section) return;
  section.hidden = !state.shown;
  render(state.shown ? panel() : nothing, $("challenges"));
}

const bot = (person) => (person.bot ? t("names.botAccount", { name: person.name }) : person.name);
const what = (c) =>
  [
    `${EDITIONS[c.options.edition] ?? c.options.edition}${c.options.expansion ? ` + ${t("lobby.withExpansion")}` : ""}`,
    c.rated ? t("lobby.ratedGame") : "",
    c.clock ? CLOCKS.bank.words() : c.turn_deadline ? CLOCKS.day.words() : "",
  ]
    .filter(Boolean)
    .join(", ");

function panel() {
  const problem = state.problem ? html`<p class="problem" role="alert">${explain(state.problem)}</p>` : nothing;
  return html`${problem}
    <h3 id="challenges-in">${t("challenges.incoming")}</h3>
    <ul aria-labelledby="challenges-in" id="challenges-incoming">${listed(state.incoming, incoming)}</ul>
    <h3 id="challenges-out">${t("challenges.outgoing")}</h3>
    <ul aria-labelledby="challenges-out" id="challenges-outgoing">${listed(state.outgoing, outgoing)}</ul>
    <ul id="challenges-answered" aria-live="polite">${state.answered.map(answeredItem)}</ul>
    ${challengeForm(null, null)}`;
}

const listed = (items, row) =>
  items === null ? nothing : items.length ? items.map(row) : html`<li class="muted">${t("challenges.none")}</li>`;

function incoming(c) {
  const select = `reason-${c.id}`;
  return html`<li data-challenge=${c.id}>
    <span>${t("challenges.from", { name: bot(c.challenger) })} — ${what(c)}</span>
    <button type="button" class="primary" @click=${() => answer(c, "accept")}>${t("challenges.accept")}</button>
    <select id=${select} aria-label=${t("challenges.reason")}>
      ${Object.entries(REASONS).map(([r, words]) => html`<option value=${r}>${words()}</option>`)}
    </select>
    <button type="button" @click=${() => answer(c, "decline")}>${t("challenges.decline")}</button>
  </li>`;
}

function outgoing(c) {
  return html`<li data-challenge=${c.id}>
    <span>${t("challenges.to", { name: bot(c.challenged) })} — ${what(c)}</span>
    <button type="button" @click=${() => answer(c, "cancel")}>${t("challenges.cancel")}</button>
  </li>`;
}

function answeredItem(a) {
  if (a.status === "accepted") {
    return html`<li><p><a href=${`/play/${a.game}`}>${t("challenges.accepted", { name: a.name })}</a></p></li>`;
  }
  const reason = (REASONS[a.reason] ?? REASONS.no_reason)();
  const said =
    a.status === "declined"
      ? t("challenges.declined", { name: a.name, reason })
      : t("challenges.expired", { name: a.name });
  return html`<li>${said}</li>`;
}

async function answer(c, how) {
  update({ problem: null });
  const done =
    how === "cancel"
      ? await api("DELETE", `/challenges/${c.id}`)
      : how === "decline"
        ? await api("POST", `/challenges/${c.id}/decline`, { reason: $(`reason-${c.id}`).value })
        : await api("POST", `/challenges/${c.id}/accept`);
  if (!done.ok) {
    update({ problem: done.problem });
    await refresh();
    return;
  }
  if (how === "accept") {
    location.assign(`/play/${done.body.game}`); // the session reaches my seat
    return;
  }
  await refresh();
}

/** The form that challenges ``account`` (named ``name``); without one, it asks for a player id.
 * ``redraw``: what the page calls to draw it again (another page's), told when it has something to say. */
export function challengeForm(account, name, redraw = null) {
  const key = account ?? "any";
  const id = (part) => `challenge-${key}-${part}`;
  const note = state.note[key];
  const said =
    note && note.id
      ? html`<p role="status">${t("challenges.sent", { name: bot(note.challenged) })}</p>`
      : note
        ? html`<p class="problem" role="alert">${explain(note)}</p>`
        : nothing;
  const who = account
    ? nothing
    : html`<label for=${id("account")}>${t("challenges.player")}</label>
        <input id=${id("account")} name="account" required autocomplete="off" />`;
  return html`<form class="challenge-form" @submit=${(event) => send(event, account, key, redraw)}>
    <fieldset>
      <legend>${account ? t("challenges.challengeName", { name }) : t("challenges.challengeSomeone")}</legend>
      ${who}
      <label for=${id("edition")}>${t("lobby.edition")}</label>
      <select id=${id("edition")} name="edition">
        <option value="cmon">CMON 2018</option><option value="classic">Kosmos 2006</option>
      </select>
      <label><input type="checkbox" name="expansion" /> ${t("lobby.expansion")}</label>
      <label><input type="checkbox" name="rated" checked /> ${t("lobby.rated")}</label>
      <label for=${id("clock")}>${t("lobby.clock")}</label>
      <select id=${id("clock")} name="clock">
        ${Object.entries(CLOCKS).map(([c, { words }]) => html`<option value=${c}>${words()}</option>`)}
      </select>
      <button type="submit" class="primary">${t("challenges.challenge")}</button>
    </fieldset>
    ${said}
  </form>`;
}

async function send(event, account, key, redraw) {
  event.preventDefault();
  const form = event.target;
  const body = {
    account: account ?? form.account.value.trim(),
    edition: form.edition.value,
    expansion: form.expansion.checked && form.edition.value === "cmon",
    rated: form.rated.checked,
    ...CLOCKS[form.clock.value].asked,
  };
  const sent = await api("POST", "/challenges", body, undefined, { "Idempotency-Key": crypto.randomUUID() });
  update({ note: { ...state.note, [key]: sent.ok ? sent.body : sent.problem } });
  redraw?.();
  if (sent.ok && state.shown) await refresh();
}

let mine = new Set(); // my outgoing challenges last listed: one gone was answered (or expired)
async function refresh() {
  const listedNow = await api("GET", "/me/challenges");
  if (!listedNow.ok) return;
  const { incoming: toMe, outgoing: fromMe } = listedNow.body;
  const gone = [...mine].filter((id) => !fromMe.some((c) => c.id === id));
  mine = new Set(fromMe.map((c) => c.id));
  const answered = [];
  for (const id of gone) {
    const found = await api("GET", `/challenges/${id}`);
    if (found.ok && found.body.status !== "cancelled") {
      const c = found.body;
      answered.push({ id, status: c.status, name: bot(c.challenged), game: c.game, reason: c.reason });
    }
  }
  update({ incoming: toMe, outgoing: fromMe, answered: [...answered, ...state.answered] });
}

let polling = null;
/** Show the section for a signed-in person (and list their challenges), or hide it. */
export async function showChallenges(signedIn) {
  clearInterval(polling);
  if (!signedIn) {
    mine = new Set();
    update({ shown: false, incoming: null, outgoing: null, answered: [], problem: null, note: {} });
    return;
  }
  update({ shown: true });
  await refresh();
  polling = setInterval(refresh, POLL_MS);
}

onLanguageChange(() => update({}));
