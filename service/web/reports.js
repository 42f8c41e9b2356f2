// Reporting a chat message or a person to the moderators: report(subject) opens a dialog (the
// reason from the service's short list, and the reporter's own words), sends POST /reports and
// says how it went. subject is {account} or {game, room, message}. Any page may call it (the play
// page's chat, the moderators' page); it resolves to the filed report, or null when cancelled.
import { html, render } from "/web/html.js";
import { explain, t } from "/web/i18n.js";
import { api } from "/web/transport.js";

/** The reasons POST /reports takes (application/moderation/reports.py REASONS). */
export const REASONS = ["abuse", "spam", "cheating", "other"];
/** Each reason in words (a key per reason: the translation test reads the keys as written). */
export const reasonWords = {
  abuse: () => t("reports.reason.abuse"),
  spam: () => t("reports.reason.spam"),
  cheating: () => t("reports.reason.cheating"),
  other: () => t("reports.reason.other"),
};
const LONGEST_TEXT = 1000;

function dialog() {
  let found = document.getElementById("report-dialog");
  if (found) return found;
  found = document.createElement("dialog");
  found.id = "report-dialog";
  found.setAttribute("aria-labelledby", "report-dialog-title");
  document.body.append(found);
  return found;
}

/** Ask for a reason and words, then report ``subject``; the filed report, or null if cancelled. */
export function report(subject) {
  const box = dialog();
  return new Promise((resolve) => {
    let problem = "";
    const close = (filed) => {
      box.close();
      resolve(filed);
    };
    const send = async (event) => {
      event.preventDefault();
      const form = event.target;
      const body = { ...subject, reason: form.reason.value };
      if (form.words.value.trim()) body.text = form.words.value;
      const answer = await api("POST", "/reports", body);
      if (answer.ok) return close(answer.body);
      problem = explain(answer.problem);
      draw();
    };
    const draw = () =>
      render(
        html`<form method="dialog" @submit=${send}>
          <h2 id="report-dialog-title">${subject.account ? t("reports.titlePerson") : t("reports.titleMessage")}</h2>
          <label>${t("reports.reason")}
            <select name="reason" required>
              ${REASONS.map((reason) => html`<option value=${reason}>${reasonWords[reason]()}</option>`)}
            </select></label>
          <label>${t("reports.words")}
            <textarea name="words" rows="4" maxlength=${LONGEST_TEXT}></textarea></label>
          <p class="problem" role="alert">${problem}</p>
          <button type="submit" class="primary">${t("reports.send")}</button>
          <button type="button" @click=${() => close(null)}>${t("reports.cancel")}</button>
        </form>`,
        box,
      );
    box.onclose = () => resolve(null); // Escape closes it too
    draw();
    box.showModal();
    box.querySelector("select").focus();
  });
}
