// boardgame.io's server (one process) serving the toy game, with its lobby API on the same port:
//   node server.js PORT memory
//   node server.js PORT flatfile DIR
// FlatFile keeps each match in files under DIR (node-persist), written after the answer.
const { Server, FlatFile } = require("boardgame.io/server");
const { Toy } = require("./toy");

const [port, storage, dir] = process.argv.slice(2);
if (storage !== "memory" && storage !== "flatfile") {
  throw new Error(`storage is memory or flatfile, not ${storage}`);
}
const db = storage === "flatfile" ? { db: new FlatFile({ dir, logging: false }) } : {}; // the default: in memory
// no browser calls it, so no origin is allowed cross-site (saying so keeps its warning quiet)
const server = Server({ games: [Toy], origins: [], ...db });
server.run({ port: Number(port) });
