// A seat's page (/play/{game}#token=…) or a spectator's (/play/{game}). The token stays in the
// fragment and in localStorage, so it never reaches a server log. Only the public API is used:
// the view, /legal (the page sends nothing else), commands with their version and Idempotency-Key
// (over the play socket, else REST), and the event stream, resumed with Last-Event-ID.
//
// What the page shows is a function of one state object (state.js): update() is the only way to
// change it, and it redraws every panel.
import { board, listen, rewards } from "/web/board.js";
import { startChat } from "/web/chat.js";
import { words as commandWords } from "/web/command_words.js";
import { describe } from "/web/event_words.js";
import { verify } from "/web/fairness.js";
import { html, nothing, render } from "/web/html.js";
import { currentLanguage, explain, onLanguageChange, t } from "/web/i18n.js";
import { capital, colourName, endingName, kindName, levelName, named, phaseName } from "/web/names.js";
import { advice, colourOf, described, matching, spent } from "/web/pay.js";
import { PEOPLES, powerOf } from "/web/peoples.js";
import { showReview } from "/web/review.js";
import { mySeats, remember } from "/web/seats.js";
import { pageState } from "/web/state.js";
import { api, follow, playSocket } from "/web/transport.js";
import { pinchZoom } from "/web/zoom.js";

const game = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
const slider = $("version");
const TO_TILE = new Set(["move", "fly_figure", "fly_dragon", "move_dragon", "use_action"]);

const [state, update] = pageState(
  {
    token: null, // this seat's token; null for a spectator
    seat: null, // the viewer's seat, as the view says
    version: 0, // the game's version now
    view: null, // the game now (GET /games/{game})
    legal: null, // GET /legal on my turn, else null
    catalogue: {}, // building -> its spaces and rewards (GET /catalogue)
    choosing: null, // the tile whose ways of getting there are offered
    paying: null, // the space being paid: {space, printed, colour, colours, need, building, payments}
    ticked: [], // the cards ticked to pay it with
    discards: [], // the cards ticked to discard at the end of the turn
    busy: false, // a command is on its way: the actions wait for its answer
    showing: null, // the version the replay slider asks for; null follows the game
    replay: null, // {version, view}: the earlier version on show, once fetched
    audits: null, // {audit, log, fairness} once the game is over: the server's audit, the log, this page's checks
    log: [], // every event heard (worded when drawn, in the language of the moment)
    newest: 0, // the highest event seq heard
    lastTile: null, // where the last move happened (a figure or dragon went, a space was paid), highlighted
    problem: null, // what went wrong last: a problem document or a message (i18n.js explain)
    rematch: null, // once the game is over: who accepted a rematch, and its game once all have
    viewedAt: 0, // when the view was fetched (Date.now()): the clock of the seat in turn runs from there
    muted: null, // a signed-in person's own seat: whether its turn alerts are muted; null: not theirs, or signed out
  },
  renderPage,
);

function renderPage() {
  document.title = myTurn() ? t("play.title.yourTurn") : "Blue Moon City";
  render(statusPanel(), $("status"));
  render(boardPanel(), $("board"));
  render(playersPanel(), $("table"));
  render(handPanel(), $("hand"));
  render(actionsPanel(), $("actions"));
  render(mutePanel(), $("alert-controls"));
  render(explain(state.problem), $("problem"));
  renderLog();
  renderReplay();
}

const me = () => (state.view && state.seat !== null ? state.view.players[state.seat] : null);
const myTurn = () => Boolean(state.view?.turn && state.view.turn.seat === state.seat);
const commands = (type) => (state.legal?.commands ?? []).filter((c) => !type || c.type === type);
const words = (c) => commandWords(c, state.view, state.seat);

