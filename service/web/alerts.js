// A signed-in person's turn alerts (issue 22), shown in the lobby: the channels (a mail after a
// delay, a push to each subscribed browser, Discord, Slack), quiet hours, deadline reminders, a
// vacation, and the last deliveries with their failures. Only the public API: /me/alerts,
// /me/push-subscriptions, /me/vacation and /me/alerts/deliveries. A browser is subscribed by the
// service worker (/sw.js), which shows the pushed alerts and opens the game when one is clicked.
import { html, nothing, render } from "/web/html.js";
import { currentLanguage, explain, LANGUAGES, onLanguageChange, t } from "/web/i18n.js";
import { pageState } from "/web/state.js";
import { api } from "/web/transport.js";

const $ = (id) => document.getElementById(id);
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC"; // quiet hours' default zone
const ZONES = Intl.supportedValuesOf?.("timeZone") ?? [];
const SHOWN_DELIVERIES = 20;

const [state, update] = pageState(
  {
    shown: false, // a person is signed in: the panel is shown
    settings: null, // GET /me/alerts
    deliveries: null, // GET /me/alerts/deliveries: the newest first
    vacation: null, // GET /me/vacation
    problem: null, // why the settings were not saved (a problem document, explained when shown)
    saved: false, // the settings were just saved
    pushNote: null, // what turning push on or off in this browser said (a problem or a message)
    here: null, // this browser's push endpoint, when it has a subscription
    vacationProblem: null, // why a vacation was refused
  },
  renderPanel,
);

function renderPanel() {
  $("alerts-section").hidden = !state.shown;
  render(state.shown && state.settings ? panel() : nothing, $("alerts"));
}

/** Show the panel for a signed-in person (and load their settings), or hide it. */
export async function showAlerts(signedIn) {
  if (!signedIn) {
    update({ shown: false, settings: null, deliveries: null, vacation: null, problem: null, pushNote: null });
    return;
  }
  update({ shown: true });
  await refresh();
}

async function refresh() {
  const [asked, deliveries, vacation] = await Promise.all([
    api("GET", "/me/alerts"),
    api("GET", "/me/alerts/deliveries"),
    api("GET", "/me/vacation"),
  ]);
  // never chosen: the alerts take the language this page is read in (the form can change it)
  const settings =
    asked.ok && asked.body.language === null
      ? await api("PATCH", "/me/alerts", { language: currentLanguage() })
      : asked;
  update({
    settings: settings.ok ? settings.body : state.settings,
    problem: settings.ok ? state.problem : settings.problem,
    deliveries: deliveries.ok ? deliveries.body.deliveries : state.deliveries,
    vacation: vacation.ok ? vacation.body : state.vacation,
    here: await thisBrowser(),
  });
}

const when = (iso) => new Date(iso).toLocaleString(currentLanguage(), { dateStyle: "medium", timeStyle: "short" });

function panel() {
  return html`<details id="alert-settings">
    <summary>${t("alerts.open")}</summary>
    ${settingsForm()}
    <h3>${t("alerts.vacation")}</h3>${vacationPanel()}
    <h3>${t("alerts.sent")}</h3>${deliveriesPanel()}</details>`;
}

// ---- the settings ---------------------------------------------------------------------------------
const FIELDS = () => ({
  email: t("alerts.field.email"),
  push: t("alerts.field.push"),
  discord: t("alerts.field.discord"),
  slack: t("alerts.field.slack"),
  quiet_hours: t("alerts.field.quiet"),
  deadline_reminders: t("alerts.field.reminders"),
  language: t("alerts.language"),
});

/** The settings a refusal names (its ``field`` and ``errors``), by their first part: discord.url -> discord. */
function refused(problem) {
  if (!problem || typeof problem === "function") return [];
  return [
    ...new Set([problem.field, ...Object.keys(problem.errors ?? {})].filter(Boolean).map((f) => f.split(".")[0])),
  ];
}

function problemText(problem) {
  const names = refused(problem)
    .map((f) => FIELDS()[f])
    .filter(Boolean);
  return names.length ? `${names.join(", ")}: ${explain(problem)}` : explain(problem);
}

