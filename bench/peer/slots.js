// The clock and the slots both load generators (load.js: boardgame.io; ours.js: this service's
// play socket) share, so that the two sides are driven exactly alike: COUNT slots, each with
// READY matches made before the clock starts (more on the clock if a slot uses them up); each
// slot plays its match while the next one's sockets open, then goes on with it until SECONDS
// pass. `play(match, stop, slot)` pushes each move's latency (ms) to slot.latencies, sets
// slot.last, and answers whether the match was played to its end.
// Prints `start`, `stop`, then one JSON line:
// {"moves", "elapsed" (s), "latencies" (ms), "matches" (played to their end), "made_on_clock"}.

function close(match) {
  for (const found of match.seats) found.socket.close();
}

function fail(error) {
  console.error(error);
  process.exit(1);
}

async function drive({ count, ready, seconds, make, connected, play }) {
  let onClock = 0;
  const slots = await Promise.all(
    Array.from({ length: count }, async () => {
      const stock = [];
      for (let j = 0; j < ready; j++) stock.push(await make());
      const take = () => stock.pop() || (onClock++, make());
      return { take, current: await connected(take()), latencies: [], last: 0, played: 0 };
    }),
  );
  const start = performance.now();
  const stop = start + seconds * 1000;
  console.log("start");
  await Promise.all(
    slots.map(async (slot) => {
      let match = slot.current;
      for (;;) {
        const next = connected(slot.take());
        const whole = await play(match, stop, slot);
        close(match);
        match = await next;
        if (!whole) break;
        slot.played += 1;
      }
      close(match);
    }),
  );
  console.log("stop");
  const latencies = slots.flatMap((slot) => slot.latencies.map((ms) => Math.round(ms * 1000) / 1000));
  const elapsed = (Math.max(...slots.map((slot) => slot.last)) - start) / 1000;
  const played = slots.reduce((sum, slot) => sum + slot.played, 0);
  const found = { moves: latencies.length, elapsed, latencies, matches: played, made_on_clock: onClock };
  process.stdout.write(`${JSON.stringify(found)}\n`, () => process.exit(0)); // a pipe is written asynchronously
}

/** Run ``drive`` as a script's main, any failure ending the process with 1. */
function main(options) {
  drive(options).catch(fail);
}

module.exports = { main, fail };