// ---- the panels: each a function of the state -------------------------------------------------
function statusPanel() {
  const { view, seat } = state;
  if (!view) return nothing;
  const status = view.result
    ? t("status.finished", {
        reason: endingName(view.result.reason),
        winners: view.result.winners.map((w) => t("status.seat", { seat: w })).join(", "),
      })
    : t("status.turn", { number: view.turn.number, seat: view.turn.seat, phase: phaseName(view.turn.phase) }) +
      (view.turn.deadline
        ? t("status.until", { time: new Date(view.turn.deadline).toLocaleString(currentLanguage()) })
        : "");
  const limit = 10 * view.options.players; // ten quiet rounds end the game (a stalemate)
  const quiet =
    !view.result && view.quiet_turns >= limit / 2 ? ` ${t("status.quiet", { count: view.quiet_turns, limit })}` : "";
  const who = seat === null ? t("status.spectating") : t("status.you", { seat });
  const mine = myTurn() ? html` <strong class="your-turn">${t("status.yourTurn")}</strong>` : nothing;
  return html`${who}${mine} ${status}${quiet}`;
}

function boardPanel() {
  const { view, replay, catalogue } = state;
  if (replay) return board(replay.view, new Map(), null, new Set(), catalogue);
  if (!view) return nothing;
  // a tile reached by a step, else by a power or the Main Hall, else only by a dragon
  const rank = (c) => (c.type === "move" ? 3 : c.type === "fly_figure" || c.type === "use_action" ? 2 : 1);
  const best = new Map();
  for (const c of commands().filter((x) => TO_TILE.has(x.type) && x.to))
    best.set(c.to, Math.max(best.get(c.to) ?? 0, rank(c)));
  const targets = new Map([...best].map(([tile, r]) => [tile, ["", "power", "walk", "step"][r]]));
  const payable = new Set(commands("contribute").map((c) => c.space));
  return board(view, targets, me()?.position, payable, catalogue, state.lastTile);
}

function playersPanel() {
  const v = state.replay?.view ?? state.view;
  if (!v) return nothing;
  const clocks = v.clocks ?? [];
  // a column only when there is something to show
  const timed = Boolean(v.settings?.clock) || clocks.some((c) => c.away_until);
  const rows = v.players.map((p) => {
    const turn = Boolean(v.turn && v.turn.seat === p.seat);
    const seat = v.seats[p.seat];
    const name = seat.account_bot ? t("names.botAccount", { name: seat.name }) : seat.name;
    const who = `${name ?? kindName(seat.kind)}${seat.level ? ` (${levelName(seat.level)})` : ""}`;
    const own = clocks.find((c) => c.seat === p.seat);
    const clock = timed ? clockOf(v, own) : nothing;
    return html`<tr class=${turn ? "turn" : nothing}>
      <td>${turn ? "▶ " : ""}P${p.seat} ${who}</td>
      ${timed ? html`<td class="clock" data-seat=${p.seat}>${clock}</td>` : nothing}
      <td>${named(p.position)}</td><td>${p.hand_size}</td><td>${p.crystals ?? "?"}</td>
      <td>${p.scales}</td><td>${p.markers}</td><td>${p.offerings}</td></tr>`;
  });
  // the clock comes next to the seat's name, where a phone shows it without scrolling the table
  return html`<tbody><tr><th>${t("players.seat")}</th>${timed ? html`<th>${t("players.clock")}</th>` : nothing}<th
    >${t("players.tile")}</th>
    <th>${t("players.cards")}</th><th>${t("players.crystals")}</th><th>${t("players.scales")}</th><th
    >${t("players.markers")}</th>
    <th>${t("players.offerings")}</th></tr>${rows}</tbody>`;
}