function settingsForm() {
  const s = state.settings;
  const wrong = new Set(refused(state.problem));
  const invalid = (field) => (wrong.has(field) ? "true" : nothing);
  const quiet = s.quiet_hours ?? { start: "22:00", end: "08:00", time_zone: ZONE };
  const chosen = s.language ?? currentLanguage();
  const languages = Object.entries(LANGUAGES).map(
    ([code, name]) => html`<option value=${code} lang=${code} ?selected=${code === chosen}>${name}</option>`,
  );
  return html`<form id="alert-form" novalidate @submit=${save}>
    <fieldset><legend>${t("alerts.field.email")}</legend>
      <label><input type="checkbox" name="email" .checked=${s.email.enabled}> ${t("alerts.email")}</label>
      <label>${t("alerts.delay")} <input type="number" name="delay" min="0" max="1440" step="1" size="5"
        .value=${String(Math.round(s.email.delay_seconds / 60))} aria-invalid=${invalid("email")}></label>
    </fieldset>
    <fieldset><legend>${t("alerts.field.push")}</legend>
      <label><input type="checkbox" name="push" .checked=${s.push.enabled}> ${t("alerts.push")}</label>
      ${pushPanel()}
    </fieldset>
    <fieldset><legend>${t("alerts.chats")}</legend>
      <label>${t("alerts.discord")} <input type="url" name="discord" size="30"
        placeholder="https://discord.com/api/webhooks/…"
        .value=${s.discord?.url ?? ""} aria-invalid=${invalid("discord")}></label>
      <label>${t("alerts.slack")} <input type="url" name="slack" size="30"
        placeholder="https://hooks.slack.com/services/…"
        .value=${s.slack?.url ?? ""} aria-invalid=${invalid("slack")}></label>
      <p class="muted">${t("alerts.hookHelp")}</p>
    </fieldset>
    <fieldset><legend>${t("alerts.field.quiet")}</legend>
      <label><input type="checkbox" name="quiet" .checked=${Boolean(s.quiet_hours)}> ${t("alerts.quiet")}</label>
      <label>${t("alerts.quietFrom")} <input type="time" name="start" .value=${quiet.start}
        aria-invalid=${invalid("quiet_hours")}></label>
      <label>${t("alerts.quietTo")} <input type="time" name="end" .value=${quiet.end}
        aria-invalid=${invalid("quiet_hours")}></label>
      <label>${t("alerts.zone")} <input name="zone" list="time-zones" size="20" autocomplete="off"
        .value=${quiet.time_zone} aria-invalid=${invalid("quiet_hours")}></label>
      <datalist id="time-zones">${ZONES.map((zone) => html`<option value=${zone}></option>`)}</datalist>
    </fieldset>
    <label><input type="checkbox" name="reminders" .checked=${s.deadline_reminders}> ${t("alerts.reminders")}</label>
    <label>${t("alerts.language")} <select name="alert-language">${languages}</select></label>
    <p><button type="submit" class="primary" id="save-alerts">${t("alerts.save")}</button>
      <span role="status" id="alerts-saved">${state.saved ? t("alerts.saved") : ""}</span></p>
    <p class="problem" id="alerts-problem" role="alert">${state.problem ? problemText(state.problem) : ""}</p>
  </form>`;
}

async function save(event) {
  event.preventDefault();
  const field = (name) => event.target.elements.namedItem(name);
  const url = (name) => (field(name).value.trim() ? { url: field(name).value.trim() } : null);
  const minutes = Number(field("delay").value);
  const body = {
    email: { enabled: field("email").checked, delay_seconds: Number.isFinite(minutes) ? Math.round(minutes * 60) : -1 },
    push: { enabled: field("push").checked },
    discord: url("discord"),
    slack: url("slack"),
    quiet_hours: field("quiet").checked
      ? { start: field("start").value, end: field("end").value, time_zone: field("zone").value.trim() }
      : null,
    deadline_reminders: field("reminders").checked,
    language: field("alert-language").value,
  };
  update({ saved: false });
  const saved = await api("PATCH", "/me/alerts", body);
  update(saved.ok ? { settings: saved.body, problem: null, saved: true } : { problem: saved.problem });
}

// ---- push to this browser -------------------------------------------------------------------------
const pushable = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

/** This browser's push endpoint, if it is subscribed; null otherwise (or where push is missing). */
async function thisBrowser() {
  if (!pushable()) return null;
  try {
    const registration = await navigator.serviceWorker.getRegistration("/");
    return (await registration?.pushManager.getSubscription())?.endpoint ?? null;
  } catch {
    return null;
  }
}

