// A player's profile page (/players/{id}): name, rating and its history (a chart, with the same
// numbers in a table for whoever does not see it), recent games, counts, whom they follow (when
// public); signed in, buttons to follow, mute and block them and a private note; on one's own
// profile, the friends list (their current games, whose turn, a link to watch) and what one allows;
// the form that challenges them (challenges.js); their games searched by edition, players, result, place and end,
// and the finished ones downloaded as NDJSON (GET /players/{id}/games and its export).
import { challengeForm } from "/web/challenges.js";
import { html, nothing, render, svg } from "/web/html.js";
import { decimal, explain, onLanguageChange, t } from "/web/i18n.js";
import { noteEditor } from "/web/notes.js";
import { api } from "/web/transport.js";

const $ = (id) => document.getElementById(id);
const player = decodeURIComponent(location.pathname.split("/").pop());
const state = { profile: null, problem: null, me: null, friends: null, privacy: null, said: null };
const found = { games: null, next: null, problem: null }; // the games search's answer so far
const named = (p) => (p.bot ? t("names.botAccount", { name: p.name }) : p.name);
const playerLink = (p) => html`<a href="/players/${encodeURIComponent(p.player)}">${named(p)}</a>`;

async function load() {
  const [session, profile] = await Promise.all([
    api("GET", "/auth/session"),
    api("GET", `/players/${encodeURIComponent(player)}`),
  ]);
  state.me = session.ok && session.body.signed_in ? session.body.profile.account : null;
  state.profile = profile.ok ? profile.body : null;
  state.problem = profile.ok ? null : profile.problem;
  if (state.me && state.me === player) {
    const [friends, privacy] = await Promise.all([api("GET", "/me/follows?limit=100"), api("GET", "/me/privacy")]);
    state.friends = friends.ok ? friends.body.friends : [];
    state.privacy = privacy.ok ? privacy.body : null;
  }
  draw();
  if (state.me && state.me !== player && state.profile) {
    $("note-section").hidden = false;
    onLanguageChange(await noteEditor(`/me/notes/players/${encodeURIComponent(player)}`, $("note")));
  }
}

/** A relation's button: PUT to start it, DELETE to end it; the profile is read again after. */
function relationButton(id, kind, on, start, end) {
  const change = async () => {
    const answer = await api(on ? "DELETE" : "PUT", `/me/${kind}/${encodeURIComponent(player)}`);
    state.said = answer.ok ? null : answer.problem;
    const again = await api("GET", `/players/${encodeURIComponent(player)}`);
    if (again.ok) state.profile = again.body;
    draw();
  };
  return html`<button type="button" id=${id} aria-pressed=${on ? "true" : "false"} @click=${change}>
    ${on ? end : start}</button>`;
}

function actions(p) {
  if (!state.me || !p.yours) return nothing;
  const yours = p.yours;
  return html`${relationButton("follow", "follows", yours.following, t("player.follow"), t("player.unfollow"))}
    ${relationButton("mute", "mutes", yours.muting, t("player.mute"), t("player.unmute"))}
    ${relationButton("block", "blocks", yours.blocking, t("player.block"), t("player.unblock"))}
    <a id="challenge" class="button" href="#challenge-section">${t("player.challenge")}</a>`;
}

