// The load on this service's play socket (GET /games/{game}/socket) for bench/peer_speed.py, played
// as load.js plays boardgame.io:
//   node ours.js URL GAMES SECONDS READY
// keeps GAMES games of two humans in flight, each seat on its own WebSocket (the token as the
// subprotocol bearer.<token>, as the page sends it). Games are made with POST /games, READY per
// slot before the clock starts (more on the clock if a slot uses them up). The seat whose turn it
// is sends end_turn with the version it saw and an Idempotency-Key; the move is counted, with its
// latency, when its result reaches the mover (the other seat hears the events pushed). A game
// ends after 20 moves (ten quiet rounds) and the slot goes on with a fresh game, whose sockets
// were opened while the last one was played.
// Prints `start`, `stop`, then one JSON line, as slots.js does for both.
const WebSocket = require("ws");
const { main, fail } = require("./slots");

const [url, games, seconds, ready] = process.argv.slice(2).map((arg, i) => (i ? Number(arg) : arg));
const TIMEOUT_MS = 10000;

async function newGame() {
  const response = await fetch(`${url}/games`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ seats: [{ kind: "human" }, { kind: "human" }], setup: { first_player: 0 } }),
  });
  if (response.status !== 201) throw new Error(`POST /games: ${response.status} ${await response.text()}`);
  const made = await response.json();
  return { game: made.game, tokens: made.seats.map((s) => s.token), version: made.version };
}

/** A seat's socket, open: answers are handed to the waiter of their id, pushed events dropped. */
function seat(game, token) {
  const socket = new WebSocket(`${url.replace("http", "ws")}/games/${game}/socket`, ["bluemoon.v1", `bearer.${token}`]);
  const found = { socket, waiting: new Map() };
  socket.on("message", (data) => {
    const message = JSON.parse(data);
    const waiter = message.id != null && found.waiting.get(message.id);
    if (waiter) {
      found.waiting.delete(message.id);
      waiter(message);
    }
  });
  socket.on("error", fail);
  return new Promise((resolve) => socket.on("open", () => resolve(found)));
}

async function connected(made) {
  const game = await made;
  return { ...game, seats: await Promise.all(game.tokens.map((token) => seat(game.game, token))), turn: 0 };
}

function answer(found, id, message) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${id}`)), TIMEOUT_MS);
    found.waiting.set(id, (got) => {
      clearTimeout(timer);
      resolve(got);
    });
    found.socket.send(JSON.stringify(message));
  });
}

/** Play the game to its end, starting each move only before ``stop``; true if it ended. */
async function play(match, stop, slot) {
  for (;;) {
    if (performance.now() >= stop) return false;
    const id = `${match.game}-${match.version}`;
    const command = { type: "end_turn", discards: [], expected_version: match.version };
    const started = performance.now();
    const got = await answer(match.seats[match.turn], id, { id, idempotency_key: id, command });
    slot.last = performance.now();
    if (got.type !== "result" || got.result.duplicate) throw new Error(`not applied: ${JSON.stringify(got)}`);
    slot.latencies.push(slot.last - started);
    match.version = got.result.version;
    if (got.result.view.turn === null) return true;
    match.turn = got.result.view.turn.seat;
  }
}

main({ count: games, ready, seconds, make: newGame, connected, play });
