// The lobby: sign in (an email link or a passkey), create a game, hand out its seats, and list my
// games, my turn first: those of my account (on every device) and the seat tokens this browser keeps.
// As on the play page, one state object (state.js), changed only by update(), which redraws every panel.
import { showAlerts } from "/web/alerts.js";
import { showChallenges } from "/web/challenges.js";
import { bindForm } from "/web/forms.js";
import { html, nothing, render } from "/web/html.js";
import { currentLanguage, decimal, explain, onLanguageChange, t, tParts } from "/web/i18n.js";
import { levelName } from "/web/names.js";
import { addPasskey, signInWithPasskey, signOut } from "/web/passkeys.js";
import { mySeats, remember } from "/web/seats.js";
import { pageState } from "/web/state.js";
import { api } from "/web/transport.js";

const $ = (id) => document.getElementById(id);

const [state, update] = pageState(
  {
    seats: [
      { kind: "human", level: "greedy" },
      { kind: "bot", level: "greedy" },
    ], // the new game's seats, as chosen
    created: null, // {game, seats}: the game just created, with its tokens and invites
    games: null, // my games (GET /games), my turn first, each with my token; null until listed
    gamesProblem: null, // why my games could not be listed (a problem: i18n.js explain)
    problem: null, // why the game could not be created
    me: undefined, // the signed-in person's profile; null when signed out, undefined until asked
    accountNote: null, // what the last account action said (a link sent, a refusal): explained when shown
    unkept: 0, // seats this browser holds that the account does not
    confirmKeep: false, // the account shown, waiting for the person to confirm keeping the seats in it
    deviceCode: null, // {code, link}: shown to sign in on another device
    open: null, // the lobby's open games; null until listed
    openTag: null, // the lobby's ETag: polled with If-None-Match, so an unchanged lobby costs a 304
    openProblem: null, // why an open game could not be opened or joined
    board: null, // {players, bots}: the leaderboard
    rating: null, // my rating, when signed in
    // each form's kind of clock: none, deadline (per turn) or bank (a time bank)
    clocks: { create: "none", open: "none" },
  },
  renderPage,
);

function renderPage() {
  render(state.seats.map(seatRow), $("seats")); // after the fieldset's legend
  render(clockFields("create"), $("create-clock")); // (the same)
  render(clockFields("open"), $("open-clock"));
  render(explain(state.problem), $("problem"));
  render(accountPanel(), $("account"));
  render(createdPanel(), $("created"));
  render(gamesPanel(), $("games"));
  render(explain(state.openProblem), $("open-problem"));
  render(openPanel(), $("open-games"));
  render(boardPanel(), $("leaderboard"));
}

const rating = (r) => t("lobby.rating", { rating: decimal(r.rating), spread: decimal(3 * r.sigma), count: r.games });
const EDITIONS = { cmon: "CMON", classic: "Kosmos" }; // the publishers' names, the same in every language
const LEVELS = ["random", "greedy", "mcts", "planner", "expert"]; // the bots', weakest first
/** A game's edition and expansion: "CMON + expansion". */
const edition = (options) =>
  `${EDITIONS[options.edition] ?? options.edition}${options.expansion ? ` + ${t("lobby.withExpansion")}` : ""}`;