/** The service's VAPID key (base64url, an uncompressed P-256 point) as the bytes subscribe wants. */
function keyBytes(key) {
  const text = atob(key.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (key.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function pushPanel() {
  const subscriptions = state.settings.push_subscriptions;
  const mine = subscriptions.find((s) => s.endpoint === state.here);
  const action = mine
    ? html`<span>${t("alerts.thisBrowser")}</span> <button type="button" id="push-unsubscribe"
          @click=${() => unsubscribeHere(mine)}>${t("alerts.unsubscribe")}</button>`
    : html`<button type="button" id="push-subscribe" @click=${subscribeHere}>${t("alerts.subscribe")}</button>`;
  return html`<p>${action} <span class="muted">${t("alerts.browsers", { count: subscriptions.length })}</span></p>
    <p role="status" id="push-note">${explain(state.pushNote)}</p>`;
}

async function subscribeHere() {
  if (!pushable()) {
    update({ pushNote: () => t("alerts.pushUnsupported") });
    return;
  }
  let subscription;
  try {
    // asked first, while the click still counts as the person's gesture
    if ((await Notification.requestPermission()) !== "granted") {
      update({ pushNote: () => t("alerts.pushDenied") });
      return;
    }
    await navigator.serviceWorker.register("/sw.js");
    const registration = await navigator.serviceWorker.ready;
    subscription = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(state.settings.vapid_public_key),
    });
  } catch (error) {
    // e.g. a browser without its maker's push service (headless Chromium, some privacy builds)
    const said = error?.message || error?.name || String(error);
    update({ pushNote: () => t("alerts.pushFailed", { error: said }) });
    return;
  }
  const kept = await api("POST", "/me/push-subscriptions", subscription.toJSON());
  if (!kept.ok) {
    update({ pushNote: kept.problem });
    return;
  }
  if (!state.settings.push.enabled) await api("PATCH", "/me/alerts", { push: { enabled: true } });
  update({ pushNote: () => t("alerts.pushOn") });
  await refresh();
}

async function unsubscribeHere(mine) {
  const dropped = await api("DELETE", `/me/push-subscriptions/${mine.id}`);
  if (!dropped.ok) {
    update({ pushNote: dropped.problem });
    return;
  }
  try {
    const registration = await navigator.serviceWorker.getRegistration("/");
    await (await registration?.pushManager.getSubscription())?.unsubscribe();
  } catch {
    /* the service no longer pushes to it either way */
  }
  update({ pushNote: () => t("alerts.pushOff") });
  await refresh();
}

// ---- vacation -------------------------------------------------------------------------------------
function vacationPanel() {
  const v = state.vacation;
  if (!v) return nothing;
  const days = t("alerts.daysLeft", { count: v.days_left, total: v.days_per_year });
  const left = html`<p class="muted" id="vacation-days">${days}</p>`;
  const problem = html`<p class="problem" id="vacation-problem" role="alert">${explain(state.vacationProblem)}</p>`;
  if (v.away_until) {
    return html`<p id="away">${t("alerts.awayUntil", { date: when(v.away_until) })}</p>
      <button type="button" id="come-back"
        @click=${() => vacation("DELETE")}>${t("alerts.comeBack")}</button>${left}${problem}`;
  }
  const tomorrow = new Date(Date.now() + 86400000).toISOString().slice(0, 10);
  return html`<form id="vacation-form" @submit=${goAway}>
      <label>${t("alerts.backOn")} <input type="date" name="until" required min=${tomorrow}></label>
      <button type="submit" id="go-away">${t("alerts.goAway")}</button></form>${left}${problem}`;
}

function goAway(event) {
  event.preventDefault();
  const day = event.target.elements.namedItem("until").value; // the day back, from its start here
  vacation("PUT", { until: new Date(`${day}T00:00`).toISOString() });
}

async function vacation(method, body) {
  const done = await api(method, "/me/vacation", body);
  update(done.ok ? { vacation: done.body, vacationProblem: null } : { vacationProblem: done.problem });
}

// ---- what was sent --------------------------------------------------------------------------------
const CHANNELS = () => ({
  email: t("alerts.channel.email"),
  push: t("alerts.channel.push"),
  discord: t("alerts.channel.discord"),
  slack: t("alerts.channel.slack"),
  all: t("alerts.channel.all"),
});
const OUTCOMES = () => ({
  delivered: t("alerts.outcome.delivered"),
  retrying: t("alerts.outcome.retrying"),
  failed: t("alerts.outcome.failed"),
  skipped: t("alerts.outcome.skipped"),
});

function deliveriesPanel() {
  const refreshing = html`<button type="button" id="refresh-deliveries"
    @click=${refresh}>${t("alerts.refresh")}</button>`;
  const sent = state.deliveries ?? [];
  if (!sent.length) return html`<p class="muted" id="no-deliveries">${t("alerts.noneSent")} ${refreshing}</p>`;
  const rows = sent.slice(0, SHOWN_DELIVERIES).map(
    (d) => html`<tr class=${`outcome-${d.outcome}`}>
    <td>${when(d.at)}</td><td>${CHANNELS()[d.channel] ?? d.channel}</td>
    <td>${OUTCOMES()[d.outcome] ?? d.outcome}</td><td>${d.detail ?? ""}</td></tr>`,
  );
  return html`<table id="deliveries"><thead><tr><th>${t("alerts.when")}</th><th>${t("alerts.channel")}</th>
    <th>${t("alerts.outcome")}</th><th>${t("alerts.detail")}</th></tr></thead><tbody>${rows}</tbody></table
    >${refreshing}`;
}

onLanguageChange(() => update({}));