/** A seat's time bank (running down in its turn, unless its person is away) and its vacation. */
function clockOf(v, clock) {
  if (!clock) return nothing;
  const away = clock.away_until && new Date(clock.away_until) > new Date();
  const running = !away && !v.result && v.turn?.seat === clock.seat && v === state.view;
  const left = clock.bank_ms === null ? null : clock.bank_ms - (running ? Date.now() - state.viewedAt : 0);
  const until = away
    ? new Date(clock.away_until).toLocaleString(currentLanguage(), { dateStyle: "short", timeStyle: "short" })
    : "";
  return html`${left === null ? nothing : html`<span class="left">${duration(left)}</span>`}
    ${away ? html` <span class="muted away">${t("clock.away", { date: until })}</span>` : nothing}`;
}

/** A time left, as a person reads it: "2 d 3 h", "3 h 12 min", "4 min", "45 s". */
function duration(ms) {
  const all = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(all / 86400);
  const hours = Math.floor((all % 86400) / 3600);
  const minutes = Math.floor((all % 3600) / 60);
  if (days) return t("clock.days", { days, hours });
  if (hours) return t("clock.hours", { hours, minutes });
  if (minutes) return t("clock.minutes", { minutes });
  return t("clock.seconds", { seconds: all });
}

/** Mute or unmute this game's turn alerts: for a signed-in person's own seat. */
function mutePanel() {
  if (state.muted === null || state.seat === null) return nothing;
  const said = state.muted ? html`<span class="muted" id="muted-note">${t("mute.muted")}</span>` : nothing;
  const words = state.muted ? t("mute.unmute") : t("mute.mute");
  return html`<p><button type="button" id="mute" @click=${toggleMute}>${words}</button> ${said}</p>`;
}

async function toggleMute() {
  const muting = !state.muted;
  const done = await api(muting ? "PUT" : "DELETE", `/me/muted-games/${game}`);
  update(done.ok ? { muted: muting, problem: null } : { problem: done.problem });
}

/** A signed-in person's muted games (GET /me/alerts): only then is the mute control offered. */
async function checkMuted() {
  const session = await api("GET", "/auth/session"); // signed out is an answer here, not an error
  if (!session.ok || !session.body.signed_in) return;
  const alerts = await api("GET", "/me/alerts");
  if (alerts.ok) update({ muted: alerts.body.muted.includes(game) });
}

/** The hand grouped by people, in the table's order: [[colour, cards]], empty groups left out. */
function grouped(hand) {
  const groups = Object.fromEntries(Object.keys(PEOPLES).map((colour) => [colour, []]));
  for (const card of hand) groups[colourOf(card)].push(card);
  return Object.entries(groups).filter(([, cards]) => cards.length);
}

function handPanel() {
  // each people's power spelled out (no hover needed on a phone); while paying, a card is a
  // toggle for the payment; on my turn otherwise, a box to discard it at the Reset
  const mine = me();
  if (!mine) return nothing;
  const discarding = state.legal !== null && state.paying === null;
  return grouped(mine.hand).map(
    ([colour, cards]) => html`<div class="people">
      <span class="muted"><span aria-hidden="true">${PEOPLES[colour].symbol}</span> <strong
        >${PEOPLES[colour].name}</strong> <span class="power">${powerOf(colour)}</span></span>
      ${cards.map((card) => {
        const mark = html`<span class="symbol" aria-hidden="true">${PEOPLES[colour].symbol}</span> `;
        if (state.paying)
          return html`<button type="button" class="card c-${colour}" data-card=${card}
            aria-pressed=${String(state.ticked.includes(card))} @click=${() => tick(card)}>${mark}${card}</button>`;
        if (discarding)
          return html`<label class="card c-${colour}"><input type="checkbox" name="discard" value=${card}
            aria-label=${t("hand.discard", { card })} .checked=${state.discards.includes(card)}
            @change=${(e) => discard(card, e.target)}>${mark}${card}</label>`;
        return html`<span class="card c-${colour}">${mark}${card}</span>`;
      })}</div>`,
  );
}

const button = (text, onclick, type = "", primary = false) => html`<button type="button" data-type=${type || nothing}
  class=${primary ? "primary" : nothing} ?disabled=${state.busy} @click=${onclick}>${text}</button>`;

