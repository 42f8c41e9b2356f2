// The load on boardgame.io's server for bench/peer_speed.py:
//   node load.js URL MATCHES SECONDS MOVES READY
// keeps MATCHES matches in flight, each played by its two seats on their own socket.io connection
// (websocket), as boardgame.io's socket.io transport speaks to the server. Matches are made
// through the lobby API (create, then join each seat), READY per slot before the clock starts
// (more on the clock if a slot uses them up). A seat moves when its own socket has the state
// it moves from; the move is counted, with its latency, when the next state's `update` reaches
// the mover. After MOVES moves the match's sockets close and the slot goes on with a fresh
// match, whose sockets were opened and synced while the last one was played.
// Prints `start` when the clock starts, `stop` when the last counted move is done, then one
// JSON line: {"moves", "elapsed" (s), "latencies" (ms), "matches" (played to MOVES), "made_on_clock"}.
const { io } = require("socket.io-client");
const { main, fail } = require("./slots");
const { nextCell } = require("./toy");

const [url, matches, seconds, moves, ready] = process.argv.slice(2).map((arg, i) => (i ? Number(arg) : arg));
const GAME = "toy";
const TIMEOUT_MS = 10000;

async function lobby(path, body) {
  const response = await fetch(`${url}/games/${GAME}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`lobby ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A match made and both seats joined through the lobby API: its id and each seat's credentials. */
async function newMatch() {
  const { matchID } = await lobby("/create", { numPlayers: 2 });
  const credentials = [];
  for (const playerID of ["0", "1"]) {
    const joined = await lobby(`/${matchID}/join`, { playerID, playerName: `bench ${playerID}` });
    credentials.push(joined.playerCredentials);
  }
  return { matchID, credentials };
}

/** A seat on its own socket, synced: it knows the latest state the server sent it. */
function seat(matchID, playerID, credentials) {
  const socket = io(`${url}/${GAME}`, { transports: ["websocket"], forceNew: true, reconnection: false });
  const found = { socket, playerID, credentials, state: null, waiting: [] };
  const receive = (state) => {
    found.state = state;
    const [due, later] = [
      found.waiting.filter((w) => w.stateID <= state._stateID),
      found.waiting.filter((w) => w.stateID > state._stateID),
    ];
    found.waiting = later;
    for (const waiter of due) waiter.resolve();
  };
  socket.on("sync", (_, syncInfo) => receive(syncInfo.state));
  socket.on("update", (_, state) => receive(state));
  socket.on("connect", () => socket.emit("sync", matchID, playerID, credentials, 2));
  socket.on("connect_error", (error) => fail(error));
  return found;
}

/** Once ``found``'s socket has a state at least ``stateID``. */
function reached(found, stateID) {
  if (found.state && found.state._stateID >= stateID) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no state ${stateID} for seat ${found.playerID}`)), TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    found.waiting.push({ stateID, resolve: done });
  });
}

/** A match whose two seats are connected and synced. */
async function connected(made) {
  const { matchID, credentials } = await made;
  const seats = ["0", "1"].map((playerID, i) => seat(matchID, playerID, credentials[i]));
  await Promise.all(seats.map((found) => reached(found, 0)));
  return { matchID, seats, stateID: 0 };
}

/** Play up to ``moves`` moves, starting each only before ``stop``; true if it played them all. */
async function play(match, stop, slot) {
  for (let i = 0; i < moves; i++) {
    if (performance.now() >= stop) return false;
    await Promise.all(match.seats.map((found) => reached(found, match.stateID)));
    const mover = match.seats[Number(match.seats[0].state.ctx.currentPlayer)];
    const cell = nextCell(mover.state.G.at[mover.playerID]);
    const action = {
      type: "MAKE_MOVE",
      payload: { type: "step", args: [cell], playerID: mover.playerID, credentials: mover.credentials },
    };
    const started = performance.now();
    mover.socket.emit("update", action, match.stateID, match.matchID, mover.playerID);
    await reached(mover, match.stateID + 1);
    slot.last = performance.now();
    slot.latencies.push(slot.last - started);
    if (mover.state.G.at[mover.playerID] !== cell) throw new Error(`the move was not applied: ${match.matchID}`);
    match.stateID = mover.state._stateID;
  }
  return true;
}

main({ count: matches, ready, seconds, make: newMatch, connected, play });
