// A review's decisions in words (GET /games/{game}/review's mistakes: the command played and the
// better one). Most are worded as the play page's buttons word them (command_words.js); a
// contribution and the Reset, which the play page offers through controls of their own, are
// worded here: the building, the space and the cards paid; the cards discarded.
import { words as commandWords } from "/web/command_words.js";
import { listed, t } from "/web/i18n.js";
import { named } from "/web/names.js";
import { described } from "/web/pay.js";

const REVIEW_WORDS = {
  contribute: (c, view) => {
    const printed = view.city?.find((tile) => tile.tile === c.building)?.spaces?.[c.space]?.colour;
    return t("review.contribute", {
      tile: named(c.building),
      space: c.space + 1,
      payment: described(c, c.colour ?? printed),
    });
  },
  end_turn: (c) =>
    c.discards?.length ? t("review.endTurnDiscarding", { cards: listed(c.discards) }) : t("review.endTurn"),
};

/** The command ``c`` (as the review names it) in words, for ``seat`` in the finished game's ``view``. */
export function decisionWords(c, view, seat) {
  const words = REVIEW_WORDS[c.type];
  return words ? words(c, view) : commandWords(c, view, seat);
}