const group = (title, ...items) => html`<div class="group"><h3>${title}</h3>${items}</div>`;

function actionsPanel() {
  const { view, legal, seat } = state;
  if (!legal) {
    if (seat !== null && view?.result) return rematchPanel();
    if (seat === null || !view.turn) return nothing;
    const ask = window.Notification && Notification.permission === "default";
    const notify = () => Notification.requestPermission().then(() => update({}));
    const asking = ask ? button(t("actions.notify"), notify) : nothing;
    return html`<p class="muted">${t("actions.waiting", { seat: view.turn.seat })}</p>${asking}`;
  }
  if (state.paying) return builder();
  const steps = view.turn.phase === "movement" ? ` ${t("actions.steps", { count: view.turn.steps })}` : "";
  const powers = commands().filter(
    (c) => c.type === "gain_steps" || (c.type === "fly_dragon" && !c.to) || (c.type === "use_action" && !c.to),
  );
  const spaces = [...new Set(commands("contribute").map((c) => c.space))];
  const offers = commands("offer");
  const most = legal.end_turn_discards?.at_most ?? 0;
  const takeBack = commands("take_back");
  return html`<p class="muted">${t("actions.help")}${steps}</p>
    <div id="choices">${choices()}</div>
    ${
      powers.length
        ? group(
            t("actions.powers"),
            powers.map((c) => button(words(c), () => play(c), c.type)),
          )
        : nothing
    }
    ${spaces.length ? building(spaces) : nothing}
    ${
      offers.length
        ? group(
            t("actions.obelisk"),
            offers.map((c) => button(words(c), () => play(c), "offer")),
          )
        : nothing
    }
    ${takeBack.length ? button(words(takeBack[0]), () => play(takeBack[0]), "take_back") : nothing}
    ${button(t("actions.endTurn", { count: most }), endTurn, "end_turn", true)}`;
}

function rematchPanel() {
  const offer = state.rematch;
  if (!offer) return nothing;
  if (offer.accepted.includes(state.seat)) {
    const waiting = t("rematch.waiting", { count: offer.waiting_for.length, seats: offer.waiting_for.join(", ") });
    return html`<p class="muted" id="rematch-status">${waiting}</p>`;
  }
  const said = offer.accepted.length
    ? t("rematch.offered", { count: offer.accepted.length, seats: offer.accepted.join(", ") })
    : "";
  const words = offer.accepted.length ? t("rematch.accept") : t("rematch.offer");
  return html`<p class="muted">${said}</p>${button(words, acceptRematch, "rematch", true)}`;
}

const REMATCH_KEY = `bluemoon.rematch.${game}`; // the new seat's token, kept until the new game starts

async function acceptRematch() {
  const answer = await api("POST", `/games/${game}/rematch`, undefined, state.token);
  if (!answer.ok) {
    update({ problem: answer.problem });
    return;
  }
  if (answer.body.token) localStorage.setItem(REMATCH_KEY, answer.body.token);
  followRematch(answer.body);
}