/** The rating after each rated game, oldest first, as a line; the table below says the same. */
function chart(history) {
  const points = [...history].reverse().map((h) => h.after.rating);
  if (points.length === 0) return html`<p class="muted">${t("player.noRatedGames")}</p>`;
  const width = 600,
    height = 180,
    pad = 24;
  const low = Math.min(0, ...points),
    high = Math.max(1, ...points);
  const x = (i) => pad + (points.length === 1 ? (width - 2 * pad) / 2 : (i * (width - 2 * pad)) / (points.length - 1));
  const y = (r) => height - pad - ((r - low) * (height - 2 * pad)) / (high - low);
  const line = points.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" ");
  const summary = t("player.chartSummary", {
    count: points.length,
    first: decimal(points[0]),
    last: decimal(points.at(-1)),
    high: decimal(Math.max(...points)),
  });
  const rows = history.map(
    (h) => html`<tr><td><a href="/play/${h.game}">${h.game.slice(0, 8)}</a></td><td>${h.place}</td>
      <td>${decimal(h.before.rating)}</td><td>${decimal(h.after.rating)}</td></tr>`,
  );
  return html`<figure class="chart">
      <svg viewBox="0 0 ${width} ${height}" role="img" aria-label=${summary}>
        ${svg`<line x1=${pad} y1=${y(0)} x2=${width - pad} y2=${y(0)} class="axis"></line>
        <polyline points=${line} class="rating-line"></polyline>
        ${points.map((r, i) => svg`<circle cx=${x(i)} cy=${y(r)} r="3"></circle>`)}`}
      </svg>
      <figcaption>${summary}</figcaption></figure>
    <div class="scroll"><table id="history"><caption>${t("player.historyTable")}</caption><tbody>
      <tr><th scope="col">${t("ratings.game")}</th><th scope="col">${t("ratings.place")}</th>
      <th scope="col">${t("ratings.before")}</th><th scope="col">${t("ratings.after")}</th></tr>${rows}</tbody></table></div>`;
}

function gameLine(g, who) {
  const turn =
    g.status === "finished"
      ? t("player.finished")
      : g.their_turn
        ? t("player.theirTurn", { name: who })
        : t("player.turnOf", { name: g.turn_name ?? "?" });
  return html`<li><span>${g.names.join(", ")}</span> · <span>${g.edition}</span> · <span class="turn">${turn}</span>
    <a class="watch" href=${g.watch}>${t("player.watch")}</a></li>`;
}

function counts(c) {
  const editions = Object.entries(c.by_edition).map(([e, n]) => html`<tr><th scope="row">${e}</th><td>${n}</td></tr>`);
  const players = Object.entries(c.by_players).map(
    ([n, k]) => html`<tr><th scope="row">${t("player.playersCount", { count: Number(n) })}</th><td>${k}</td></tr>`,
  );
  return html`<caption>${t("player.counts", { count: c.games, finished: c.finished })}</caption>
    <tbody>${editions}${players}</tbody>`;
}

function myFriends() {
  if (!state.friends) return nothing;
  if (!state.friends.length) return html`<li class="muted">${t("player.noFriends")}</li>`;
  return state.friends.map(
    (f) => html`<li class="friend">${playerLink(f)} (${decimal(f.rating)})
      <ul>${f.games.length ? f.games.map((g) => gameLine(g, f.name)) : html`<li class="muted">${t("player.noCurrentGames")}</li>`}</ul></li>`,
  );
}

async function savePrivacy(event) {
  event.preventDefault();
  const form = event.target;
  const body = { challenges: form.challenges.value, friends_public: form.friends_public.checked };
  const answer = await api("PATCH", "/me/privacy", body);
  state.privacy = answer.ok ? answer.body : state.privacy;
  state.said = answer.ok ? () => t("player.privacySaved") : answer.problem;
  draw();
}

function privacyForm() {
  if (!state.privacy) return nothing;
  const choice = (value, label) =>
    html`<option value=${value} ?selected=${state.privacy.challenges === value}>${label}</option>`;
  return html`<label>${t("player.whoChallenges")} <select name="challenges">
      ${choice("everyone", t("player.everyone"))}${choice("followed", t("player.followed"))}${choice("nobody", t("player.nobody"))}</select></label>
    <label><input type="checkbox" name="friends_public" ?checked=${state.privacy.friends_public}> ${t("player.friendsPublic")}</label>
    <button type="submit">${t("player.save")}</button>`;
}

/** The search's filters as a query (empty ones left out). */
function filters() {
  const form = $("games-filter");
  const query = new URLSearchParams();
  for (const name of ["edition", "players", "result", "place", "ended"]) {
    if (form[name]?.value) query.set(name, form[name].value);
  }
  return query;
}

/** The player's games matching the filters: the first page, or (``more``) the next one. */
async function searchGames(more = false) {
  const query = filters();
  query.set("limit", "20");
  if (more && found.next) query.set("after", found.next);
  const answer = await api("GET", `/players/${encodeURIComponent(player)}/games?${query}`);
  found.problem = answer.ok ? null : answer.problem;
  found.games = answer.ok ? [...(more ? found.games : []), ...answer.body.games] : [];
  found.next = answer.ok && answer.body.games.length === 20 ? answer.body.next : null;
  drawGames();
}

