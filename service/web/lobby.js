// The lobby: create a game, hand out its seats, and list my games (my turn first).
// Seat tokens stay in this browser (localStorage); the server learns nothing new.
// As on the play page, one state object, changed only by update(), which redraws every panel.
import { api, mySeats, remember } from "/web/api.js";
import { html, nothing, render } from "/web/html.js";

const $ = (id) => document.getElementById(id);

let state = Object.freeze({
  seats: [{ kind: "human", level: "greedy" }, { kind: "bot", level: "greedy" }], // the new game's seats, as chosen
  created: null, // {game, seats}: the game just created, with its tokens and invites
  games: null, // my games (GET /games), my turn first, each with my token; null until listed
  gamesProblem: "", // why my games could not be listed
  problem: "", // why the game could not be created
});

function update(changes) {
  state = Object.freeze({ ...state, ...changes });
  render(state.seats.map(seatRow), $("seats")); // after the fieldset's legend
  render(state.problem, $("problem"));
  render(createdPanel(), $("created"));
  render(gamesPanel(), $("games"));
}

const setSeat = (i, change) => update({ seats: state.seats.map((seat, j) => (j === i ? { ...seat, ...change } : seat)) });

const seatRow = (seat, i) => html`<div><label>Seat <select name="kind" aria-label="seat kind" .value=${seat.kind} @change=${(e) => setSeat(i, { kind: e.target.value })}>
      <option value="human">me</option><option value="open">invite someone</option><option value="bot">a bot</option>
    </select></label>
    <label>level <select name="level" aria-label="bot level" .value=${seat.level} @change=${(e) => setSeat(i, { level: e.target.value })}><option>random</option><option>greedy</option><option>mcts</option></select></label>
    <button type="button" aria-label="remove this seat" @click=${() => { if (state.seats.length > 2) update({ seats: state.seats.filter((_, j) => j !== i) }); }}>✕</button></div>`;

function createdPanel() {
  const { created } = state;
  if (!created) return nothing;
  const links = created.seats.map((seat) => {
    if (seat.token) return html`<li><a href="/play/${created.game}#token=${seat.token}">Play seat ${seat.seat}</a></li>`;
    if (!seat.invite) return nothing; // a bot's seat
    const url = `${location.origin}/play/${created.game}#seat=${seat.seat}&invite=${seat.invite}`;
    return html`<li>Invite for seat ${seat.seat}: <input readonly size="30" value=${url} aria-label="invite link for seat ${seat.seat}">
        <button type="button" @click=${() => navigator.clipboard?.writeText(url)}>Copy</button></li>`;
  });
  return html`<p>Game created.</p><ul>${links}</ul>`;
}

function gamesPanel() {
  if (state.gamesProblem) return html`<li class="problem">${state.gamesProblem}</li>`;
  if (!state.games) return nothing;
  if (!state.games.length) return html`<li class="muted">None yet.</li>`;
  return state.games.map((g) => {
    const said = g.status === "finished" ? "finished" : g.my_turn ? html`<strong>your turn</strong>` : `seat ${g.turn} to play`;
    return html`<li><a href="/play/${g.game}#token=${g.token}">${g.game.slice(0, 8)}</a> — ${g.players} players, ${said}</li>`;
  });
}

$("add-seat").onclick = () => { if (state.seats.length < 4) update({ seats: [...state.seats, { kind: "open", level: "greedy" }] }); };

$("create").onsubmit = async (event) => {
  event.preventDefault();
  update({ problem: "" });
  const form = event.target;
  const body = {
    seats: state.seats.map(({ kind, level }) => (kind === "bot" ? { kind, level } : { kind })),
    edition: form.edition.value,
    expansion: form.expansion.checked,
  };
  const hours = Number(form.deadline.value);
  if (hours > 0) body.turn_deadline = hours * 3600;
  const response = await api("POST", "/games", body);
  if (!response.ok) { update({ problem: response.problem }); return; }
  const { game, seats } = response.body;
  for (const seat of seats.filter((s) => s.token)) remember(game, seat.seat, seat.token);
  update({ created: { game, seats } });
  listGames();
};

async function listGames() {
  const mine = mySeats();
  if (!mine.length) { update({ games: [], gamesProblem: "" }); return; }
  const response = await api("GET", "/games", undefined, mine.map((s) => s.token).join(","));
  if (!response.ok) { update({ gamesProblem: response.problem }); return; }
  const token = (g) => (mine.find((s) => s.game === g.game && s.seat === g.my_seat) ?? mine.find((s) => s.game === g.game))?.token;
  const games = response.body.games.sort((a, b) => Number(b.my_turn) - Number(a.my_turn)).map((g) => ({ ...g, token: token(g) }));
  update({ games, gamesProblem: "" });
}

update({});
listGames();
