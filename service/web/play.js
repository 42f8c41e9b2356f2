// A seat's page (/play/{game}#token=…) or a spectator's (/play/{game}). The token stays in the
// fragment and in localStorage, so it never reaches a server log. Only the public API is used:
// the view, /legal (the page offers nothing else), commands with If-Match and Idempotency-Key,
// and the event stream, resumed with Last-Event-ID.
import { api, mySeats, remember } from "/web/api.js";

const game = location.pathname.split("/").pop();
const problem = document.getElementById("problem");
const POWERS = {
  black: "Black: no power.",
  red: "Vulca (red): 1 flies a dragon, 2 moves one a tile.",
  blue: "Aqua (blue): 1 flies a dragon, 2 moves one a tile.",
  green: "Khind (green): counts 1 in any contribution (its value on green).",
  brown: "Mimix (brown): two 1s or 2s pay a wild 3.",
  grey: "Flit (grey): 1 flies your figure anywhere, 2 gives two more steps.",
  white: "Hoax (white): recolours cards for one contribution.",
  yellow: "Pillar (yellow): an extra offering after one at the Courtyard.",
};
let token = null;
let seat = null;
let version = 0;
let lastEvent = "";

async function start() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  token = fragment.get("token");
  if (!token && fragment.get("invite")) {
    const seatNo = Number(fragment.get("seat"));
    const joined = await api("POST", `/games/${game}/seats/${seatNo}/join`, { invite: fragment.get("invite") });
    if (!joined.ok) { problem.textContent = joined.problem; }
    else { token = joined.body.token; remember(game, seatNo, token); history.replaceState(null, "", `#token=${token}`); }
  }
  if (!token) token = mySeats().find((s) => s.game === game)?.token ?? null;
  await load();
  follow();
}

let replaying = false;
const slider = document.getElementById("version");

async function showVersion(v) {
  // the game as this seat saw it then (GET /games/{game}/versions/{v}); arrow keys step the slider
  const then = await api("GET", `/games/${game}/versions/${v}`, undefined, token);
  if (!then.ok) { problem.textContent = then.problem; return; }
  replaying = Number(v) !== version;
  drawBoard(then.body);
  drawPlayers(then.body);
  document.getElementById("shown").textContent = replaying ? `version ${v} of ${version}` : "now";
}

slider.oninput = () => showVersion(slider.value);
document.getElementById("live").onclick = () => { replaying = false; load(); };

async function showAudit() {
  const audit = await api("GET", `/games/${game}/audit`);
  if (!audit.ok) return;
  document.getElementById("audit").innerHTML = [
    `<li><strong>${audit.body.verified ? "Verified" : "NOT verified"}</strong>: ${audit.body.setup}</li>`,
    ...audit.body.checks.map((c) => `<li>${c.ok ? "✔" : "✘"} ${c.name}: ${c.detail}</li>`),
  ].join("");
}

async function load() {
  const viewed = await api("GET", `/games/${game}`, undefined, token);
  if (!viewed.ok) { problem.textContent = viewed.problem; return; }
  const view = viewed.body;
  version = view.version;
  seat = view.viewer;
  const follows = Number(slider.value) >= Number(slider.max) || slider.max === "";
  slider.max = String(version);
  if (follows) slider.value = String(version);
  if (view.result) showAudit();
  if (replaying) return;
  if (seat !== null) remember(game, seat, token);
  drawBoard(view);
  drawPlayers(view);
  const mine = view.turn && view.turn.seat === seat;
  document.title = `${mine ? "▶ Your turn — " : ""}Blue Moon City`;
  const status = view.result
    ? `Finished (${view.result.reason}); winners: ${view.result.winners.map((w) => `seat ${w}`).join(", ")}`
    : `Turn ${view.turn.number}: seat ${view.turn.seat}, ${view.turn.phase}${view.turn.deadline ? `, until ${new Date(view.turn.deadline).toLocaleString()}` : ""}`;
  document.getElementById("status").textContent = `${seat === null ? "Spectating. " : `You are seat ${seat}. `}${status}`;
  const me = seat === null ? null : view.players[seat];
  drawHand(me);
  const actions = document.getElementById("actions");
  actions.innerHTML = "";
  if (mine) {
    const legal = await api("GET", `/games/${game}/legal`, undefined, token);
    if (legal.ok) drawActions(legal.body);
    if (window.Notification?.permission === "granted" && document.hidden) new Notification("Blue Moon City: your turn");
  } else if (seat !== null && !view.result) {
    actions.innerHTML = `<p class="muted">Waiting for seat ${view.turn.seat}.</p>`;
    if (window.Notification && Notification.permission === "default") {
      const ask = document.createElement("button");
      ask.textContent = "Tell me when it is my turn";
      ask.onclick = () => Notification.requestPermission();
      actions.append(ask);
    }
  }
}

