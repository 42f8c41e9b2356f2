// The game's nouns in the page's language: tiles, colours, dragons, bot levels, phases, seat
// kinds and the reasons a reward is paid or a game ends. Each table is a function, so that it
// is worded anew in the language of the moment; a value the page does not know yet is shown as
// the API names it.
import { t } from "/web/i18n.js";

const tiles = () => ({
  courtyard: t("tile.courtyard"),
  royal_palace: t("tile.royal_palace"),
  fire_temple: t("tile.fire_temple"),
  earth_temple: t("tile.earth_temple"),
  water_temple: t("tile.water_temple"),
  aqueduct: t("tile.aqueduct"),
  hospice: t("tile.hospice"),
  citadel: t("tile.citadel"),
  watchtower: t("tile.watchtower"),
  great_hall: t("tile.great_hall"),
  university: t("tile.university"),
  market_hall: t("tile.market_hall"),
  library: t("tile.library"),
  trading_house: t("tile.trading_house"),
  flight_tower: t("tile.flight_tower"),
  city_residence: t("tile.city_residence"),
  monastery_tower: t("tile.monastery_tower"),
  caravansera: t("tile.caravansera"),
  thermae: t("tile.thermae"),
  iron_foundry: t("tile.iron_foundry"),
  mill: t("tile.mill"),
  main_hall: t("tile.main_hall"),
  hospital: t("tile.hospital"),
  golden_shrine: t("tile.golden_shrine"),
  theatre: t("tile.theatre"),
});

const colours = () => ({
  black: t("colour.black"),
  red: t("colour.red"),
  blue: t("colour.blue"),
  grey: t("colour.grey"),
  green: t("colour.green"),
  brown: t("colour.brown"),
  white: t("colour.white"),
  yellow: t("colour.yellow"),
  any: t("colour.any"),
});

// a dragon named on its own ("red dragon") and as the object of a sentence ("the red dragon"):
// German and Russian decline it (den roten Drachen, красного дракона)
const dragons = () => ({ red: t("dragon.red"), green: t("dragon.green"), blue: t("dragon.blue") });
const dragonObjects = () => ({
  red: t("dragon.red.object"),
  green: t("dragon.green.object"),
  blue: t("dragon.blue.object"),
});

const levels = () => ({
  random: t("level.random"),
  greedy: t("level.greedy"),
  mcts: t("level.mcts"),
  planner: t("level.planner"),
  expert: t("level.expert"),
});

const phases = () => ({ movement: t("phase.movement"), contribution: t("phase.contribution") });

const kinds = () => ({ human: t("kind.human"), bot: t("kind.bot"), open: t("kind.open") });

const endings = () => ({
  offerings: t("ending.offerings"),
  rebuilt: t("ending.rebuilt"),
  draw: t("ending.draw"),
  stalemate: t("ending.stalemate"),
});

const rewardReasons = () => ({
  majority: t("reward.majority"),
  construction: t("reward.construction"),
  neighbourhood: t("reward.neighbourhood"),
  dragons: t("reward.dragons"),
});

const from = (table, value, otherwise = value) => table()[value] ?? otherwise;

export const named = (tile) => from(tiles, tile, tile.replaceAll("_", " "));
export const colourName = (colour) => from(colours, colour);
export const dragonName = (dragon) => from(dragons, dragon);
export const dragonObject = (dragon) => from(dragonObjects, dragon);
export const levelName = (level) => from(levels, level);
export const phaseName = (phase) => from(phases, phase);
export const kindName = (kind) => from(kinds, kind);
export const endingName = (reason) => from(endings, reason);
export const rewardReason = (reason) => from(rewardReasons, reason);

/** A sentence's first letter in capitals ("earth temple: …" → "Earth temple: …"). */
export const capital = (text) => text.charAt(0).toLocaleUpperCase() + text.slice(1);
