// What each event of the log says, in words in the page's language: event type -> function of
// the event's data.
import { t } from "/web/i18n.js";
import { dragonObject, endingName, named, rewardReason } from "/web/names.js";

const who = (d) => (d.seat === undefined ? t("event.someone") : `P${d.seat}`);
const sends = (d) =>
  d.to
    ? t("event.DragonSent", { who: who(d), dragon: dragonObject(d.dragon), tile: named(d.to), card: d.card })
    : t("event.DragonSent.outside", { who: who(d), dragon: dragonObject(d.dragon), card: d.card });

export const EVENT_WORDS = {
  GameCreated: (d) => t("event.GameCreated", { count: d.players }),
  DeckShuffled: () => t("event.DeckShuffled"),
  CardsDealt: (d) => t("event.CardsDealt", { who: who(d), count: d.count }),
  PositionSet: () => t("event.PositionSet"),
  TurnStarted: (d) => t("event.TurnStarted", { number: d.number, seat: d.seat }),
  FigureMoved: (d) => t("event.FigureMoved", { who: who(d), tile: named(d.to) }),
  FigureFlown: (d) => t("event.FigureFlown", { who: who(d), tile: named(d.to), card: d.card }),
  StepsGained: (d) => t("event.StepsGained", { who: who(d), count: d.steps, card: d.card }),
  DragonFlown: sends,
  DragonMoved: sends,
  ContributionPhaseBegan: (d) => t("event.ContributionPhaseBegan", { who: who(d) }),
  ContributionMade: (d) =>
    t("event.ContributionMade", {
      who: who(d),
      tile: named(d.building),
      space: d.space + 1,
      cards: d.cards.join(", "),
    }),
  Rewarded: (d) =>
    t("event.Rewarded", {
      who: who(d),
      crystals:
        d.crystals === null || d.crystals === undefined
          ? t("event.Rewarded.hidden")
          : t("event.crystals", { count: d.crystals }),
      scales: t("event.scales", { count: d.scales }),
      reason: rewardReason(d.reason),
    }),
  BuildingCompleted: (d) => t("event.BuildingCompleted", { tile: named(d.building) }),
  ScalesScored: () => t("event.ScalesScored"),
  OfferingMade: (d) => t("event.OfferingMade", { who: who(d), count: d.cost }),
  ActionUsed: (d) =>
    d.to
      ? t("event.ActionUsed.to", { who: who(d), building: named(d.building), tile: named(d.to) })
      : t("event.ActionUsed", { who: who(d), building: named(d.building) }),
  CardsDiscarded: (d) => t("event.CardsDiscarded", { who: who(d), count: d.cards.length }),
  DeckReshuffled: () => t("event.DeckReshuffled"),
  CardsDrawn: (d) => t("event.CardsDrawn", { who: who(d), count: d.count }),
  AsideJoined: (d) => t("event.AsideJoined", { who: who(d), count: d.count }),
  TurnEnded: (d) => t("event.TurnEnded", { who: who(d) }),
  TurnTakenBack: (d) => t("event.TurnTakenBack", { who: who(d) }),
  GameEnded: (d) => t("event.GameEnded", { reason: endingName(d.reason) }),
};

/** One event in words; a type this page does not know yet is named as it is. */
export function describe(event) {
  const words = EVENT_WORDS[event.type];
  return words ? words(event.data) : `${event.data.seat === undefined ? "" : `P${event.data.seat} `}${event.type}`;
}