function drawBoard(view) {
  const size = 120;
  const tiles = view.city.map((t) => {
    const x = t.col * size;
    const y = t.row * size;
    const spaces = t.spaces.map((s, i) => `<g transform="translate(${x + 14 + i * 28},${y + 70})">
        <circle r="12" class="c-${s.colour}" fill="${s.colour === "any" ? "#ddd" : s.colour === "grey" ? "#9aa0a6" : s.colour}" stroke="#333"/>
        <text text-anchor="middle" dy="4" font-size="11" fill="${s.marker === null ? "#000" : "#fff"}" stroke="${s.marker === null ? "none" : "#000"}">${s.marker === null ? s.value : `P${s.marker}`}</text>
        <title>${s.colour} ${s.value}${s.marker === null ? ", open" : `, marker of seat ${s.marker}`}</title></g>`).join("");
    const figures = view.players.filter((p) => p.position === t.tile).map((p) => `P${p.seat}`).join(" ");
    const dragons = Object.entries(view.dragons).filter(([, at]) => at === t.tile).map(([d]) => `${d} dragon`).join(", ");
    return `<g data-tile="${t.tile}"><rect x="${x + 2}" y="${y + 2}" width="${size - 4}" height="${size - 4}" rx="8"
        fill="${t.reconstructed ? "#f6e7a8" : "#e9e4d6"}" stroke="${t.reconstructed ? "#b8860b" : "#888"}" stroke-width="2"/>
      <text x="${x + 8}" y="${y + 20}" font-size="12" font-weight="600">${t.tile.replaceAll("_", " ")}</text>
      <text x="${x + 8}" y="${y + 38}" font-size="11" fill="#2b4c9a">${figures}</text>
      <text x="${x + 8}" y="${y + 52}" font-size="10" fill="#a4161a">${dragons}</text>${spaces}</g>`;
  }).join("");
  const obelisk = view.obelisk.map((o) => (o.marker === null ? o.value : `P${o.marker}`)).join(" · ");
  document.getElementById("board").innerHTML = `<svg viewBox="0 0 ${5 * size} ${5 * size}" role="img" aria-label="the city">${tiles}</svg>
    <p>Obelisk: ${obelisk}. Golden scales in supply: ${view.scale_supply}. Deck: ${view.deck_size} cards.</p>`;
}

function drawPlayers(view) {
  const rows = view.players.map((p) => `<tr${view.turn && view.turn.seat === p.seat ? ' class="turn"' : ""}>
      <td>${view.turn && view.turn.seat === p.seat ? "▶ " : ""}P${p.seat} ${view.seats[p.seat].name ?? view.seats[p.seat].kind}${view.seats[p.seat].level ? ` (${view.seats[p.seat].level})` : ""}</td>
      <td>${p.position.replaceAll("_", " ")}</td><td>${p.hand_size}</td><td>${p.crystals ?? "?"}</td>
      <td>${p.scales}</td><td>${p.markers}</td><td>${p.offerings}</td></tr>`).join("");
  document.getElementById("table").innerHTML = `<tr><th>Seat</th><th>Tile</th><th>Cards</th><th>Crystals</th>
    <th>Scales</th><th>Markers</th><th>Offerings</th></tr>${rows}`;
}

function drawHand(me) {
  const hand = document.getElementById("hand");
  if (!me) { hand.innerHTML = ""; return; }
  hand.innerHTML = me.hand.map((card) => {
    const colour = card.split("-")[0];
    return `<label class="card c-${colour}" title="${POWERS[colour]}"><input type="checkbox" name="discard" value="${card}"
      aria-label="discard ${card}">${card}</label>`;
  }).join("");
}

