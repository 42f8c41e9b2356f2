// The ratings page: the leaderboard, each bot level's rating, and one player's profile
// (#player=<id>: rating, uncertainty and the history of rated games), all from the public API.
import { api } from "/web/api.js";
import { html, nothing, render } from "/web/html.js";

const $ = (id) => document.getElementById(id);
const shown = (r) => `${r.rating.toFixed(1)} ± ${(3 * r.sigma).toFixed(1)}`;
const link = (p) => html`<a href="#player=${p.player}">${p.name}</a>`;

function profile(p) {
  const rows = p.history.map((h) => html`<tr><td><a href="/play/${h.game}">${h.game.slice(0, 8)}</a></td>
    <td>${h.place}</td><td>${h.before.rating.toFixed(1)}</td><td>${h.after.rating.toFixed(1)}</td></tr>`);
  return html`<p><strong>${p.name}</strong>: ${shown(p)} after ${p.games} rated game${p.games === 1 ? "" : "s"}
      (mu ${p.mu.toFixed(2)}, sigma ${p.sigma.toFixed(2)})</p>
    ${p.history.length ? html`<table id="history"><tbody><tr><th>Game</th><th>Place</th><th>Before</th><th>After</th></tr>${rows}</tbody></table>` : nothing}`;
}

async function show() {
  const board = await api("GET", "/leaderboard?limit=100");
  if (board.ok) {
    render(board.body.players.length ? board.body.players.map((p) => html`<li>${link(p)}: ${shown(p)}</li>`) : html`<li class="muted">Nobody is rated yet.</li>`, $("players"));
    render(html`<tbody><tr><th>Level</th><th>Rating</th><th>Rated games</th></tr>
      ${board.body.bots.map((b) => html`<tr><td>${link(b)}</td><td>${shown(b)}</td><td>${b.games}</td></tr>`)}</tbody>`, $("bots"));
  }
  const player = new URLSearchParams(location.hash.slice(1)).get("player");
  $("profile-section").hidden = !player;
  if (!player) return;
  const found = await api("GET", `/players/${encodeURIComponent(player)}/rating`);
  render(found.ok ? profile(found.body) : html`<p class="problem">${found.problem}</p>`, $("profile"));
}

window.addEventListener("hashchange", show);
show();
