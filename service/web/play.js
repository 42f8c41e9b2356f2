// A seat's page (/play/{game}#token=…) or a spectator's (/play/{game}). The token stays in the
// fragment and in localStorage, so it never reaches a server log. Only the public API is used:
// the view, /legal (the page sends nothing else), commands with If-Match and Idempotency-Key,
// and the event stream, resumed with Last-Event-ID.
import { api, esc, mySeats, remember } from "/web/api.js";
import { board, listen, named, rewards } from "/web/board.js";
import { advice, colourOf, described, matching, spent } from "/web/pay.js";
import { verify } from "/web/fairness.js";
import { words as said } from "/web/command_words.js";
import { describe } from "/web/event_words.js";
import { PEOPLES } from "/web/peoples.js";

const game = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
const problem = $("problem");
const TO_TILE = new Set(["move", "fly_figure", "fly_dragon", "move_dragon", "use_action"]);
let token = null;
let seat = null;
let version = 0;
let lastEvent = "";
let view = null;
let legal = null;
let paying = null; // the space being paid: {space, colour, value, payments}
let ticked = [];
let replaying = false;
let catalogue = {}; // building -> its spaces and rewards (GET /catalogue)

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
  listen($("board"), chooseTile, (space) => startPaying(space));
  const known = await api("GET", "/catalogue");
  if (known.ok) catalogue = Object.fromEntries(known.body.buildings.map((b) => [b.building, b]));
  await load();
  follow();
}

const words = (c) => said(c, view, seat);

// ---- the replay and the audits -------------------------------------------------------------
const slider = $("version");

async function showVersion(v) {
  // the game as this seat saw it then (GET /games/{game}/versions/{v}); arrow keys step the slider
  const then = await api("GET", `/games/${game}/versions/${v}`, undefined, token);
  if (!then.ok) { problem.textContent = then.problem; return; }
  replaying = Number(v) !== version;
  $("board").innerHTML = board(then.body, new Map(), null, new Set(), catalogue);
  drawPlayers(then.body);
  $("shown").textContent = replaying ? `version ${v} of ${version}` : "now";
}

slider.oninput = () => showVersion(slider.value);
$("live").onclick = () => { replaying = false; load(); };

const listed = (checks) => checks.map((c) => `<li>${c.ok ? "✔" : "✘"} ${esc(c.name)}: ${esc(c.detail)}</li>`).join("");

async function showAudits() {
  // the server's audit judges every move again; the fairness check runs here, on the raw log
  const [audit, log] = await Promise.all([api("GET", `/games/${game}/audit`), api("GET", `/games/${game}/log`)]);
  if (audit.ok) $("audit").innerHTML = `<li><strong>${audit.body.verified ? "Verified" : "NOT verified"}</strong>: ${esc(audit.body.setup)}</li>${listed(audit.body.checks)}`;
  $("audits").hidden = false;
  if (!log.ok) return;
  const checks = verify(log.body);
  $("fairness").innerHTML = `<li><strong>${checks.every((c) => c.ok) ? "Fair: every shuffle agrees" : "UNFAIR: a shuffle disagrees"}</strong></li>${listed(checks)}`;
}

// ---- the game as it is now ------------------------------------------------------------------
async function load() {
  const viewed = await api("GET", `/games/${game}`, undefined, token);
  if (!viewed.ok) { problem.textContent = viewed.problem; return; }
  const moved = !view || viewed.body.version !== view.version;
  view = viewed.body;
  version = view.version;
  seat = view.viewer;
  const follows = Number(slider.value) >= Number(slider.max) || slider.max === "";
  slider.max = String(version);
  if (follows) slider.value = String(version);
  if (view.result) showAudits();
  if (replaying) return;
  if (seat !== null) remember(game, seat, token);
  const mine = Boolean(view.turn && view.turn.seat === seat);
  legal = null;
  if (mine) {
    const answer = await api("GET", `/games/${game}/legal`, undefined, token);
    if (answer.ok) legal = answer.body;
  }
  document.title = `${mine ? "▶ Your turn — " : ""}Blue Moon City`;
  const status = view.result
    ? `Finished (${view.result.reason}); winners: ${view.result.winners.map((w) => `seat ${w}`).join(", ")}`
    : `Turn ${view.turn.number}: seat ${view.turn.seat}, ${view.turn.phase}${view.turn.deadline ? `, until ${new Date(view.turn.deadline).toLocaleString()}` : ""}`;
  const limit = 10 * view.options.players; // ten quiet rounds end the game (a stalemate)
  const quiet = !view.result && view.quiet_turns >= limit / 2 ? ` Nobody has built for ${view.quiet_turns} turns: at ${limit} the game ends as a stalemate.` : "";
  $("status").textContent = `${seat === null ? "Spectating. " : `You are seat ${seat}. `}${status}${quiet}`;
  if (moved) { paying = null; ticked = []; }
  draw();
  if (mine && window.Notification?.permission === "granted" && document.hidden) new Notification("Blue Moon City: your turn");
}

