// The eight peoples, one entry per card colour (in the deck's order): a symbol, so that no one
// needs to tell the colours apart (cards and spaces carry it beside the colour), the name on the
// card (a proper noun in every language), the card's colour on the board (app.css's .c-* classes
// paint the cards alike), whether a number written on that colour is white, and the dragon a
// Vulca, Terrah or Aqua card sends. Each power in words is in the catalogues, keyed by colour.
import { t } from "/web/i18n.js";

export const PEOPLES = {
  black: { symbol: "▲", name: "Vulca", fill: "#333", dark: true, dragon: "red" },
  red: { symbol: "■", name: "Terrah", fill: "#b8362a", dark: true, dragon: "green" },
  blue: { symbol: "●", name: "Aqua", fill: "#2f62c2", dark: true, dragon: "blue" },
  grey: { symbol: "✦", name: "Flit", fill: "#9aa0a6", dark: false },
  green: { symbol: "♣", name: "Khind", fill: "#2b7a3d", dark: true },
  brown: { symbol: "◆", name: "Mimix", fill: "#8d5b34", dark: true },
  white: { symbol: "○", name: "Hoax", fill: "#fff", dark: false },
  yellow: { symbol: "★", name: "Pillar", fill: "#f1cf3b", dark: false },
};

/** The symbol of a space's colour; ✱ for a space of any colour (the expansion's). */
export const symbolOf = (colour) => PEOPLES[colour]?.symbol ?? "✱";

/** A people's power in words, in the page's language. */
export const powerOf = (colour) =>
  ({
    black: t("power.black"),
    red: t("power.red"),
    blue: t("power.blue"),
    grey: t("power.grey"),
    green: t("power.green"),
    brown: t("power.brown"),
    white: t("power.white"),
    yellow: t("power.yellow"),
  })[colour] ?? "";
