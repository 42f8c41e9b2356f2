// The lobby: create a game, hand out its seats, and list my games (my turn first).
// Seat tokens stay in this browser (localStorage); the server learns nothing new.
import { api, esc, mySeats, remember } from "/web/api.js";

const seats = document.getElementById("seats");
const problem = document.getElementById("problem");

function seatRow(kind = "human", level = "greedy") {
  const row = document.createElement("div");
  row.innerHTML = `<label>Seat <select name="kind" aria-label="seat kind">
      <option value="human">me</option><option value="open">invite someone</option><option value="bot">a bot</option>
    </select></label>
    <label>level <select name="level" aria-label="bot level"><option>random</option><option>greedy</option><option>mcts</option></select></label>
    <button type="button" aria-label="remove this seat">✕</button>`;
  row.querySelector("[name=kind]").value = kind;
  row.querySelector("[name=level]").value = level;
  row.querySelector("button").onclick = () => { if (seats.querySelectorAll("div").length > 2) row.remove(); };
  seats.append(row);
}

seatRow("human");
seatRow("bot");
document.getElementById("add-seat").onclick = () => { if (seats.querySelectorAll("div").length < 4) seatRow("open"); };

document.getElementById("create").onsubmit = async (event) => {
  event.preventDefault();
  problem.textContent = "";
  const form = event.target;
  const body = {
    seats: [...seats.querySelectorAll("div")].map((row) => {
      const kind = row.querySelector("[name=kind]").value;
      return kind === "bot" ? { kind, level: row.querySelector("[name=level]").value } : { kind };
    }),
    edition: form.edition.value,
    expansion: form.expansion.checked,
  };
  const hours = Number(form.deadline.value);
  if (hours > 0) body.turn_deadline = hours * 3600;
  const response = await api("POST", "/games", body);
  if (!response.ok) { problem.textContent = response.problem; return; }
  const game = response.body.game;
  const links = [];
  for (const seat of response.body.seats) {
    if (seat.token) {
      remember(game, seat.seat, seat.token);
      links.push(`<li><a href="/play/${game}#token=${seat.token}">Play seat ${seat.seat}</a></li>`);
    } else if (seat.invite) {
      const url = `${location.origin}/play/${game}#seat=${seat.seat}&invite=${seat.invite}`;
      links.push(`<li>Invite for seat ${seat.seat}: <input readonly size="30" value="${url}" aria-label="invite link for seat ${seat.seat}">
        <button type="button" data-copy="${url}">Copy</button></li>`);
    }
  }
  const created = document.getElementById("created");
  created.innerHTML = `<p>Game created.</p><ul>${links.join("")}</ul>`;
  created.querySelectorAll("[data-copy]").forEach((b) => { b.onclick = () => navigator.clipboard?.writeText(b.dataset.copy); });
  listGames();
};

async function listGames() {
  const mine = mySeats();
  const list = document.getElementById("games");
  if (!mine.length) { list.innerHTML = "<li class=muted>None yet.</li>"; return; }
  const response = await api("GET", "/games", undefined, mine.map((s) => s.token).join(","));
  if (!response.ok) { list.innerHTML = `<li class=problem>${esc(response.problem)}</li>`; return; }
  const games = response.body.games.sort((a, b) => Number(b.my_turn) - Number(a.my_turn));
  list.innerHTML = games.map((g) => {
    const seat = mine.find((s) => s.game === g.game && s.seat === g.my_seat) ?? mine.find((s) => s.game === g.game);
    const state = g.status === "finished" ? "finished" : g.my_turn ? "<strong>your turn</strong>" : `seat ${g.turn} to play`;
    return `<li><a href="/play/${g.game}#token=${seat.token}">${g.game.slice(0, 8)}</a> — ${g.players} players, ${state}</li>`;
  }).join("");
}

listGames();
