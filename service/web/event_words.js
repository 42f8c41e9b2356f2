// What each event of the log says, in words: event type -> function of the event's data. One
// table, so that translations can be keyed by event type.
import { named } from "/web/board.js";

const who = (d) => (d.seat === undefined ? "" : `P${d.seat} `);
const cards = (n) => `${n} card${n === 1 ? "" : "s"}`;
const sends = (d) => `${who(d)}sends the ${d.dragon} dragon to ${d.to ? named(d.to) : "outside the city"} (${d.card})`;

export const EVENT_WORDS = {
  GameCreated: (d) => `the game is set up for ${d.players} players`,
  DeckShuffled: () => "the deck is shuffled",
  CardsDealt: (d) => `${who(d)}is dealt ${cards(d.count)}`,
  PositionSet: () => "the scenario's position is set",
  TurnStarted: (d) => `turn ${d.number}: P${d.seat}`,
  FigureMoved: (d) => `${who(d)}steps to ${named(d.to)}`,
  FigureFlown: (d) => `${who(d)}flies to ${named(d.to)} (${d.card})`,
  StepsGained: (d) => `${who(d)}gains ${d.steps} steps (${d.card})`,
  DragonFlown: sends,
  DragonMoved: sends,
  ContributionPhaseBegan: (d) => `${who(d)}has finished moving`,
  ContributionMade: (d) => `${who(d)}pays ${named(d.building)} space ${d.space + 1} with ${d.cards.join(", ")}`,
  Rewarded: (d) => `${who(d)}gets ${d.crystals ?? "some"} crystals, ${d.scales} scale(s) (${d.reason})`,
  BuildingCompleted: (d) => `${named(d.building)} is rebuilt`,
  ScalesScored: () => "the golden scales are scored",
  OfferingMade: (d) => `${who(d)}makes an offering (${d.cost} crystals)`,
  ActionUsed: (d) => `${who(d)}uses the ${named(d.building)}${d.to ? ` to go to ${named(d.to)}` : ""}`,
  CardsDiscarded: (d) => `${who(d)}discards ${cards(d.cards.length)}`,
  DeckReshuffled: () => "the discard pile is shuffled into a new deck",
  CardsDrawn: (d) => `${who(d)}draws ${cards(d.count)}`,
  AsideJoined: (d) => `${who(d)}takes ${cards(d.count)} won this turn into the hand`,
  TurnEnded: (d) => `${who(d)}ends the turn`,
  TurnTakenBack: (d) => `${who(d)}takes back this turn's steps so far`,
  GameEnded: (d) => `the game ends (${d.reason})`,
};

/** One event in words; a type this page does not know yet is named as it is. */
export function describe(event) {
  const words = EVENT_WORDS[event.type];
  return words ? words(event.data) : `${who(event.data)}${event.type}`;
}
