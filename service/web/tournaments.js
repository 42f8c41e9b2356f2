// The tournaments page: the list, one tournament (#tournament=<id>: its entrants, standings and
// rounds with their games; join, leave or withdraw for the signed-in person) and the form that
// makes one. Only the public API: /tournaments and /tournaments/{id}'s join, leave and withdraw.
import { bindForm } from "/web/forms.js";
import { html, nothing, render } from "/web/html.js";
import { decimal, explain, onLanguageChange, t } from "/web/i18n.js";
import { api } from "/web/transport.js";

const $ = (id) => document.getElementById(id);
let me = null; // the signed-in person's profile, or null
const STATUS = {
  open: () => t("tournaments.status.open"),
  running: () => t("tournaments.status.running"),
  finished: () => t("tournaments.status.finished"),
  cancelled: () => t("tournaments.status.cancelled"),
};
const when = (iso) => new Date(iso).toLocaleString(document.documentElement.lang);
const chosen = () => new URLSearchParams(location.hash.slice(1)).get("tournament");

function problem(said) {
  $("problem").textContent = said ? explain(said) : "";
}

function standings(lines, names) {
  if (!lines.length) return nothing;
  const heads = [
    t("tournaments.place"),
    t("tournaments.player"),
    t("tournaments.points"),
    t("tournaments.buchholz"),
    t("tournaments.games"),
  ];
  const head = heads.map((words) => html`<th scope="col">${words}</th>`);
  return html`<table><caption>${t("tournaments.standings")}</caption><thead><tr>${head}</tr></thead><tbody>
    ${lines.map(
      (
        l,
      ) => html`<tr><td>${l.place}</td><td>${names[l.player] ?? l.player}${l.withdrawn ? ` (${t("tournaments.withdrawn")})` : ""}</td>
      <td>${decimal(l.points)}</td><td>${decimal(l.buchholz)}</td><td>${l.games}</td></tr>`,
    )}</tbody></table>`;
}

function rounds(found, names) {
  return found.rounds.map(
    (r) => html`<h3>${t("tournaments.round", { number: r.number })}</h3><ul>
      ${r.tables.map(
        (table) => html`<li><a href="/play/${table.game}">${table.players.map((p) => names[p] ?? p).join(", ")}</a>
        ${table.places ? ` — ${table.places.join(", ")}` : ""}</li>`,
      )}
      ${r.byes.map((p) => html`<li>${t("tournaments.bye", { name: names[p] ?? p })}</li>`)}</ul>`,
  );
}

function actions(found) {
  if (!me) return nothing;
  const mine = found.entrants.find((e) => e.player === me.account);
  const act = (what, words) => html`<button type="button" @click=${() => change(found.id, what)}>${words}</button>`;
  if (found.status === "open") return mine ? act("leave", t("tournaments.leave")) : act("join", t("tournaments.join"));
  if (found.status === "running" && mine && !mine.withdrawn) return act("withdraw", t("tournaments.withdraw"));
  return nothing;
}

async function change(id, what) {
  const answer = await api("POST", `/tournaments/${id}/${what}`);
  problem(answer.ok ? null : answer.problem);
  show();
}

async function showOne(id) {
  const found = await api("GET", `/tournaments/${encodeURIComponent(id)}`);
  $("detail-section").hidden = !found.ok;
  if (!found.ok) return problem(found.problem);
  const t_ = found.body;
  const names = Object.fromEntries(t_.entrants.map((e) => [e.player, e.name]));
  $("detail-title").textContent = t_.name;
  render(
    html`<p>${STATUS[t_.status]()} · ${t("tournaments.startsAt", { when: when(t_.starts) })} ·
      ${t("tournaments.players", { count: t_.players })}</p>${actions(t_)}
      ${standings(t_.standings, names)}${rounds(t_, names)}`,
    $("detail"),
  );
}

async function show() {
  const listed = await api("GET", "/tournaments?limit=100");
  if (listed.ok) {
    render(
      listed.body.tournaments.length
        ? listed.body.tournaments.map(
            (x) =>
              html`<li><a href="#tournament=${x.id}">${x.name}</a> — ${STATUS[x.status]()}, ${when(x.starts)}</li>`,
          )
        : html`<li class="muted">${t("tournaments.none")}</li>`,
      $("list"),
    );
  }
  const id = chosen();
  if (id) await showOne(id);
  else $("detail-section").hidden = true;
}

bindForm($("make"), async (event) => {
  const form = event.target.elements;
  const body = {
    name: form.name.value,
    kind: form.kind.value,
    table_size: Number(form.table_size.value),
    starts: new Date(form.starts.value).toISOString(),
    min_players: Number(form.min_players.value),
    max_players: Number(form.max_players.value),
    rated: form.rated.checked,
    turn_deadline: 86400,
    ...(form.kind.value === "swiss" ? { rounds: Number(form.rounds.value) } : {}),
  };
  const made = await api("POST", "/tournaments", body);
  problem(made.ok ? null : made.problem);
  if (made.ok) location.hash = `tournament=${made.body.id}`;
});

async function whoAmI() {
  const session = await api("GET", "/auth/session"); // signed out is an answer here, not an error
  me = session.ok ? session.body.profile : null;
  $("make-section").hidden = !me;
}

window.addEventListener("hashchange", show);
onLanguageChange(show);
await whoAmI();
show();