function commands(type) { return (legal?.commands ?? []).filter((c) => c.type === type); }

function draw() {
  const me = seat === null ? null : view.players[seat];
  const targets = new Map();
  const rank = (c) => (c.type === "move" ? 3 : c.type === "fly_figure" || c.type === "use_action" ? 2 : 1);
  for (const c of (legal?.commands ?? []).filter((x) => TO_TILE.has(x.type) && x.to)) {
    targets.set(c.to, Math.max(targets.get(c.to) ?? 0, rank(c)));
  }
  for (const [tile, r] of targets) targets.set(tile, ["", "power", "walk", "step"][r]);
  const payable = new Set(commands("contribute").map((c) => c.space));
  $("board").innerHTML = board(view, targets, me?.position, payable, catalogue);
  drawPlayers(view);
  drawHand(me);
  drawActions();
}

function drawPlayers(v) {
  const rows = v.players.map((p) => `<tr${v.turn && v.turn.seat === p.seat ? ' class="turn"' : ""}>
      <td>${v.turn && v.turn.seat === p.seat ? "▶ " : ""}P${p.seat} ${esc(v.seats[p.seat].name ?? v.seats[p.seat].kind)}${v.seats[p.seat].level ? ` (${esc(v.seats[p.seat].level)})` : ""}</td>
      <td>${named(p.position)}</td><td>${p.hand_size}</td><td>${p.crystals ?? "?"}</td>
      <td>${p.scales}</td><td>${p.markers}</td><td>${p.offerings}</td></tr>`).join("");
  $("table").innerHTML = `<tr><th>Seat</th><th>Tile</th><th>Cards</th><th>Crystals</th>
    <th>Scales</th><th>Markers</th><th>Offerings</th></tr>${rows}`;
}

function drawHand(me) {
  // grouped by people, each with its power spelled out (no hover needed on a phone); while paying, a card is a toggle for the payment;
  // on my turn otherwise, a box to discard it at the Reset
  const hand = $("hand");
  if (!me) { hand.innerHTML = ""; return; }
  const groups = Object.fromEntries(Object.keys(PEOPLES).map((colour) => [colour, []]));
  for (const card of me.hand) groups[colourOf(card)].push(card);
  const discarding = legal !== null && paying === null;
  hand.innerHTML = Object.entries(groups).filter(([, cards]) => cards.length).map(([colour, cards]) => `<div class="people">
      <span class="muted"><strong>${PEOPLES[colour].name}</strong> <span class="power">${PEOPLES[colour].power}</span></span>
      ${cards.map((card) => {
        if (paying) return `<button type="button" class="card c-${colour}" data-card="${card}" aria-pressed="${ticked.includes(card)}">${card}</button>`;
        if (discarding) return `<label class="card c-${colour}"><input type="checkbox" name="discard" value="${card}" aria-label="discard ${card}">${card}</label>`;
        return `<span class="card c-${colour}">${card}</span>`;
      }).join("")}</div>`).join("");
  hand.querySelectorAll("button[data-card]").forEach((b) => { b.onclick = () => tick(b.dataset.card); });
  const most = legal?.end_turn_discards?.at_most ?? 0;
  hand.querySelectorAll("input[name=discard]").forEach((box) => {
    box.onchange = () => {
      if (hand.querySelectorAll("input[name=discard]:checked").length <= most) return;
      box.checked = false;
      problem.textContent = `At the end of the turn you may discard at most ${most} card(s).`;
    };
  });
}

function button(text, onclick, type = "", primary = false) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  if (type) b.dataset.type = type;
  if (primary) b.className = "primary";
  b.onclick = onclick;
  return b;
}

function group(title, ...items) {
  const box = document.createElement("div");
  box.className = "group";
  const heading = document.createElement("h3");
  heading.textContent = title;
  box.append(heading, ...items);
  return box;
}

function drawActions() {
  const actions = $("actions");
  actions.innerHTML = "";
  if (!legal) {
    if (seat !== null && view.turn) {
      actions.innerHTML = `<p class="muted">Waiting for seat ${view.turn.seat}.</p>`;
      if (window.Notification && Notification.permission === "default") actions.append(button("Tell me when it is my turn", () => Notification.requestPermission()));
    }
    return;
  }
  if (paying) { actions.append(builder()); return; }
  const steps = view.turn.phase === "movement" ? ` You have ${view.turn.steps} step(s).` : "";
  const hint = document.createElement("p");
  hint.className = "muted";
  hint.textContent = `Click or press Enter on a highlighted tile to go there or to use a power there.${steps}`;
  actions.append(hint);
  const choices = document.createElement("div");
  choices.id = "choices";
  actions.append(choices);
  const powers = (legal.commands).filter((c) => c.type === "gain_steps" || (c.type === "fly_dragon" && !c.to) || (c.type === "use_action" && !c.to));
  if (powers.length) actions.append(group("Powers", ...powers.map((c) => button(words(c), () => play(c), c.type))));
  const spaces = [...new Set(commands("contribute").map((c) => c.space))];
  if (spaces.length) {
    const tile = view.city.find((t) => t.tile === view.players[seat].position);
    const pays = document.createElement("p");
    pays.className = "muted";
    pays.textContent = catalogue[tile.tile] ? `${catalogue[tile.tile].name}: ${rewards(catalogue[tile.tile])}.` : "";
    actions.append(group(`Build at ${named(tile.tile)}`, pays, ...spaces.map((i) => button(`Pay space ${i + 1}: ${tile.spaces[i].colour} ${tile.spaces[i].value}`, () => startPaying(i), "pay"))));
  }
  const offers = commands("offer");
  if (offers.length) actions.append(group("Obelisk", ...offers.map((c) => button(words(c), () => play(c), "offer"))));
  const most = legal.end_turn_discards?.at_most ?? 0;
  actions.append(button(`End the turn (discarding the ticked cards, at most ${most})`, () => {
    const discards = [...document.querySelectorAll("input[name=discard]:checked")].map((i) => i.value);
    play({ type: "end_turn", discards });
  }, "end_turn", true));
}

