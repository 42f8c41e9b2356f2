// The city drawn as SVG. A tile that a legal command can reach is a button (click, Enter or
// Space); an open space that the player can pay now is one too. The page decides what they do.
import { html, nothing, svg } from "/web/html.js";
import { t } from "/web/i18n.js";
import { capital, colourName, dragonName, named } from "/web/names.js";
import { PEOPLES, symbolOf } from "/web/peoples.js";

const SIZE = 120;
// a space of any colour (the expansion's) is light grey, with its number in black
const FILL = { any: "#ddd", ...Object.fromEntries(Object.entries(PEOPLES).map(([colour, p]) => [colour, p.fill])) };
const DARK = new Set(Object.keys(PEOPLES).filter((colour) => PEOPLES[colour].dark));
/** Each seat's colour, for its figure, its markers and its obelisk spaces (none a people's). */
export const SEAT_COLOURS = ["#e67e22", "#8e44ad", "#16a085", "#d6336c"];
const DRAGON_FILL = { red: "#c0392b", green: "#2e7d32", blue: "#1f4fa3" };

function space(s, i, x, y, payable) {
  const open = s.marker === null;
  const said = { colour: colourName(s.colour), value: s.value, seat: s.marker };
  const label = open ? t("board.space.open", said) : t("board.space.taken", said);
  const ink = DARK.has(s.colour) ? "#fff" : "#000";
  return svg`<g transform="translate(${x + 14 + i * 28},${y + 70})" class=${payable ? "space payable" : "space"}
      data-space=${payable ? i : nothing}>
    <circle r="12" fill=${FILL[s.colour]} stroke=${open ? "#333" : SEAT_COLOURS[s.marker]} stroke-width=${open ? 1 : 4}
      class=${open ? nothing : "marker"} data-owner=${open ? nothing : s.marker}/>
    <text text-anchor="middle" dy="8" font-size="10" font-weight="700" fill=${ink}
      >${open ? s.value : `P${s.marker}`}</text>
    <text text-anchor="middle" dy="-2" font-size="8" class="symbol" aria-hidden="true" fill=${ink}
      >${symbolOf(s.colour)}</text>
    <title>${payable ? t("board.space.payable", { space: label }) : label}</title></g>`;
}

const paid = (r) =>
  [
    r.crystals ? t("board.crystals", { count: r.crystals }) : "",
    r.scales ? t("board.scales", { count: r.scales }) : "",
    r.cards ? t("board.cards", { count: r.cards }) : "",
  ]
    .filter(Boolean)
    .join(", ") || t("board.nothing");

/** What completing a building pays (GET /catalogue), in words. */
export function rewards(spec) {
  return t("board.rewards", {
    majority: paid(spec.majority),
    construction: paid(spec.construction),
    neighbourhood: paid(spec.neighbourhood),
  });
}

/** What pressing a target does, by its kind. */
const said = (target) =>
  ({ step: t("board.target.step"), walk: t("board.target.walk"), power: t("board.target.power") })[target];

/** The board's template (each building's rewards as its tooltip, from ``catalogue``). ``targets``:
 * tile -> "step" (a step takes the figure there), "walk" (a power or the Main Hall can) or "power"
 * (only a dragon can go there); ``payable``: the open spaces of ``here`` that the player can pay now. */