function openPanel() {
  if (!state.open) return nothing;
  if (!state.open.length) return html`<li class="muted">${t("lobby.noOpenGame")}</li>`;
  const mine = (table) => state.me && table.seats.some((s) => s.player === state.me.account);
  return state.open.map((table) => {
    const who = table.seats
      .map((s) =>
        s.kind === "bot"
          ? t("lobby.botSeat", { level: levelName(s.level) })
          : s.account_bot
            ? t("names.botAccount", { name: s.name })
            : (s.name ?? t("lobby.freeSeat")),
      )
      .join(", ");
    const what = [
      t("lobby.playerCount", { count: table.options.players }),
      edition(table.options),
      table.rated ? t("lobby.ratedGame") : "",
      table.rating_range ? t("lobby.range", { min: table.rating_range.min, max: table.rating_range.max }) : "",
      clockText(table),
      t("lobby.free", { count: table.free }),
    ]
      .filter(Boolean)
      .join(", ");
    const action = !state.me
      ? html`<span class="muted">${t("lobby.signInToJoin")}</span>`
      : table.seats[0].player === state.me.account
        ? html`<button type="button" data-open=${table.id} data-action="cancel"
            @click=${() => tableAction("DELETE", `/open-games/${table.id}`)}>${t("lobby.cancel")}</button>`
        : mine(table)
          ? html`<span class="muted">${t("lobby.seated")}</span>`
          : html`<button type="button" class="primary" data-open=${table.id} data-action="join"
              @click=${() => tableAction("POST", `/open-games/${table.id}/join`)}>${t("lobby.join")}</button>`;
    return html`<li data-open=${table.id}>${who} — ${what} ${action}</li>`;
  });
}

function boardPanel() {
  if (!state.board) return nothing;
  const mine = state.rating
    ? html`<p id="my-rating">${tParts("lobby.myRating", {
        rating: html`<strong>${rating(state.rating)}</strong>`,
        games: html`<a href="/ratings#player=${state.rating.player}">${t("lobby.myRatedGames")}</a>`,
      })}</p>`
    : nothing;
  const people = state.board.players.length
    ? html`<ol>${state.board.players.map((p) => html`<li>${p.name}: ${rating(p)}</li>`)}</ol>`
    : html`<p class="muted">${t("lobby.nobodyRated")}</p>`;
  const bots = state.board.bots.map((b) => `${b.name} ${decimal(b.rating)}`).join(", ");
  return html`${mine}${people}<p class="muted">${t("lobby.botRatings", { bots })}
    <a href="/ratings">${t("lobby.allRatings")}</a></p>`;
}

async function tableAction(method, path) {
  const done = await api(method, path);
  update({ openProblem: done.problem });
  await listOpen(true);
  listGames();
}

/** The lobby's open games, asked again every few seconds: a 304 when nothing changed. */
async function listOpen(force = false) {
  const asked = await api(
    "GET",
    `/open-games?limit=50${$("hide-bot-accounts").checked ? "&bot_accounts=false" : ""}`,
    undefined,
    undefined,
    !force && state.openTag ? { "If-None-Match": state.openTag } : {},
  );
  if (asked.status === 304) return;
  if (!asked.ok) {
    update({ openProblem: asked.problem });
    return;
  }
  update({ open: asked.body.open_games, openTag: asked.etag });
  if (state.me) listGames(); // a game of mine may have just started
  listBoard();
}

async function listBoard() {
  const board = await api("GET", "/leaderboard?limit=20");
  const mine = state.me ? await api("GET", "/me/rating") : null;
  if (board.ok) update({ board: board.body, rating: mine?.ok ? mine.body : null });
}

$("hide-bot-accounts").onchange = () => listOpen(true);

bindForm($("open-game"), async (event) => {
  const form = event.target;
  const body = {
    players: Number(form.players.value),
    edition: form.edition.value,
    expansion: form.expansion.checked,
    bots: Array(Number(form.bots.value)).fill(form.level.value),
    rated: form.rated.checked,
    bot_accounts: form.bot_accounts.checked,
    ...clockRequest(form, state.clocks.open),
  };
  if (form.min.value !== "" || form.max.value !== "")
    body.rating_range = { min: Number(form.min.value || -100), max: Number(form.max.value || 100) };
  const opened = await api("POST", "/open-games", body);
  update({ openProblem: opened.problem });
  listOpen(true);
});

/** A span of seconds, short: 3 d, 1 d 12 h, 90 min is 1 h 30 min; no unit that is zero. In
 * hours and less when ``inDays`` is false (a deadline per turn, asked for in hours: 24 h). */
