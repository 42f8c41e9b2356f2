// Paying a space by ticking cards: what the ticked cards are worth (the running total, by the
// colour rules: Khind wild 1, Mimix pairs worth 3, Hoax recolouring) and which of /legal's
// contributions they make. The running total only guides; /legal has the last word, and only
// its payments are ever sent.
import { t } from "/web/i18n.js";
import { colourName } from "/web/names.js";
import { PEOPLES } from "/web/peoples.js";

export const colourOf = (card) => card.split("-")[0];
export const valueOf = (card) => Number(card.split("-")[1][0]);
const kind = (card) => card.slice(0, -1); // cards of one colour and value are interchangeable
const kinds = (cards) => cards.map(kind).sort().join(" ");

/** The cards a contribution spends: the paying cards and its Hoax cards. */
export const spent = (command) => [...command.cards, ...(command.hoax ?? []).map((h) => h.card)];

/** {total, problem}: what ``cards`` pay towards a space of ``colour`` (for `any`, the chosen one). */
export function worth(cards, colour) {
  const isHoax = (c) => colour !== "white" && colourOf(c) === "white" && valueOf(c) < 3;
  let recolours = cards.filter(isHoax).reduce((n, c) => n + (valueOf(c) === 1 ? 4 : 1), 0);
  let total = 0;
  let mimix = 0;
  let brownOnes = 0;
  let problem = "";
  for (const c of cards.filter((card) => !isHoax(card))) {
    if (colourOf(c) === colour) {
      total += valueOf(c);
      brownOnes += colour === "brown" && valueOf(c) === 1;
    } else if (colourOf(c) === "green") total += 1;
    else if (colourOf(c) === "brown" && valueOf(c) < 3) mimix += 1;
    else if (recolours > 0) {
      recolours -= 1;
      total += valueOf(c);
    } else problem = t("pay.needsHoax", { card: c, colour: colourName(colour), people: PEOPLES.white.name });
  }
  if (mimix % 2) problem ||= t("pay.loneMimix", { people: PEOPLES.brown.name });
  return { total: total + 3 * Math.floor(mimix / 2) + Math.floor(brownOnes / 2), problem };
}

/** /legal's contributions to this space that spend exactly the ticked cards (by kind). */
export function matching(payments, ticked, colour) {
  const want = kinds(ticked);
  return payments.filter(
    (c) => kinds(spent(c)) === want && (c.colour === undefined || c.colour === null || c.colour === colour),
  );
}

/** Words for one payment: its cards, its colour and what its Hoax cards recolour. */
export function described(command, colour) {
  const hoax = (command.hoax ?? [])
    .map((h) => ` (${t("pay.hoax", { card: h.card, targets: h.targets.join(", "), colour: colourName(colour) })})`)
    .join("");
  return `${command.cards.join(" + ")}${hoax}`;
}

/** What to tell the payer about the ticked cards. */
export function advice(ticked, colour, need, found) {
  const { total, problem } = worth(ticked, colour);
  if (found.length) return t("pay.ready", { total, need });
  if (problem) return t("pay.problem", { total, need, problem });
  if (!ticked.length) return t("pay.none", { need });
  return total < need ? t("pay.more", { total, need }) : t("pay.tooMuch", { total, need });
}