export function board(view, targets = new Map(), here = null, payable = new Set(), catalogue = {}, last = null) {
  const tiles = view.city.map((cell) => {
    const x = cell.col * SIZE;
    const y = cell.row * SIZE;
    const spaces = cell.spaces.map((s, i) => space(s, i, x, y, cell.tile === here && payable.has(i)));
    const standing = view.players.filter((p) => p.position === cell.tile);
    const figures = standing.map((p) => `P${p.seat}`).join(" ");
    const dragons = Object.entries(view.dragons)
      .filter(([, at]) => at === cell.tile)
      .map(([d]) => dragonName(d))
      .join(", ");
    // each figure a pawn in its seat's colour, the viewer's ringed; each dragon a diamond of its colour
    const pawns = standing.map(
      (p, k) => svg`<g class=${p.seat === view.viewer ? "figure mine" : "figure"} data-seat=${p.seat}
        transform="translate(${x + SIZE - 16 - k * 20},${y + 34})"><circle r="8" fill=${SEAT_COLOURS[p.seat]}
        stroke=${p.seat === view.viewer ? "#000" : "#fff"} stroke-width=${p.seat === view.viewer ? 3 : 1.5}/></g>`,
    );
    const shapes = Object.entries(view.dragons)
      .filter(([, at]) => at === cell.tile)
      .map(
        ([d], k) => svg`<polygon class="dragon"
        data-dragon=${d} points=${diamond(x + SIZE - 16 - k * 18, y + 52)} fill=${DRAGON_FILL[d]} stroke="#fff"/>`,
      );
    const target = targets.get(cell.tile);
    const spec = catalogue[cell.tile];
    const told = spec ? `${capital(named(cell.tile))}: ${rewards(spec)}` : "";
    const about = spec ? svg`<title>${told}</title>` : nothing; // the tooltip
    // a target is a button: focusable, styled by its kind, named by what it shows (the tile,
    // who stands there, its spaces: a name that holds all the button shows) and described by
    // what a press does and what completing the building pays
    const highlight = svg`<rect class="last" x=${x + 7} y=${y + 7} width=${SIZE - 14} height=${SIZE - 14} rx="6"
      fill="none" stroke="#e67e22" stroke-width="3" stroke-dasharray="6 4"/>`;
    const reach = svg`<text class="reach" x=${x + SIZE - 10} y=${y + 20} text-anchor="end" font-size="14"
      font-weight="700" fill="#2b4c9a">${target === "power" ? "✧" : "➜"}</text>`;
    const kind = target ? `target ${target === "power" ? "" : "walk "}${target}` : nothing;
    return svg`<g data-tile=${cell.tile} class=${kind}
        tabindex=${target ? "0" : nothing} role=${target ? "button" : nothing}
        aria-description=${target ? [said(target), told].filter(Boolean).join(". ") : nothing}
      >${about}<rect x=${x + 2} y=${y + 2} width=${SIZE - 4} height=${SIZE - 4} rx="8"
        class=${cell.reconstructed ? "tile rebuilt" : "tile rubble"}
        fill=${cell.reconstructed ? "#f6e7a8" : "url(#rubble)"}
        stroke=${cell.reconstructed ? "#b8860b" : "#888"} stroke-width="2"/>
      ${cell.tile === last ? highlight : nothing}
      ${target ? reach : nothing}
      <text x=${x + 8} y=${y + 20} font-size="12" font-weight="600" textLength=${fitted(named(cell.tile))}
        lengthAdjust="spacingAndGlyphs">${named(cell.tile)}</text>
      <text x=${x + 8} y=${y + 38} font-size="11" fill="#1d2233">${figures}</text>
      <text x=${x + 8} y=${y + 52} font-size="10" fill="#1d2233">${dragons}</text>${pawns}${shapes}${spaces}</g>`;
  });
  const dragonsOut = Object.entries(view.dragons)
    .filter(([, at]) => at === null)
    .map(([d]) => d);
  // rubble is hatched and rebuilt is plain gold, so the two differ without colour too
  const rubble = svg`<defs><pattern id="rubble" width="10" height="10" patternUnits="userSpaceOnUse"
      patternTransform="rotate(45)">
    <rect width="10" height="10" fill="#e9e4d6"/><line x1="0" y1="0" x2="0" y2="10" stroke="#cfc8b4" stroke-width="3"/>
    </pattern></defs>`;
  const outside = dragonsOut.length ? t("board.outside", { dragons: dragonsOut.map(dragonName).join(", ") }) : "";
  return html`<div class="city"><svg viewBox="0 0 ${5 * SIZE} ${5 * SIZE}" role="group" aria-label=${t("board.city")}
      >${rubble}${tiles}</svg></div>
    ${obeliskDrawn(view)}
    <p>${t("board.supply", { scales: view.scale_supply, count: view.deck_size })}
    ${outside} ${t("board.legend")}</p>`;
}

/** A long tile name (Городская резиденция) squeezed into its tile, beside the ➜ mark; a short one
 * as it is. */
const NAME_ROOM = SIZE - 30;
const fitted = (name) => (name.length * 6.8 > NAME_ROOM ? NAME_ROOM : nothing);

const diamond = (cx, cy) => `${cx},${cy - 8} ${cx + 7},${cy} ${cx},${cy + 8} ${cx - 7},${cy}`;

/** The obelisk, bottom up: each space with its cost, an offering's space in its seat's colour. */
function obeliskDrawn(view) {
  const W = 34;
  const spaces = view.obelisk.map((o, i) => {
    const open = o.marker === null;
    return svg`<g class=${open ? "obelisk-space" : "obelisk-space taken"} data-owner=${o.marker ?? nothing}
      transform="translate(${i * W + 2},2)"><rect width=${W - 4} height="30" rx="4"
      fill=${open ? "#fff" : SEAT_COLOURS[o.marker]} stroke="#555"/>
      <text x=${(W - 4) / 2} y="20" text-anchor="middle" font-size="12" font-weight="700"
        fill=${open ? "#1d2233" : "#fff"}>${open ? o.value : `P${o.marker}`}</text></g>`;
  });
  const said = view.obelisk.map((o) => (o.marker === null ? o.value : `P${o.marker}`)).join(" · ");
  return html`<svg id="obelisk" viewBox="0 0 ${view.obelisk.length * W + 4} 34" role="img"
    aria-label=${t("board.obelisk", { spaces: said })}>${spaces}</svg>`;
}

/** Call ``act(tile)`` or ``pay(space)`` when a target is clicked or pressed (Enter, Space). */
export function listen(element, act, pay) {
  const fire = (event) => {
    const spot = event.target.closest("[data-space]");
    if (spot) {
      pay(Number(spot.dataset.space));
      return true;
    }
    const tile = event.target.closest("[data-tile].target");
    if (tile) {
      act(tile.dataset.tile);
      return true;
    }
    return false;
  };
  element.addEventListener("click", fire);
  element.addEventListener("keydown", (event) => {
    if ((event.key === "Enter" || event.key === " ") && fire(event)) event.preventDefault();
  });
}
