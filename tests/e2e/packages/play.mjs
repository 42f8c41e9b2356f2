// Plays a whole game against a greedy bot with the packed TypeScript package, as a person with a
// personal access token: node play.mjs <service URL> <token>. Waits for the bot by following the
// game's stream (each event once, in order), then follows it again from its middle; prints what
// happened as JSON.
import { ApiError, BlueMoon, follow, followGame } from "bluemoon-client";

const [base, token] = process.argv.slice(2);
const api = new BlueMoon(base, token);
const { game } = await api.create({ seats: [{ kind: "human", name: "Ada" }, { kind: "bot", level: "greedy" }] });

let seed = 7; // a human's pick, as tests/e2e/test_generated_clients.py makes it, from a seeded generator
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
function choose(commands) {
  for (const type of ["offer", "contribute"]) {
    const some = commands.filter((c) => c.type === type);
    if (some.length) return some[Math.floor(random() * some.length)];
  }
  const moves = commands.filter((c) => c.type === "move");
  if (moves.length && random() < 0.6) return moves[Math.floor(random() * moves.length)];
  return commands.find((c) => c.type === "end_turn");
}

const stop = new AbortController();
const events = followGame(base, game, { token, signal: stop.signal });
let played = 0;
let seen = 0;
let view;
for (let step = 0; step < 3000; step++) {
  view = await api.view(game);
  if (view.result) break;
  if (view.turn?.seat !== 0) {
    const next = await events.next(); // the bot's turn: wait for the next event
    if (next.value.seq !== ++seen) throw new Error(`event ${next.value.seq} came after ${seen - 1}`);
    continue;
  }
  const legal = await api.legal(game);
  await api.play(game, legal.version, choose(legal.commands));
  played++;
}
await events.return(undefined);
// resumed after an event, by the option and by the URL's `after`: the events that followed it
const resumed = [];
for (const url of [`${base}/games/${game}/stream`, `${base}/games/${game}/stream?after=${Math.floor(seen / 2)}`]) {
  const again = follow(url, { token, after: url.includes("?") ? undefined : Math.floor(seen / 2) });
  for (let i = 0; i < 3; i++) resumed.push(JSON.parse((await again.next()).value.data).seq);
  await again.return(undefined);
}
let refused;
try {
  await api.view("no-such-game");
} catch (error) {
  refused = error instanceof ApiError ? error.status : String(error);
}
console.log(JSON.stringify({ game, played, seen, resumed, result: view.result ?? null, refused }));
