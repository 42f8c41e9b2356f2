// What each command /legal offers says on its button: command type -> function of the command
// and of where it is played (the dragon its card sends, the obelisk's next value, the tile the
// figure stands on), in the page's language.
import { t } from "/web/i18n.js";
import { dragonObject, named } from "/web/names.js";
import { colourOf } from "/web/pay.js";
import { PEOPLES } from "/web/peoples.js";

const { grey: FLIT, yellow: PILLAR } = PEOPLES;

export const COMMAND_WORDS = {
  move: (c) => t("command.move", { tile: named(c.to) }),
  fly_figure: (c) => t("command.fly_figure", { tile: named(c.to), card: c.card, people: FLIT.name }),
  gain_steps: (c) => t("command.gain_steps", { card: c.card, people: FLIT.name }),
  fly_dragon: (c, { dragon }) =>
    c.to
      ? t("command.fly_dragon", { dragon, tile: named(c.to), card: c.card })
      : t("command.fly_dragon.outside", { dragon, card: c.card }),
  move_dragon: (c, { dragon }) => t("command.move_dragon", { dragon, tile: named(c.to), card: c.card }),
  offer: (c, { next }) =>
    c.pillar ? t("command.offer.pillar", { card: c.pillar, people: PILLAR.name }) : t("command.offer", { count: next }),
  use_action: (c, { here }) =>
    c.to ? t("command.use_action.main_hall", { tile: named(c.to) }) : t("command.use_action", { tile: named(here) }),
  take_back: () => t("command.take_back"),
};

/** A command's button text in ``view`` for the seat ``seat``; an unknown type is named as it is. */
export function words(c, view, seat) {
  const words = COMMAND_WORDS[c.type];
  if (!words) return c.type;
  const dragon = c.card && PEOPLES[colourOf(c.card)].dragon ? dragonObject(PEOPLES[colourOf(c.card)].dragon) : "";
  return words(c, {
    dragon,
    next: view.obelisk.find((o) => o.marker === null)?.value,
    here: view.players[seat].position,
  });
}