/** Show who has accepted; once the new game is made, go to it (with the kept token, if any). */
function followRematch(offer) {
  update({ rematch: offer });
  if (!offer.game) return;
  const token = localStorage.getItem(REMATCH_KEY);
  localStorage.removeItem(REMATCH_KEY);
  if (token) remember(offer.game, state.seat, token);
  location.assign(`/play/${offer.game}${token ? `#token=${token}` : ""}`);
}

async function watchRematch() {
  if (state.seat === null || !state.view?.result) return;
  const offer = await api("GET", `/games/${game}/rematch`, undefined, state.token);
  if (offer.ok && (offer.body.game || JSON.stringify(offer.body) !== JSON.stringify(state.rematch)))
    followRematch(offer.body);
}

function choices() {
  const tile = state.choosing;
  if (!tile) return nothing;
  const options = commands().filter((c) => TO_TILE.has(c.type) && c.to === tile);
  return group(
    t("choices.at", { tile: named(tile) }),
    options.map((c) => button(words(c), () => play(c), c.type)),
    button(t("actions.cancel"), () => update({ choosing: null })),
  );
}

function building(spaces) {
  const tile = state.view.city.find((t) => t.tile === me().position);
  const spec = state.catalogue[tile.tile];
  return group(
    t("build.at", { tile: named(tile.tile) }),
    html`<p class="muted">${spec ? `${capital(named(tile.tile))}: ${rewards(spec)}.` : ""}</p>`,
    spaces.map((i) =>
      button(
        t("build.paySpace", { space: i + 1, colour: colourName(tile.spaces[i].colour), value: tile.spaces[i].value }),
        () => startPaying(i),
        "pay",
      ),
    ),
  );
}

function builder() {
  const { paying, ticked } = state;
  const found = matching(paying.payments, ticked, paying.colour);
  const ideas = paying.payments
    .filter((c) => (c.colour ?? paying.printed) === paying.colour)
    .sort((a, b) => spent(a).length - spent(b).length)
    .slice(0, 4);
  const colour = (event) => update({ paying: { ...paying, colour: event.target.value } });
  const title = t("build.paying", {
    tile: named(paying.building),
    space: paying.space + 1,
    colour: colourName(paying.printed),
    value: paying.need,
  });
  const options = paying.colours.map(
    (c) => html`<option value=${c} ?selected=${c === paying.colour}>${colourName(c)}</option>`,
  );
  const choice = html`${t("build.payIn")} <select id="colour" aria-label=${t("build.payInColour")}
    @change=${colour}>${options}</select>`;
  const build = (c) =>
    button(t("build.with", { payment: described(c, paying.colour) }), () => play(c), "contribute", true);
  const suggest = (c) => button(described(c, paying.colour), () => update({ ticked: spent(c) }), "suggest");
  return html`<div class="group" id="builder"><h3>${title}</h3>
    ${paying.colours.length > 1 ? choice : nothing}
    <p id="total" aria-live="polite">${t("build.tick")} ${advice(ticked, paying.colour, paying.need, found)}</p>
    ${found.map(build)}
    ${ideas.length && !found.length ? html`<br>${t("build.ways")} ${ideas.map(suggest)}` : nothing}
    ${button(t("actions.cancel"), () => update({ paying: null, ticked: [] }), "cancel")}</div>`;
}

function renderLog() {
  const log = $("log");
  const shown = log.childElementCount;
  render(
    state.log.map((event) => html`<li>${describe(event)}</li>`),
    log,
  );
  if (log.childElementCount !== shown) log.scrollTop = log.scrollHeight; // keep the newest in sight
}

const listed = (checks) => checks.map((c) => html`<li>${c.ok ? "✔" : "✘"} ${c.name}: ${c.detail}</li>`);

function renderReplay() {
  const { replay, audits } = state;
  render(replay ? t("replay.version", { version: replay.version, total: state.version }) : t("replay.now"), $("shown"));
  if (state.view) {
    // the slider is plain HTML: its range follows the game, its knob the replay
    slider.max = String(state.version);
    slider.value = String(state.showing ?? state.version);
  }
  $("audits").hidden = !audits;
  const audit = audits?.audit;
  render(
    audit
      ? html`<li><strong>${audit.verified ? t("replay.verified") : t("replay.notVerified")}</strong>: ${audit.setup}</li
          >${listed(audit.checks)}`
      : nothing,
    $("audit"),
  );
  const fair = audits?.fairness;
  render(
    fair
      ? html`<li><strong>${fair.every((c) => c.ok) ? t("replay.fair") : t("replay.unfair")}</strong></li
          >${listed(fair)}`
      : nothing,
    $("fairness"),
  );
}

// ---- what the player does ---------------------------------------------------------------------
function chooseTile(tile) {
  // a plain step is taken at once; anything else (Flit, dragons, the Main Hall) is offered
  const options = commands().filter((c) => TO_TILE.has(c.type) && c.to === tile);
  if (options.length === 1 && options[0].type === "move") {
    play(options[0]);
    return;
  }
  if (state.legal && !state.paying) update({ choosing: tile }, "#choices button");
}

function startPaying(space) {
  const payments = commands("contribute").filter((c) => c.space === space);
  if (!payments.length) return;
  const tile = state.view.city.find((t) => t.tile === me().position);
  const printed = tile.spaces[space].colour;
  const colours = [...new Set(payments.map((c) => c.colour ?? printed))];
  const paying = {
    space,
    printed,
    colour: colours[0],
    colours,
    need: tile.spaces[space].value,
    building: tile.tile,
    payments,
  };
  update({ paying, ticked: [], choosing: null, discards: [] }, "#hand button");
}

function tick(card) {
  const ticked = state.ticked.includes(card) ? state.ticked.filter((c) => c !== card) : [...state.ticked, card];
  update({ ticked }, `#hand button[data-card="${card}"]`);
}

function discard(card, box) {
  if (!box.checked) {
    update({ discards: state.discards.filter((c) => c !== card) });
    return;
  }
  const most = state.legal?.end_turn_discards?.at_most ?? 0;
  if (state.discards.length < most) {
    update({ discards: [...state.discards, card] });
    return;
  }
  box.checked = false; // the state never had it ticked, so the redraw would not untick it
  update({ problem: () => t("hand.discardAtMost", { count: most }) });
}

function endTurn() {
  // the ticked cards in the hand's order, as the page shows them
  const discards = grouped(me().hand)
    .flatMap(([, cards]) => cards)
    .filter((c) => state.discards.includes(c));
  play({ type: "end_turn", discards });
}

let socket = null; // the seat's play socket (transport.js), made at its first command

async function play(command) {
  update({ problem: null, busy: true });
  const key = crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
  socket ??= playSocket(game, state.token);
  const result = await socket.send(command, state.legal.version, key);
  if (!result.ok) update({ problem: result.problem });
  await load();
}

// ---- the game as it is now ----------------------------------------------------------------------
async function start() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  let token = fragment.get("token");
  if (!token && fragment.get("invite")) {
    const seatNo = Number(fragment.get("seat"));
    const joined = await api("POST", `/games/${game}/seats/${seatNo}/join`, { invite: fragment.get("invite") });
    if (!joined.ok) {
      update({ problem: joined.problem });
    } else {
      token = joined.body.token;
      remember(game, seatNo, token);
      history.replaceState(null, "", `#token=${token}`);
    }
  }
  update({ token: token ?? mySeats().find((s) => s.game === game)?.token ?? null });
  listen($("board"), chooseTile, startPaying);
  pinchZoom($("board"), $("reset-zoom"));
  const known = await api("GET", "/catalogue");
  if (known.ok) update({ catalogue: Object.fromEntries(known.body.buildings.map((b) => [b.building, b])) });
  await load();
  checkMuted();
  setInterval(() => {
    if (state.view?.settings?.clock && !state.view.result) render(playersPanel(), $("table"));
  }, 1000);
  listenLive();
}

