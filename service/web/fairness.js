// Fairness, checked in the browser without trusting the server: the generator of
// docs/fairness.md written again in plain JavaScript (its own SHA-256 and HMAC, so it works
// on plain HTTP too, where WebCrypto is missing), then every random outcome of a finished
// game re-derived from the revealed seed and compared with what the log says happened, each
// check named and explained in the page's language.
import { t } from "/web/i18n.js";

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
];
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** SHA-256 (FIPS 180-4) of a Uint8Array. */
export function sha256(bytes) {
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  new DataView(padded.buffer).setBigUint64(padded.length - 8, BigInt(bytes.length) * 8n);
  const h = [...H0];
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let at = 0; at < padded.length; at += 64) {
    const view = new DataView(padded.buffer, at, 64);
    for (let t = 0; t < 64; t++) {
      w[t] =
        t < 16
          ? view.getUint32(t * 4)
          : (rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >>> 10)) +
            w[t - 7] +
            (rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >>> 3)) +
            w[t - 16];
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let t = 0; t < 64; t++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      [k, g, f, e, d, c, b, a] = [g, f, e, (d + t1) | 0, c, b, a, (t1 + t2) | 0];
    }
    [a, b, c, d, e, f, g, k].forEach((x, i) => {
      h[i] = (h[i] + x) | 0;
    });
  }
  const out = new Uint8Array(32);
  h.forEach((x, i) => new DataView(out.buffer).setUint32(i * 4, x >>> 0));
  return out;
}

/** HMAC-SHA256 (RFC 2104). */
export function hmac(key, message) {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256(key) : key);
  const inner = new Uint8Array(64 + message.length);
  const outer = new Uint8Array(64 + 32);
  block.forEach((b, i) => {
    inner[i] = b ^ 0x36;
    outer[i] = b ^ 0x5c;
  });
  inner.set(message, 64);
  outer.set(sha256(inner), 64);
  return sha256(outer);
}

export const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
export const unhex = (text) => new Uint8Array(text.match(/../g).map((b) => parseInt(b, 16)));

/** Block ``counter`` of the stream for (seed, label): HMAC(seed, label ":" counter as 8 bytes). */
export function block(seed, label, counter) {
  const name = new TextEncoder().encode(`${label}:`);
  const message = new Uint8Array(name.length + 8);
  message.set(name);
  new DataView(message.buffer).setBigUint64(name.length, BigInt(counter));
  return hmac(seed, message);
}

/** Uniform integers below n from one (seed, label) stream, by rejection of 8-byte words. */
export class Stream {
  constructor(seed, label) {
    this.seed = seed;
    this.label = label;
    this.counter = 0;
    this.bytes = [];
  }

  word() {
    if (this.bytes.length < 8) this.bytes.push(...block(this.seed, this.label, this.counter++));
    return this.bytes.splice(0, 8).reduce((w, b) => (w << 8n) | BigInt(b), 0n);
  }

  below(n) {
    const size = 1n << 64n;
    const limit = size - (size % BigInt(n));
    for (;;) {
      const w = this.word();
      if (w < limit) return Number(w % BigInt(n));
    }
  }
}

