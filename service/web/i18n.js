// The pages' words in the reader's language. Each language is one catalogue,
// /web/i18n/<language>.json: key -> text with {placeholders}, or, for a text that depends on a
// number, an object of Intl.PluralRules categories ("one", "few", "many", "other") chosen by the
// `count` placeholder. Every call of t or tParts names its key as a literal string, so that
// tests/unit/test_translations.py finds every key the pages use and checks each language has it.
// The language is the one picked on the page (kept in localStorage), else the browser's first
// language we have, else English; this module loads its catalogue before any page script runs.
import { file } from "/web/transport.js";

export const LANGUAGES = { en: "English", de: "Deutsch", ru: "Русский", pt: "Português" };
const KEPT = "bluemoon.language";
const changed = []; // what to redraw when the language changes

let language = "en";
let words = {};

function kept() {
  try {
    return localStorage.getItem(KEPT);
  } catch {
    return null;
  } // storage may be off
}

/** The picked language, else the browser's first language we have, else English. */
function preferred() {
  const picked = kept();
  if (picked && Object.hasOwn(LANGUAGES, picked)) return picked;
  const found = (navigator.languages ?? [navigator.language])
    .map((tag) => tag.toLowerCase().split("-")[0])
    .find((base) => Object.hasOwn(LANGUAGES, base));
  return found ?? "en";
}

async function load(code) {
  words = await file(`/web/i18n/${code}.json`);
  language = code;
  document.documentElement.lang = code;
  translateMarkup();
}

export const currentLanguage = () => language;

/** The text of ``text`` (a catalogue entry) for ``params``, cut at its placeholders: the literal
 * parts and the named values alternate, so a value may be markup (a lit-html template). */
function pieces(text, params) {
  const chosen =
    typeof text === "object" ? (text[new Intl.PluralRules(language).select(params.count)] ?? text.other) : text;
  return chosen
    .split(/\{(\w+)\}/)
    .map((part, i) => (i % 2 === 0 ? part : Object.hasOwn(params, part) ? params[part] : `{${part}}`));
}

/** The text of ``key`` in the page's language, its {placeholders} filled from ``params``. */
export function t(key, params = {}) {
  return say(key, params);
}

// (the keys of the HTML's data-i18n attributes are found in the HTML, not in calls of t)
function say(key, params = {}) {
  const text = words[key];
  return text === undefined ? key : pieces(text, params).join("");
}

/** As t, but as a list of texts and values for a template: a value may be markup (a link, bold). */
export function tParts(key, params = {}) {
  const text = words[key];
  return text === undefined ? [key] : pieces(text, params);
}

/** A number with ``digits`` decimals, written as the page's language writes it (12.5, 12,5). */
export const decimal = (x, digits = 1) =>
  new Intl.NumberFormat(language, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);

/** Words for a list (a, b and c) in the page's language. */
export const listed = (items) => new Intl.ListFormat(language, { type: "conjunction" }).format(items.map(String));

/**
 * What went wrong, in words. ``said`` is null (nothing), a function (a message of the page,
 * worded when shown, so it follows a change of language) or an API problem document (RFC 9457):
 * a problem is worded from its stable ``code`` (problem.<code>, its members as placeholders),
 * and a code this page does not know yet shows the server's own (English) ``detail``.
 */
export function explain(said) {
  if (!said) return "";
  if (typeof said === "function") return said();
  const text = words[`problem.${said.code}`];
  const worded = text === undefined ? said.detail || said.title || `HTTP ${said.status}` : pieces(text, said).join("");
  return said.errors && typeof said.errors === "object" ? [worded, ...fieldErrors(said.errors)].join(" ") : worded;
}

/** The form fields a malformed request's ``errors`` name, by their labels on the page. */
const FIELD_LABELS = {
  seats: "lobby.seats",
  edition: "lobby.edition",
  players: "lobby.players",
  bots: "lobby.bots",
  turn_deadline: "lobby.deadline",
  deadline_level: "lobby.deadlineLevel",
  clock: "lobby.clock",
  "clock.bank_seconds": "lobby.bank",
  "clock.increment_seconds": "lobby.increment",
  "clock.cap_seconds": "lobby.cap",
  rating_range: "lobby.ratingsFrom",
  "rating_range.min": "lobby.lowest",
  "rating_range.max": "lobby.highest",
  "email.delay_seconds": "alerts.delay",
  "discord.url": "alerts.field.discord",
  "slack.url": "alerts.field.slack",
  "quiet_hours.start": "alerts.quietFrom",
  "quiet_hours.end": "alerts.quietTo",
  "quiet_hours.time_zone": "alerts.zone",
  language: "alerts.language",
  reason: "reports.reason",
};

/**
 * Each field of a problem's ``errors`` (RFC 9457 extension: field, or nested fields, to a list
 * of messages) as "label: message", so a form says which field and why, not only that the
 * request was malformed. The messages are the server's (English); the labels are the page's.
 */
function fieldErrors(errors, path = []) {
  return Object.entries(errors).flatMap(([name, said]) => {
    const at = name === "_schema" ? path : [...path, name];
    if (!Array.isArray(said)) return typeof said === "object" && said ? fieldErrors(said, at) : [];
    const key = FIELD_LABELS[at.join(".")];
    const label = key ? say(key) : at.join(".");
    const messages = said.map(String).join(" ");
    return [label ? `${label}: ${messages}` : messages];
  });
}

/** Call ``redraw`` whenever the reader picks another language. */
export const onLanguageChange = (redraw) => {
  changed.push(redraw);
};

/** The static text of the page's HTML: an element's data-i18n names its text, data-i18n-label its accessible name. */
function translateMarkup() {
  for (const element of document.querySelectorAll("[data-i18n]")) element.textContent = say(element.dataset.i18n);
  for (const element of document.querySelectorAll("[data-i18n-label]"))
    element.setAttribute("aria-label", say(element.dataset.i18nLabel));
}

/** The header's language picker (<select id="language">): each language named in itself. */
function picker() {
  const select = document.getElementById("language");
  if (!select) return;
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = new Option(name, code, false, code === language);
    option.lang = code;
    select.append(option);
  }
  select.addEventListener("change", async () => {
    try {
      localStorage.setItem(KEPT, select.value);
    } catch {
      /* not kept: this page still changes */
    }
    await load(select.value);
    for (const redraw of changed) redraw();
  });
}

await load(preferred());
picker();