function chooseTile(tile) {
  // a plain step is taken at once; anything else (Flit, dragons, the Main Hall) is offered
  const options = (legal?.commands ?? []).filter((c) => TO_TILE.has(c.type) && c.to === tile);
  if (options.length === 1 && options[0].type === "move") { play(options[0]); return; }
  const choices = $("choices");
  if (!choices) return;
  choices.innerHTML = "";
  choices.append(group(`At ${named(tile)}`, ...options.map((c) => button(words(c), () => play(c), c.type)), button("Cancel", () => { choices.innerHTML = ""; })));
  choices.querySelector("button").focus();
}

// ---- paying a space -------------------------------------------------------------------------
function startPaying(space) {
  const payments = commands("contribute").filter((c) => c.space === space);
  if (!payments.length) return;
  const tile = view.city.find((t) => t.tile === view.players[seat].position);
  const printed = tile.spaces[space].colour;
  const colours = [...new Set(payments.map((c) => c.colour ?? printed))];
  paying = { space, printed, colour: colours[0], colours, need: tile.spaces[space].value, building: tile.tile, payments };
  ticked = [];
  drawHand(view.players[seat]);
  drawActions();
  $("hand").querySelector("button")?.focus();
}

function tick(card) {
  ticked = ticked.includes(card) ? ticked.filter((c) => c !== card) : [...ticked, card];
  drawHand(view.players[seat]);
  drawActions();
  $("hand").querySelector(`button[data-card="${card}"]`)?.focus();
}

function builder() {
  const box = group(`Pay ${named(paying.building)} space ${paying.space + 1}: ${paying.printed} ${paying.need}`);
  box.id = "builder";
  if (paying.colours.length > 1) {
    const select = document.createElement("select");
    select.id = "colour";
    select.setAttribute("aria-label", "pay in colour");
    select.innerHTML = paying.colours.map((c) => `<option${c === paying.colour ? " selected" : ""}>${c}</option>`).join("");
    select.onchange = () => { paying.colour = select.value; drawActions(); };
    box.append("Pay in ", select);
  }
  const found = matching(paying.payments, ticked, paying.colour);
  const total = document.createElement("p");
  total.id = "total";
  total.setAttribute("aria-live", "polite");
  total.textContent = `Tick the cards to pay with (above). ${advice(ticked, paying.colour, paying.need, found)}`;
  box.append(total, ...found.map((c) => button(`Build with ${described(c, paying.colour)}`, () => play(c), "contribute", true)));
  const ideas = paying.payments.filter((c) => (c.colour ?? paying.printed) === paying.colour)
    .sort((a, b) => spent(a).length - spent(b).length).slice(0, 4);
  if (ideas.length && !found.length) {
    box.append(document.createElement("br"), "Ways to pay: ", ...ideas.map((c) => button(described(c, paying.colour), () => {
      ticked = spent(c);
      drawHand(view.players[seat]);
      drawActions();
    }, "suggest")));
  }
  box.append(button("Cancel", () => { paying = null; ticked = []; draw(); }, "cancel"));
  return box;
}

// ---- sending a command ----------------------------------------------------------------------
async function play(command) {
  problem.textContent = "";
  document.querySelectorAll("#actions button").forEach((b) => { b.disabled = true; });
  const key = crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
  const result = await api("POST", `/games/${game}/commands`, command, token, { "If-Match": `"${legal.version}"`, "Idempotency-Key": key });
  if (!result.ok) problem.textContent = result.problem;
  await load();
}

// ---- live: the event stream ---------------------------------------------------------------
let reload = null;
let newest = 0;
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
  const log = $("log");
  log.append(item);
  log.scrollTop = log.scrollHeight;
  newest = Math.max(newest, event.seq);
  clearTimeout(reload);
  // redraw once the burst is over, and only if the page has not already caught up by itself
  reload = setTimeout(() => { if (newest > version) load(); }, 150);
}

start();