function span(seconds, inDays = true) {
  const days = inDays ? Math.floor(seconds / 86400) : 0;
  const parts = [
    [days, (n) => t("lobby.spanDays", { days: n })],
    [Math.floor((seconds - days * 86400) / 3600), (hours) => t("lobby.spanHours", { hours })],
    [Math.floor((seconds % 3600) / 60), (minutes) => t("lobby.spanMinutes", { minutes })],
    [seconds % 60, (secs) => t("lobby.spanSeconds", { seconds: secs })],
  ].filter(([n]) => n > 0);
  return parts.length ? parts.map(([n, word]) => word(n)).join(" ") : t("lobby.spanSeconds", { seconds: 0 });
}

/** An open game's clock in words: its time bank, its deadline per turn, or none. */
function clockText(table) {
  const { clock } = table;
  if (!clock)
    return table.turn_deadline
      ? t("lobby.listDeadline", { time: span(table.turn_deadline, false) })
      : t("lobby.listNoClock");
  const bank = clock.increment_seconds
    ? t("lobby.listBankIncrement", { bank: span(clock.bank_seconds), increment: span(clock.increment_seconds) })
    : t("lobby.listBank", { bank: span(clock.bank_seconds) });
  return clock.cap_seconds && clock.cap_seconds !== clock.bank_seconds
    ? `${bank}, ${t("lobby.listCap", { cap: span(clock.cap_seconds) })}`
    : bank;
}

/** A span asked for in days (at most ``most``, as the API allows) and hours: two number fields,
 * each with its own accessible name. */
function daysAndHours(name, label, days, hours, most, { days: d = "", hours: h = "" } = {}) {
  return html`<div class="span" role="group" aria-label=${label}>
    <span>${label}</span>
    <label><input type="number" name=${`${name}_days`} min="0" max=${most} step="1" value=${d}
      aria-label=${days}> ${t("lobby.days")}</label>
    <label><input type="number" name=${`${name}_hours`} min="0" max="23" step="1" value=${h}
      aria-label=${hours}> ${t("lobby.hours")}</label></div>`;
}

/** A form's clock: none, a deadline per turn, or a time bank (the bank, the credit per turn, the
 * cap); with either, who plays a turn whose time runs out. */
function clockFields(form) {
  const kind = state.clocks[form];
  const choose = (e) => update({ clocks: { ...state.clocks, [form]: e.target.value } });
  const kinds = [
    ["none", t("lobby.clockNone")],
    ["deadline", t("lobby.clockDeadline")],
    ["bank", t("lobby.clockBank")],
  ];
  const deadline = () =>
    html`<label>${t("lobby.deadline")} <input type="number" name="deadline" min="1" max="720" step="1" value="24"
      ></label>`;
  const bank = () => {
    const threeDays = { days: "3", hours: "0" };
    const oneDay = { days: "1", hours: "0" };
    return html`${daysAndHours("bank", t("lobby.bank"), t("lobby.bankDays"), t("lobby.bankHours"), 60, threeDays)}
      ${daysAndHours("increment", t("lobby.increment"), t("lobby.incrementDays"), t("lobby.incrementHours"), 7, oneDay)}
      ${daysAndHours("cap", t("lobby.cap"), t("lobby.capDays"), t("lobby.capHours"), 60)}`;
  };
  const fields = kind === "deadline" ? deadline() : kind === "bank" ? bank() : nothing;
  const level =
    kind === "none"
      ? nothing
      : html`<label>${t("lobby.deadlineLevel")} <select name="deadline_level">
      <option value="pass">${t("lobby.deadlinePass")}</option>
      ${LEVELS.map((l) => html`<option value=${l}>${t("lobby.deadlineBot", { level: levelName(l) })}</option>`)}
      </select></label>`;
  return html`<select name="clock" aria-label=${t("lobby.clockKind")} @change=${choose}>
      ${kinds.map(([value, words]) => html`<option value=${value} ?selected=${value === kind}>${words}</option>`)}
      </select>
    ${fields} ${level}`;
}