/** Fisher–Yates from the end, driven by the (seed, label) stream. */
export function shuffled(seed, label, items) {
  const stream = new Stream(seed, label);
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = stream.below(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

export const COLOURS = ["black", "red", "blue", "grey", "green", "brown", "white", "yellow"];
export const DECK = COLOURS.flatMap((c) =>
  ["1a", "1b", "1c", "1d", "2a", "2b", "2c", "3a", "3b", "3c"].map((id) => `${c}-${id}`),
);
export const STARTING = ["fire_temple", "water_temple", "royal_palace", "earth_temple"];
export const START_CELLS = [
  [1, 2],
  [2, 1],
  [2, 3],
  [3, 2],
];
export const BUILDINGS = [
  "royal_palace",
  "fire_temple",
  "earth_temple",
  "water_temple",
  "aqueduct",
  "hospice",
  "citadel",
  "watchtower",
  "great_hall",
  "university",
  "market_hall",
  "library",
  "trading_house",
  "flight_tower",
  "city_residence",
  "monastery_tower",
  "caravansera",
  "thermae",
  "iron_foundry",
  "mill",
];
export const EXPANSION = ["main_hall", "hospital", "golden_shrine", "theatre"];

/** The seeded city: tile -> "row,col" (docs/fairness.md, labels layout/start and layout). */
export function layout(created, seed) {
  const corner = (r, c) => (r === 0 || r === 4) && (c === 0 || c === 4);
  let cells = [];
  for (let r = 0; r < 5; r++)
    for (let c = 0; c < 5; c++) if (!(r === 2 && c === 2) && (created.expansion || !corner(r, c))) cells.push([r, c]);
  let tiles = [...BUILDINGS, ...(created.expansion ? EXPANSION : [])];
  const placed = { courtyard: "2,2" };
  if (created.layout === "standard") {
    const order = created.edition === "classic" ? STARTING : shuffled(seed, "layout/start", STARTING);
    order.forEach((tile, i) => {
      placed[tile] = String(START_CELLS[i]);
    });
    cells = cells.filter((cell) => !START_CELLS.some((s) => String(s) === String(cell)));
    tiles = tiles.filter((t) => !STARTING.includes(t));
  }
  shuffled(seed, "layout", tiles).forEach((tile, i) => {
    placed[tile] = String(cells[i]);
  });
  return placed;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Every random outcome of a finished game's log (GET /games/{id}/log) re-derived here:
 * [{name, ok, detail}]. Given parts (explicit or scenario) are reported, not re-derived. */
export function verify(log) {
  const events = log.events ?? [];
  const data = (type) => events.find((e) => e.type === type)?.data;
  const created = data("GameCreated");
  const ended = events.at(-1)?.type === "GameEnded" ? events.at(-1).data : null;
  const order = data("DeckShuffled")?.order;
  if (!created || !order || !ended)
    return [{ name: t("fairness.opening"), ok: false, detail: t("fairness.opening.detail") }];
  const given = created.explicit ?? [];
  const seeds = new Set([log.seed, created.seed, ended.seed].filter((s) => s !== null && s !== undefined));
  const checks = [{ name: t("fairness.copies"), ok: seeds.size === 1, detail: t("fairness.copies.detail") }];
  if (!/^([0-9a-f]{2})+$/.test(ended.seed))
    return [...checks, { name: t("fairness.seed"), ok: false, detail: t("fairness.seed.detail") }];
  const seed = unhex(ended.seed);
  const digest = hex(sha256(seed));
  checks.push({
    name: t("fairness.commitment"),
    ok: digest === created.commitment && digest === (log.commitment ?? digest),
    detail: t("fairness.commitment.detail", { digest: `${digest.slice(0, 16)}…` }),
  });
  const givenOr = (part, name, ok, detail) =>
    checks.push(
      given.includes(part)
        ? {
            name,
            ok: true,
            detail: given.includes("scenario") ? t("fairness.given.scenario") : t("fairness.given.explicit"),
          }
        : { name, ok, detail },
    );
  const grid = Object.fromEntries(created.grid.map(([tile, r, c]) => [tile, `${r},${c}`]));
  givenOr(
    "grid",
    t("fairness.layout"),
    same(Object.entries(layout(created, seed)).sort(), Object.entries(grid).sort()),
    t("fairness.layout.detail"),
  );
  givenOr("deck", t("fairness.deck"), same(shuffled(seed, "deck", DECK), order), t("fairness.deck.detail"));
  const dealt = events.filter((e) => e.type === "CardsDealt").map((e) => e.data);
  givenOr(
    "scenario",
    t("fairness.deal"),
    dealt.length === created.players && dealt.every((d) => same(d.cards, order.slice(d.seat * 8, d.seat * 8 + 8))),
    t("fairness.deal.detail"),
  );
  const first = events.find((e) => e.type === "TurnStarted").data.seat;
  givenOr(
    "first_player",
    t("fairness.first"),
    first === new Stream(seed, "first-player").below(created.players),
    t("fairness.first.detail", { seat: first }),
  );
  let discard = [];
  let atTurnStart = [];
  let reshuffles = 0;
  let reshufflesOk = true;
  for (const { type, data: d } of events) {
    if (type === "PositionSet") discard = [...d.discard];
    else if (type === "TurnStarted") atTurnStart = [...discard];
    else if (type === "TurnTakenBack") discard = [...atTurnStart];
    else if (["FigureFlown", "StepsGained", "DragonFlown", "DragonMoved"].includes(type)) discard.push(d.card);
    else if (type === "ContributionMade") discard.push(...d.cards, ...d.hoax.map(([card]) => card));
    else if (type === "OfferingMade" && d.pillar) discard.push(d.pillar);
    else if (type === "CardsDiscarded") discard.push(...d.cards);
    else if (type === "DeckReshuffled") {
      reshuffles += 1;
      reshufflesOk &&= d.number === reshuffles && same(d.order, shuffled(seed, `reshuffle/${d.number}`, discard));
      discard = [];
    }
  }
  checks.push({
    name: t("fairness.reshuffles"),
    ok: reshufflesOk,
    detail: t("fairness.reshuffles.detail", { count: reshuffles }),
  });
  return checks;
}
