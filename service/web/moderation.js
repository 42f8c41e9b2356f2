// The moderators' page: the open reports, each with the messages around a reported one as they
// were when it was filed, and what a moderator does about it (hide the message, suspend its
// author or the person reported, resolve or dismiss the report); then the log of every
// moderator's action. All by the public API, on the page's session (the moderators' operations
// take no personal access token). Anyone else is told the page is for moderators.
import { bindForm } from "/web/forms.js";
import { html, nothing, render } from "/web/html.js";
import { currentLanguage, explain, onLanguageChange, t } from "/web/i18n.js";
import { reasonWords, report } from "/web/reports.js";
import { api } from "/web/transport.js";

const $ = (id) => document.getElementById(id);
const DAY = 24 * 3600;
const LENGTHS = [DAY, 7 * DAY, 30 * DAY];
const when = (ms) => new Date(ms).toLocaleString(currentLanguage());
const state = { reports: [], next: null, log: [], note: "" };

function said(message, reported) {
  const words =
    message.removed === null
      ? message.text
      : message.removed === "hidden"
        ? t("moderation.hidden")
        : t("moderation.deleted");
  const line = html`<span class="muted">${when(message.at)}</span> <bdi>${message.author}</bdi>: <bdi>${words}</bdi>`;
  return html`<li>${message.id === reported ? html`<strong aria-current="true">${line}</strong>` : line}</li>`;
}

function lengthWords(seconds) {
  return t("moderation.days", { count: seconds / DAY });
}

function card(r) {
  const s = r.subject;
  const person = s.kind === "account" ? s.account : s.author;
  const title = `report-${r.id}`;
  const act = (what) => (event) => {
    event.preventDefault();
    return what(event.target.closest("article"));
  };
  const reasonOf = (article) => article.querySelector("input[name=why]").value.trim() || r.reason;
  const hide = act((article) =>
    acted(
      api("POST", "/moderation/hidden-messages", {
        game: s.game,
        room: s.room,
        message: s.message,
        reason: reasonOf(article),
      }),
    ),
  );
  const suspend = act((article) => {
    const seconds = Number(article.querySelector("select[name=length]").value);
    return acted(
      api("PUT", `/moderation/suspensions/${encodeURIComponent(person)}`, { seconds, reason: reasonOf(article) }),
    );
  });
  const close = (outcome) =>
    act((article) => acted(api("POST", `/moderation/reports/${r.id}/close`, { outcome, note: reasonOf(article) })));
  return html`<article class="report" aria-labelledby=${title}>
    <h3 id=${title}>${reasonWords[r.reason]()} · ${when(r.at)}</h3>
    <p>${t("moderation.reportedBy", { reporter: r.reporter })}</p>
    <p>${s.kind === "account" ? t("moderation.aboutPerson", { account: s.account }) : t("moderation.aboutMessage", { game: s.game })}</p>
    ${r.text ? html`<blockquote><bdi>${r.text}</bdi></blockquote>` : nothing}
    ${r.context.length ? html`<ol class="context">${r.context.map((m) => said(m, s.message))}</ol>` : nothing}
    <label>${t("moderation.why")} <input name="why" maxlength="500" autocomplete="off"></label>
    <label>${t("moderation.length")}
      <select name="length">${LENGTHS.map((seconds) => html`<option value=${seconds}>${lengthWords(seconds)}</option>`)}</select></label>
    <div>
      ${s.kind === "message" ? html`<button type="button" class="hide" @click=${hide}>${t("moderation.hide")}</button>` : nothing}
      <button type="button" class="suspend" @click=${suspend}>${t("moderation.suspend")}</button>
      <button type="button" class="resolve" @click=${close("resolved")}>${t("moderation.resolve")}</button>
      <button type="button" class="dismiss" @click=${close("dismissed")}>${t("moderation.dismiss")}</button>
    </div>
  </article>`;
}

function entry(e) {
  const subject = e.account ?? e.report ?? e.message ?? "";
  return html`<li><span class="muted">${when(e.at)}</span> <bdi>${e.by}</bdi> · ${e.action} · <bdi>${subject}</bdi>${
    e.reason ? html` · <bdi>${e.reason}</bdi>` : nothing
  }</li>`;
}

function draw() {
  $("note").textContent = state.note;
  render(
    state.reports.length ? state.reports.map(card) : html`<p class="muted">${t("moderation.none")}</p>`,
    $("reports"),
  );
  $("more").hidden = !state.next;
  render(state.log.map(entry), $("log"));
}

async function acted(answer) {
  const done = await answer;
  state.note = done.ok ? t("moderation.done") : explain(done.problem);
  await load();
}

async function load(more = false) {
  const reports = await api("GET", `/moderation/reports?limit=20${more && state.next ? `&after=${state.next}` : ""}`);
  if (!reports.ok) {
    state.note =
      reports.status === 401
        ? t("moderation.signIn")
        : reports.status === 403
          ? t("moderation.onlyModerators")
          : explain(reports.problem);
    state.reports = [];
    state.log = [];
    return draw();
  }
  state.reports = more ? [...state.reports, ...reports.body.reports] : reports.body.reports;
  state.next = reports.body.next;
  const log = await api("GET", "/moderation/log?limit=50");
  state.log = log.ok ? log.body.entries : [];
  draw();
}

$("more").addEventListener("click", () => load(true));
bindForm($("report-person"), async (event) => {
  const filed = await report({ account: event.target.account.value.trim() });
  if (filed) {
    state.note = t("reports.filed");
    event.target.reset();
    await load();
  }
});
onLanguageChange(draw);
load();