/** What a form's clock adds to its request: turn_deadline or clock (in seconds), and deadline_level. */
function clockRequest(form, kind) {
  const seconds = (name) =>
    Number(form[`${name}_days`].value || 0) * 86400 + Number(form[`${name}_hours`].value || 0) * 3600;
  if (kind === "deadline")
    return { turn_deadline: Number(form.deadline.value) * 3600, deadline_level: form.deadline_level.value };
  if (kind !== "bank") return {};
  const capped = form.cap_days.value !== "" || form.cap_hours.value !== "";
  const clock = {
    bank_seconds: seconds("bank"),
    increment_seconds: seconds("increment"),
    cap_seconds: capped ? seconds("cap") : null,
  };
  return { clock, deadline_level: form.deadline_level.value };
}

const setSeat = (i, change) =>
  update({ seats: state.seats.map((seat, j) => (j === i ? { ...seat, ...change } : seat)) });

const seatRow = (seat, i) => html`<div><label>${t("lobby.seat")} <select name="kind" aria-label=${t("lobby.seatKind")}
      .value=${seat.kind} @change=${(e) => setSeat(i, { kind: e.target.value })}>
      <option value="human" ?selected=${seat.kind === "human"}>${t("lobby.seat.me")}</option>
      <option value="open" ?selected=${seat.kind === "open"}>${t("lobby.seat.open")}</option>
      <option value="bot" ?selected=${seat.kind === "bot"}>${t("lobby.seat.bot")}</option>
    </select></label>
    <label>${t("lobby.level")} <select name="level" aria-label=${t("lobby.botLevelOf")}
      @change=${(e) => setSeat(i, { level: e.target.value })}>${levelOptions(seat.level)}</select></label>
    <button type="button" aria-label=${t("lobby.removeSeat")} @click=${() => {
      if (state.seats.length > 2) update({ seats: state.seats.filter((_, j) => j !== i) });
    }}>✕</button></div>`;

/** The bot levels, each with its rating once the leaderboard is known: how strong each one is. */
const levelOptions = (chosen) =>
  LEVELS.map((level) => {
    const rated = state.board?.bots.find((b) => b.player === `bot:${level}`);
    const named = rated
      ? t("lobby.levelRated", { level: levelName(level), rating: decimal(rated.rating) })
      : levelName(level);
    return html`<option value=${level} ?selected=${level === chosen}>${named}</option>`;
  });

function createdPanel() {
  const { created } = state;
  if (!created) return nothing;
  const links = created.seats.map((seat) => {
    if (seat.token) {
      const link = `/play/${created.game}#token=${seat.token}`;
      return html`<li><a href=${link}>${t("lobby.playSeat", { seat: seat.seat })}</a></li>`;
    }
    if (!seat.invite) return nothing; // a bot's seat
    const url = `${location.origin}/play/${created.game}#seat=${seat.seat}&invite=${seat.invite}`;
    return html`<li>${t("lobby.inviteFor", { seat: seat.seat })} <input readonly size="30" value=${url}
        aria-label=${t("lobby.inviteLink", { seat: seat.seat })}>
        <button type="button" @click=${() => navigator.clipboard?.writeText(url)}>${t("lobby.copy")}</button></li>`;
  });
  return html`<p>${t("lobby.created")}</p><ul>${links}</ul>`;
}

function gamesPanel() {
  if (state.gamesProblem) return html`<li class="problem">${explain(state.gamesProblem)}</li>`;
  if (!state.games) return nothing;
  if (!state.games.length) return html`<li class="muted">${t("lobby.noneYet")}</li>`;
  return state.games.map((g) => {
    const said =
      g.status === "finished"
        ? t("lobby.finished")
        : g.my_turn
          ? html`<strong>${t("lobby.yourTurn")}</strong>`
          : t("lobby.seatToPlay", { seat: g.turn });
    // (an account's seat: the session reaches it)
    const link = g.token ? `/play/${g.game}#token=${g.token}` : `/play/${g.game}`;
    const named = g.names.length ? g.names.join(", ") : t("lobby.playerCount", { count: g.players });
    const options = edition(g);
    return html`<li><a href=${link}>${named}</a> — ${options}, ${said}</li>`;
  });
}