function words(command) {
  switch (command.type) {
    case "move": return `Walk to ${command.to.replaceAll("_", " ")}`;
    case "fly_figure": return `Fly (${command.card}) to ${command.to.replaceAll("_", " ")}`;
    case "gain_steps": return `Two more steps (${command.card})`;
    case "fly_dragon": return `Fly a dragon (${command.card}) to ${command.to ?? "outside the city"}`;
    case "move_dragon": return `Move a dragon (${command.card}) to ${command.to}`;
    case "contribute": return `Build ${command.building.replaceAll("_", " ")} space ${command.space} with ${command.cards.join(" + ")}${command.colour ? ` as ${command.colour}` : ""}${command.hoax?.length ? " (Hoax)" : ""}`;
    case "offer": return `Offer at the obelisk${command.pillar ? ` with ${command.pillar}` : ""}`;
    case "use_action": return `Use the building's action${command.to ? ` to ${command.to}` : ""}`;
    default: return command.type;
  }
}

function drawActions(legal) {
  const actions = document.getElementById("actions");
  for (const command of legal.commands.filter((c) => c.type !== "end_turn")) {
    const button = document.createElement("button");
    button.textContent = words(command);
    button.dataset.type = command.type;
    button.onclick = () => play(command, legal.version);
    actions.append(button);
  }
  const end = document.createElement("button");
  end.className = "primary";
  end.dataset.type = "end_turn";
  const most = legal.end_turn_discards?.at_most ?? 0;
  end.textContent = `End the turn (discarding the ticked cards, at most ${most})`;
  end.onclick = () => {
    const discards = [...document.querySelectorAll("input[name=discard]:checked")].map((i) => i.value);
    play({ type: "end_turn", discards }, legal.version);
  };
  actions.append(end);
}

async function play(command, at) {
  problem.textContent = "";
  document.querySelectorAll("#actions button").forEach((b) => { b.disabled = true; });
  const key = crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
  const result = await api("POST", `/games/${game}/commands`, command, token, { "If-Match": `"${at}"`, "Idempotency-Key": key });
  if (!result.ok) problem.textContent = result.problem;
  await load();
}

function describe(event) {
  const d = event.data;
  const who = d.seat === undefined ? "" : `P${d.seat} `;
  switch (event.type) {
    case "FigureMoved": case "FigureFlown": return `${who}goes to ${d.to.replaceAll("_", " ")}`;
    case "ContributionMade": return `${who}builds at ${d.building.replaceAll("_", " ")} with ${d.cards.length} card(s)`;
    case "BuildingCompleted": return `${d.building.replaceAll("_", " ")} is rebuilt`;
    case "Rewarded": return `${who}gets ${d.crystals ?? "some"} crystals, ${d.scales} scale(s) (${d.reason})`;
    case "ScalesScored": return "the golden scales are scored";
    case "OfferingMade": return `${who}makes an offering (${d.cost} crystals)`;
    case "CardsDrawn": return `${who}draws ${d.count} card(s)`;
    case "TurnStarted": return `turn ${d.number}: P${d.seat}`;
    case "GameEnded": return `the game ends (${d.reason})`;
    default: return `${who}${event.type}`;
  }
}

let reload = null;
async function follow() {
  // EventSource cannot send a token, so the stream is read with fetch; Last-Event-ID resumes it.
  for (;;) {
    try {
      const response = await fetch(`/games/${game}/stream`, {
        headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(lastEvent ? { "Last-Event-ID": lastEvent } : {}) },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          frame(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
        }
      }
    } catch {
      // the connection dropped (a sleeping tab, a restart): resume after a second
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function frame(text) {
  const fields = Object.fromEntries(text.split("\n").filter((l) => l && !l.startsWith(":")).map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]));
  if (!fields.data) return;
  lastEvent = fields.id;
  const event = JSON.parse(fields.data);
  const item = document.createElement("li");
  item.textContent = describe(event);
  const log = document.getElementById("log");
  log.append(item);
  log.scrollTop = log.scrollHeight;
  if (event.seq > version) {
    clearTimeout(reload);
    reload = setTimeout(load, 150);
  }
}

start();
