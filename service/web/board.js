// The city drawn as SVG. A tile that a legal command can reach is a button (click, Enter or
// Space); an open space that the player can pay now is one too. The page decides what they do.
import { html, nothing, svg } from "/web/html.js";
import { PEOPLES, symbolOf } from "/web/peoples.js";

const SIZE = 120;
// a space of any colour (the expansion's) is light grey, with its number in black
const FILL = { any: "#ddd", ...Object.fromEntries(Object.entries(PEOPLES).map(([colour, p]) => [colour, p.fill])) };
const DARK = new Set(Object.keys(PEOPLES).filter((colour) => PEOPLES[colour].dark));
export const named = (tile) => tile.replaceAll("_", " ");

function space(s, i, x, y, payable) {
  const open = s.marker === null;
  const label = `${s.colour} ${s.value}${open ? ", open" : `, marker of seat ${s.marker}`}`;
  return svg`<g transform="translate(${x + 14 + i * 28},${y + 70})" class=${payable ? "payable" : nothing} data-space=${payable ? i : nothing}>
    <circle r="12" fill=${FILL[s.colour]} stroke="#333"/>
    <text text-anchor="middle" dy="8" font-size="10" font-weight="700" fill=${DARK.has(s.colour) ? "#fff" : "#000"}>${open ? s.value : `P${s.marker}`}</text>
    <text text-anchor="middle" dy="-2" font-size="8" class="symbol" aria-hidden="true" fill=${DARK.has(s.colour) ? "#fff" : "#000"}>${symbolOf(s.colour)}</text>
    <title>${label}${payable ? ": click to pay it" : ""}</title></g>`;
}

const paid = (r) => [[r.crystals, "crystal"], [r.scales, "scale"], [r.cards, "card"]]
  .filter(([n]) => n).map(([n, what]) => `${n} ${what}${n > 1 ? "s" : ""}`).join(", ") || "nothing";

/** What completing a building pays (GET /catalogue), in words. */
export function rewards(spec) {
  return `completing it pays ${paid(spec.majority)} to the most markers, ${paid(spec.construction)} to each contributor; `
    + `a building completed next to it once rebuilt pays its contributors ${paid(spec.neighbourhood)}`;
}

const SAID = { step: "go here", walk: "go here with a power", power: "powers here" };

/** The board's template (each building's rewards as its tooltip, from ``catalogue``). ``targets``: tile -> "step" (a step takes the figure there), "walk" (a
 * power or the Main Hall can) or "power" (only a dragon can go there); ``payable``: the open
 * spaces of ``here`` that the player can pay now. */
export function board(view, targets = new Map(), here = null, payable = new Set(), catalogue = {}) {
  const tiles = view.city.map((t) => {
    const x = t.col * SIZE;
    const y = t.row * SIZE;
    const spaces = t.spaces.map((s, i) => space(s, i, x, y, t.tile === here && payable.has(i)));
    const figures = view.players.filter((p) => p.position === t.tile).map((p) => `P${p.seat}`).join(" ");
    const dragons = Object.entries(view.dragons).filter(([, at]) => at === t.tile).map(([d]) => `${d} dragon`).join(", ");
    const target = targets.get(t.tile);
    const spec = catalogue[t.tile];
    const told = spec ? `${spec.name}: ${rewards(spec)}` : "";
    const about = spec ? svg`<title>${told}</title>` : nothing; // the tooltip
    // a target is a button: focusable, styled by its kind, named by what it shows (the tile,
    // who stands there, its spaces: a name that holds all the button shows) and described by
    // what a press does and what completing the building pays
    return svg`<g data-tile=${t.tile} class=${target ? `target ${target === "power" ? "" : "walk "}${target}` : nothing}
        tabindex=${target ? "0" : nothing} role=${target ? "button" : nothing}
        aria-description=${target ? [SAID[target], told].filter(Boolean).join(". ") : nothing}
      >${about}<rect x=${x + 2} y=${y + 2} width=${SIZE - 4} height=${SIZE - 4} rx="8"
        fill=${t.reconstructed ? "#f6e7a8" : "#e9e4d6"} stroke=${t.reconstructed ? "#b8860b" : "#888"} stroke-width="2"/>
      <text x=${x + 8} y=${y + 20} font-size="12" font-weight="600">${named(t.tile)}</text>
      <text x=${x + 8} y=${y + 38} font-size="11" fill="#2b4c9a">${figures}</text>
      <text x=${x + 8} y=${y + 52} font-size="10" fill="#a4161a">${dragons}</text>${spaces}</g>`;
  });
  const obelisk = view.obelisk.map((o) => (o.marker === null ? o.value : `P${o.marker}`)).join(" · ");
  const dragonsOut = Object.entries(view.dragons).filter(([, at]) => at === null).map(([d]) => d);
  return html`<svg viewBox="0 0 ${5 * SIZE} ${5 * SIZE}" role="group" aria-label="the city">${tiles}</svg>
    <p>Obelisk (bottom up): ${obelisk}. Golden scales in supply: ${view.scale_supply}. Deck: ${view.deck_size} cards.
    ${dragonsOut.length ? `Outside the city: ${dragonsOut.join(", ")} dragon.` : ""} Gold tiles are rebuilt, grey ones still rubble.</p>`;
}

/** Call ``act(tile)`` or ``pay(space)`` when a target is clicked or pressed (Enter, Space). */
export function listen(element, act, pay) {
  const fire = (event) => {
    const spot = event.target.closest("[data-space]");
    if (spot) { pay(Number(spot.dataset.space)); return true; }
    const tile = event.target.closest("[data-tile].target");
    if (tile) { act(tile.dataset.tile); return true; }
    return false;
  };
  element.addEventListener("click", fire);
  element.addEventListener("keydown", (event) => {
    if ((event.key === "Enter" || event.key === " ") && fire(event)) event.preventDefault();
  });
}