function accountPanel() {
  const note = state.accountNote ? html`<p role="status" id="account-note">${explain(state.accountNote)}</p>` : nothing;
  if (state.me === undefined) return nothing;
  if (state.me) {
    const keep = state.unkept
      ? html`<button type="button" id="keep-seats"
          @click=${() => update({ confirmKeep: true })}>${t("account.keepSeats", { count: state.unkept })}</button>`
      : nothing;
    const name = html`<a id="my-profile" href="/players/${state.me.account}"><strong>${state.me.display_name}</strong></a>`;
    return html`<p id="signed-in">${tParts("account.signedInAs", { name })}</p>${keep}${keepConfirmation()}
      <button type="button" @click=${() => passkeyAction(() => addPasskey())}>${t("account.addPasskey")}</button>
      <button type="button" id="device-code" @click=${showDeviceCode}>${t("account.otherDevice")}</button>
      <button type="button" id="sign-out" @click=${leave}>${t("account.signOut")}</button>
      <button type="button" id="sign-out-everywhere"
        @click=${leaveEverywhere}>${t("account.signOutEverywhere")}</button>${deviceCodePanel()}${note}`;
  }
  return html`<form id="email-sign-in" @submit=${askLink}>
      <label>${t("account.email")} <input type="email" name="email" required autocomplete="email"></label>
      <button type="submit">${t("account.sendLink")}</button></form>
    <p><label>${t("account.name")} <input name="name" id="passkey-name" maxlength="40"
        value=${t("account.defaultName")}></label>
      <button type="button" id="passkey-sign-up"
        @click=${() => passkeyAction(() => addPasskey($("passkey-name").value))}>${t("account.signUpPasskey")}</button>
      <button type="button" id="passkey-sign-in"
        @click=${() => passkeyAction(signInWithPasskey)}>${t("account.signInPasskey")}</button></p>
    <form id="code-sign-in" @submit=${useCode}>
      <label>${t("account.code")} <input name="code" .value=${offeredCode()} size="10"
        autocomplete="one-time-code"></label>
      <button type="submit">${t("account.useCode")}</button></form>${note}`;
}

const offeredCode = () => new URLSearchParams(location.hash.slice(1)).get("device-code") || "";

function deviceCodePanel() {
  const shown = state.deviceCode;
  if (!shown) return nothing;
  const code = html`<strong id="the-code">${shown.code}</strong>`;
  const link = html`<input readonly size="40" value=${shown.link} aria-label=${t("account.deviceLink")}>`;
  return html`<p>${tParts("account.deviceCode", { code, link })}</p>`;
}

async function showDeviceCode() {
  const made = await api("POST", "/me/device-code");
  update(made.ok ? { deviceCode: made.body, accountNote: null } : { accountNote: made.problem });
}

async function useCode(event) {
  event.preventDefault();
  const used = await api("POST", "/auth/device-code", { code: event.target.code.value });
  if (!used.ok) {
    update({ accountNote: used.problem });
    return;
  }
  history.replaceState(null, "", location.pathname); // the code is spent: keep it out of the address bar
  await whoAmI();
}

async function askLink(event) {
  event.preventDefault();
  const sent = await api("POST", "/auth/email-link", { email: event.target.email.value, language: currentLanguage() });
  // where the link went, worded here: by email, or (a service without SMTP) into the service's log
  const where =
    sent.ok && sent.body.delivery === "email" ? () => t("account.linkEmailed") : () => t("account.linkLogged");
  update({ accountNote: sent.ok ? where : sent.problem });
}

