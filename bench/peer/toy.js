// The toy game boardgame.io serves in bench/peer_speed.py: a 5×5 board on which each player walks
// one cell at a time; a move checks that the cell is on the board and next to the player, and
// adds the cell's count of visits to the player's score. It is this small on purpose, so that the
// server's time per move is nearly all the library's own work.
const { INVALID_MOVE } = require("boardgame.io/core");

const SIDE = 5;

function adjacent(from, to) {
  const [fromRow, fromColumn] = [Math.floor(from / SIDE), from % SIDE];
  const [toRow, toColumn] = [Math.floor(to / SIDE), to % SIDE];
  return Math.abs(fromRow - toRow) + Math.abs(fromColumn - toColumn) === 1;
}

const Toy = {
  name: "toy",
  minPlayers: 2,
  maxPlayers: 2,
  setup: () => ({ visits: Array(SIDE * SIDE).fill(0), at: [0, SIDE * SIDE - 1], score: [0, 0] }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    step: ({ G, playerID }, cell) => {
      if (!Number.isInteger(cell) || cell < 0 || cell >= SIDE * SIDE || !adjacent(G.at[playerID], cell)) {
        return INVALID_MOVE;
      }
      G.visits[cell] += 1;
      G.score[playerID] += G.visits[cell];
      G.at[playerID] = cell;
    },
  },
};

/** A legal step for the player at ``cell``: along its row, to the right unless at the edge. */
function nextCell(cell) {
  return cell % SIDE < SIDE - 1 ? cell + 1 : cell - 1;
}

module.exports = { Toy, nextCell };
