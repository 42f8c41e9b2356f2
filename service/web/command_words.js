// What each command /legal offers says on its button: command type -> function of the command
// and of where it is played (the dragon its card sends, the obelisk's next value, the tile the
// figure stands on). One table, so that translations can be keyed by command type.
import { named } from "/web/board.js";
import { colourOf } from "/web/pay.js";
import { PEOPLES } from "/web/peoples.js";

const { grey: FLIT, yellow: PILLAR } = PEOPLES;

export const COMMAND_WORDS = {
  move: (c) => `Walk to ${named(c.to)}`,
  fly_figure: (c) => `Fly to ${named(c.to)} with ${c.card} (${FLIT.name})`,
  gain_steps: (c) => `Two more steps with ${c.card} (${FLIT.name})`,
  fly_dragon: (c, { dragon }) => (c.to ? `Put the ${dragon} dragon on ${named(c.to)} with ${c.card}` : `Put the ${dragon} dragon outside the city with ${c.card}`),
  move_dragon: (c, { dragon }) => `Move the ${dragon} dragon to ${named(c.to)} with ${c.card}`,
  offer: (c, { next }) => (c.pillar ? `Offer one more with ${c.pillar} (${PILLAR.name})` : `Offer ${next} crystals at the obelisk`),
  use_action: (c, { here }) => (c.to ? `Main Hall: go to ${named(c.to)}` : `Use the ${named(here)}'s action`),
  take_back: () => "Take back this turn's steps",
};

/** A command's button text in ``view`` for the seat ``seat``; an unknown type is named as it is. */
export function words(c, view, seat) {
  const words = COMMAND_WORDS[c.type];
  if (!words) return c.type;
  const dragon = c.card ? PEOPLES[colourOf(c.card)].dragon ?? "" : "";
  return words(c, { dragon, next: view.obelisk.find((o) => o.marker === null)?.value, here: view.players[seat].position });
}