// loads started so far: a load's answers are put on the page only while no later load has
// begun, and never over a newer version (an older /legal would make the next command a 412)
let loads = 0;
const overtaken = (started, view) => started !== loads || (state.view && view.version < state.view.version);

async function load() {
  const started = ++loads;
  const viewed = await api("GET", `/games/${game}`, undefined, state.token);
  if (viewed.ok && overtaken(started, viewed.body)) return;
  if (!viewed.ok) {
    update({ problem: viewed.problem });
    return;
  }
  const view = viewed.body;
  const moved = !state.view || view.version !== state.view.version;
  const seat = view.viewer;
  if (view.result) showAudits();
  if (view.result) socket?.close(); // nothing more to play: its slot is let go
  if (view.result && !state.view?.result) reviewed(view, seat);
  if (view.result && !state.view?.result && view.viewer !== null) setInterval(watchRematch, 3000);
  if (seat !== null) remember(game, seat, state.token);
  const mine = Boolean(view.turn && view.turn.seat === seat);
  let legal = null;
  if (mine) {
    const answer = await api("GET", `/games/${game}/legal`, undefined, state.token);
    if (answer.ok) legal = answer.body;
    if (overtaken(started, view)) return;
  }
  // a new version ends a payment begun on the old one; choices and discard ticks start afresh
  const payment = moved ? { paying: null, ticked: [] } : {};
  update({
    view,
    version: view.version,
    seat,
    legal,
    busy: false,
    choosing: null,
    discards: [],
    viewedAt: Date.now(),
    ...payment,
  });
  if (view.result) watchRematch();
  if (mine && window.Notification?.permission === "granted" && document.hidden)
    new Notification(t("play.notification"));
}