/** How a game ended (GET /players/{id}/games's `ended`), in the page's language. */
const ENDINGS = ["played", "clock", "admin"];
const endedWords = (how) =>
  ({ played: t("player.endedPlayed"), clock: t("player.endedClock"), admin: t("player.endedAdmin") })[how];

function filterForm() {
  const choose = (name, label, options) =>
    html`<label>${label} <select name=${name} @change=${() => searchGames()}>
      <option value="">${t("player.any")}</option>
      ${options.map(([value, words]) => html`<option value=${value}>${words}</option>`)}</select></label>`;
  return html`${choose("edition", t("lobby.edition"), [
    ["cmon", "CMON 2018"],
    ["classic", "Kosmos 2006"],
  ])}
    ${choose(
      "players",
      t("player.players"),
      [2, 3, 4].map((n) => [n, t("player.playersCount", { count: n })]),
    )}
    ${choose("result", t("player.result"), [
      ["won", t("player.won")],
      ["lost", t("player.lost")],
    ])}
    ${choose(
      "place",
      t("player.place"),
      [1, 2, 3, 4].map((n) => [n, t("player.placeN", { place: n })]),
    )}
    ${choose(
      "ended",
      t("player.ended"),
      ENDINGS.map((how) => [how, endedWords(how)]),
    )}`;
}

function drawGames() {
  const line = (g) => html`<li><a href="/play/${g.game}">${g.names.join(", ")}</a> · ${g.edition} ·
    ${t("player.playersCount", { count: g.players })} ·
    ${g.status === "finished" ? t("player.finished") : t("player.inPlay")}${
      g.places && Number.isInteger(g.my_seat) ? html` · ${t("player.placeN", { place: g.places[g.my_seat] })}` : nothing
    }${g.ended ? html` · ${t("player.ended")} ${endedWords(g.ended)}` : nothing}</li>`;
  render(
    found.problem
      ? html`<li>${explain(found.problem)}</li>`
      : found.games === null
        ? nothing
        : found.games.length
          ? found.games.map(line)
          : html`<li class="muted">${t("player.noGamesFound")}</li>`,
    $("games"),
  );
  $("games-more").hidden = !found.next;
  const query = filters();
  $("games-export").href = `/players/${encodeURIComponent(player)}/games/export?${query}`;
}

function draw() {
  const p = state.profile;
  if (!p) {
    render(html`${explain(state.problem)}`, $("name"));
    return;
  }
  document.title = `Blue Moon City: ${p.name}`;
  render(html`${named(p)}`, $("name"));
  render(
    html`<p>${t("player.rating", { rating: decimal(p.rating), spread: decimal(3 * p.sigma) })} ·
      ${t("player.followers", { count: p.followers })}</p>`,
    $("summary"),
  );
  render(actions(p), $("actions"));
  render(html`${explain(state.said)}`, $("said"));
  render(chart(p.history), $("chart"));
  render(
    p.recent_games.length
      ? p.recent_games.map((g) => gameLine(g, p.name))
      : html`<li class="muted">${t("player.noGames")}</li>`,
    $("recent"),
  );
  render(counts(p.counts), $("counts"));
  render(
    p.friends === null
      ? html`<li class="muted">${t("player.friendsHidden")}</li>`
      : p.friends.length
        ? p.friends.map((f) => html`<li>${playerLink(f)}</li>`)
        : html`<li class="muted">${t("player.noFriends")}</li>`,
    $("friends"),
  );
  $("challenge-section").hidden = !state.me || state.me === player;
  render(state.me && state.me !== player ? challengeForm(player, p.name, draw) : nothing, $("challenge-box"));
  render(filterForm(), $("games-filter"));
  drawGames();
  $("mine-section").hidden = !state.friends;
  render(myFriends(), $("my-friends"));
  render(privacyForm(), $("privacy"));
}

$("privacy").addEventListener("submit", savePrivacy);
$("games-filter").addEventListener("submit", (event) => event.preventDefault());
$("games-more").addEventListener("click", () => searchGames(true));
onLanguageChange(draw);
load().then(() => searchGames());
