// The eight peoples, one entry per card colour (in the deck's order): a symbol, so that no one
// needs to tell the colours apart (cards and spaces carry it beside the colour), the name on the card, its
// power in words, the card's colour on the board (app.css's .c-* classes paint the cards alike),
// whether a number written on that colour is white, and the dragon a Vulca, Terrah or Aqua card
// sends. The texts stay in this one table so that translations can be keyed by colour.
export const PEOPLES = {
  black: { symbol: "▲", name: "Vulca", fill: "#333", dark: true, dragon: "red", power: "1 puts the red dragon on any tile or outside the city; 2 moves it up to 3 steps." },
  red: { symbol: "■", name: "Terrah", fill: "#b8362a", dark: true, dragon: "green", power: "1 puts the green dragon on any tile or outside the city; 2 moves it up to 3 steps." },
  blue: { symbol: "●", name: "Aqua", fill: "#2f62c2", dark: true, dragon: "blue", power: "1 puts the blue dragon on any tile or outside the city; 2 moves it up to 3 steps." },
  grey: { symbol: "✦", name: "Flit", fill: "#9aa0a6", dark: false, power: "1 puts your figure on any tile; 2 gives two more steps." },
  green: { symbol: "♣", name: "Khind", fill: "#2b7a3d", dark: true, power: "joins any contribution as a wild 1; on green, its printed value." },
  brown: { symbol: "◆", name: "Mimix", fill: "#8d5b34", dark: true, power: "two 1s or 2s together pay a wild 3; on brown, two 1s pay 3." },
  white: { symbol: "○", name: "Hoax", fill: "#fff", dark: false, power: "1 makes up to 4 cards of one colour count as the space's colour; 2 makes 1 card." },
  yellow: { symbol: "★", name: "Pillar", fill: "#f1cf3b", dark: false, power: "after an offering, one more at the next space: 1 crystal more with a 1, 2 more with a 2." },
};

/** The symbol of a space's colour; ✱ for a space of any colour (the expansion's). */
export const symbolOf = (colour) => PEOPLES[colour]?.symbol ?? "✱";