// ---- the replay and the audits ----------------------------------------------------------------
async function showVersion(v) {
  // the game as this seat saw it then (GET /games/{game}/versions/{v}); arrow keys step the slider
  if (v === state.version) {
    update({ showing: null, replay: null });
    return;
  }
  update({ showing: v });
  const then = await api("GET", `/games/${game}/versions/${v}`, undefined, state.token);
  if (!then.ok) {
    update({ problem: then.problem });
    return;
  }
  // (unless overtaken by a later move of the slider)
  if (state.showing === v) update({ replay: { version: v, view: then.body } });
}

slider.oninput = () => showVersion(Number(slider.value));

function reviewed(view, seat) {
  // the finished game's review, once: a mistake's button takes the replay to its version
  $("review-section").hidden = false;
  showReview($("review"), game, view, seat, (v) => {
    showVersion(v);
    slider.focus();
  });
}
$("live").onclick = () => {
  update({ showing: null, replay: null });
  load();
};

async function showAudits() {
  // the server's audit judges every move again; the fairness check runs here, on the raw log
  const [audit, log] = await Promise.all([api("GET", `/games/${game}/audit`), api("GET", `/games/${game}/log`)]);
  const before = state.audits ?? { audit: null, log: null, fairness: null };
  const kept = log.ok ? log.body : before.log;
  update({ audits: { audit: audit.ok ? audit.body : before.audit, log: kept, fairness: kept ? verify(kept) : null } });
}

// ---- live: the event stream -------------------------------------------------------------------
function listenLive() {
  let reload = null;
  const chat = startChat($("chat"), game, state.token, state.seat);
  const heard = (events) => {
    // the events that arrived together are logged in one update
    update({
      newest: Math.max(state.newest, ...events.map((e) => e.seq)),
      log: [...state.log, ...events],
      lastTile: events.map(movedTo).filter(Boolean).at(-1) ?? state.lastTile,
    });
    clearTimeout(reload);
    // redraw once the burst is over, and only if the page has not already caught up by itself
    reload = setTimeout(() => {
      if (state.newest > state.version) load();
    }, 150);
  };
  follow(`/games/${game}/stream?chat=true`, state.token, heard, chat.heard, chat.reopened);
}

/** The tile an event happened on, for the last-move highlight; null for events elsewhere. */
function movedTo({ type, data }) {
  if (["FigureMoved", "FigureFlown", "DragonFlown", "DragonMoved"].includes(type)) return data.to;
  if (type === "ContributionMade") return data.building;
  if (type === "ActionUsed") return data.to ?? data.building;
  return null;
}

// another language: every panel worded again (the fairness checks too, which verify() words)
onLanguageChange(() =>
  update(state.audits?.log ? { audits: { ...state.audits, fairness: verify(state.audits.log) } } : {}),
);
start();
