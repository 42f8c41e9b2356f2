// The ratings page: the leaderboard, each bot level's rating, and one player's profile
// (#player=<id>: rating, uncertainty and the history of rated games), all from the public API.
import { html, nothing, render } from "/web/html.js";
import { decimal, explain, onLanguageChange, t, tParts } from "/web/i18n.js";
import { api } from "/web/transport.js";

const $ = (id) => document.getElementById(id);
const shown = (r) => `${decimal(r.rating)} ± ${decimal(3 * r.sigma)}`;
/** A bot account's name says it is a bot; a bot level's name says so already ("greedy bot"). */
const named = (p) => (p.bot && !p.player.startsWith("bot:") ? t("names.botAccount", { name: p.name }) : p.name);
const link = (p) => html`<a href="#player=${p.player}">${named(p)}</a>`;
const heads = (titles) => html`<tr>${titles.map((title) => html`<th>${title}</th>`)}</tr>`;

function profile(p) {
  const rows = p.history.map(
    (h) => html`<tr><td><a href="/play/${h.game}">${h.game.slice(0, 8)}</a></td>
    <td>${h.place}</td><td>${decimal(h.before.rating)}</td><td>${decimal(h.after.rating)}</td></tr>`,
  );
  const said = {
    name: html`<strong>${named(p)}</strong>`,
    rating: shown(p),
    count: p.games,
    mu: decimal(p.mu, 2),
    sigma: decimal(p.sigma, 2),
  };
  const heading = [t("ratings.game"), t("ratings.place"), t("ratings.before"), t("ratings.after")];
  return html`<p>${tParts("ratings.profile", said)}</p>
    ${p.history.length ? html`<table id="history"><tbody>${heads(heading)}${rows}</tbody></table>` : nothing}`;
}

async function show() {
  const board = await api("GET", "/leaderboard?limit=100");
  if (board.ok) {
    render(
      board.body.players.length
        ? board.body.players.map((p) => html`<li>${link(p)}: ${shown(p)}</li>`)
        : html`<li class="muted">${t("ratings.nobody")}</li>`,
      $("players"),
    );
    render(
      (board.body.bot_accounts ?? []).map((p) => html`<li>${link(p)}: ${shown(p)}</li>`),
      $("bot-accounts"),
    );
    $("bot-accounts-section").hidden = !board.body.bot_accounts?.length;
    render(
      html`<tbody>${heads([t("ratings.level"), t("ratings.rating"), t("ratings.ratedGames")])}
      ${board.body.bots.map((b) => html`<tr><td>${link(b)}</td><td>${shown(b)}</td><td>${b.games}</td></tr>`)}</tbody>`,
      $("bots"),
    );
  }
  const player = new URLSearchParams(location.hash.slice(1)).get("player");
  $("profile-section").hidden = !player;
  if (!player) return;
  const found = await api("GET", `/players/${encodeURIComponent(player)}/rating`);
  render(found.ok ? profile(found.body) : html`<p class="problem">${explain(found.problem)}</p>`, $("profile"));
}

window.addEventListener("hashchange", show);
onLanguageChange(show);
show();