async function passkeyAction(action) {
  try {
    const done = await action();
    update({ accountNote: done.problem });
  } catch (error) {
    update({ accountNote: () => t("account.passkeyFailed", { error: error.message }) });
  }
  await whoAmI();
}

async function leave() {
  await signOut();
  update({ me: null, accountNote: null });
  showAlerts(false);
  showChallenges(false);
  listGames();
}

// Seats are kept only in the account the person sees and confirms: the name and email shown
// are the account's, and the request names it, so a session swapped under the page keeps nothing.
function keepConfirmation() {
  if (!state.confirmKeep) return nothing;
  const me = state.me;
  const account = html`<strong id="keep-account">${me.display_name}${me.email ? ` (${me.email})` : ""}</strong>`;
  return html`<div role="group" id="keep-confirm" aria-labelledby="keep-question"
      ><p id="keep-question">${tParts("account.keepConfirm", { account })}</p>
    <button type="button" class="primary" id="keep-yes" @click=${keepSeats}>${t("account.keepYes")}</button>
    <button type="button" id="keep-no"
      @click=${() => update({ confirmKeep: false })}>${t("account.keepNo")}</button></div>`;
}

async function keepSeats() {
  const kept = await api("POST", "/me/seats", { tokens: mySeats().map((s) => s.token), account: state.me.account });
  update({ confirmKeep: false, accountNote: kept.ok ? () => t("account.kept") : kept.problem });
  listGames();
}

async function leaveEverywhere() {
  await api("DELETE", "/auth/sessions");
  update({ me: null, accountNote: null, confirmKeep: false });
  showAlerts(false);
  showChallenges(false);
  listGames();
}

async function whoAmI() {
  const session = await api("GET", "/auth/session"); // signed out is an answer here, not an error
  update({ me: session.ok ? session.body.profile : null });
  showAlerts(Boolean(state.me));
  showChallenges(Boolean(state.me));
  listGames();
}

$("add-seat").onclick = () => {
  if (state.seats.length < 4) update({ seats: [...state.seats, { kind: "open", level: "greedy" }] });
};

bindForm($("create"), async (event) => {
  update({ problem: null });
  const form = event.target;
  const body = {
    seats: state.seats.map(({ kind, level }) => (kind === "bot" ? { kind, level } : { kind })),
    edition: form.edition.value,
    expansion: form.expansion.checked,
    ...clockRequest(form, state.clocks.create),
  };
  const response = await api("POST", "/games", body);
  if (!response.ok) {
    update({ problem: response.problem });
    return;
  }
  const { game, seats } = response.body;
  for (const seat of seats.filter((s) => s.token)) remember(game, seat.seat, seat.token);
  update({ created: { game, seats } });
  listGames();
});

async function listGames() {
  const mine = mySeats();
  const account = state.me ? await api("GET", "/me/games") : { ok: true, body: { games: [] } };
  let local = mine.length
    ? await api("GET", "/games", undefined, mine.map((s) => s.token).join(","))
    : { ok: true, body: { games: [] } };
  // none of the kept seat tokens is a seat (any more)
  if (local.status === 401) local = { ok: true, body: { games: [] } };
  if (!account.ok || !local.ok) {
    update({ gamesProblem: account.problem || local.problem });
    return;
  }
  const token = (g) =>
    (mine.find((s) => s.game === g.game && s.seat === g.my_seat) ?? mine.find((s) => s.game === g.game))?.token;
  const inAccount = new Set(account.body.games.map((g) => g.game));
  const games = [
    ...account.body.games,
    ...local.body.games.filter((g) => !inAccount.has(g.game)).map((g) => ({ ...g, token: token(g) })),
  ].sort((a, b) => Number(b.my_turn) - Number(a.my_turn));
  const unkept = state.me ? local.body.games.filter((g) => !inAccount.has(g.game)).length : 0;
  update({ games, gamesProblem: null, unkept });
}

update({});
onLanguageChange(() => update({}));
whoAmI().then(() => listOpen(true));
setInterval(listOpen, 3000);
