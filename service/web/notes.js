// A private note on a player or a game: a labelled textarea its author alone reads and saves
// (/me/notes/players/{id}, /me/notes/games/{id}). The note is text: lit-html writes it as the
// textarea's value, never as markup; the service refuses control and bidi characters.
import { html, render } from "/web/html.js";
import { explain, t } from "/web/i18n.js";
import { api } from "/web/transport.js";

const MOST = 2000; // the service's MOST_NOTE_CHARACTERS

/** Draw the note editor of ``path`` (/me/notes/…) into ``target``, after reading the note kept. */
export async function noteEditor(path, target) {
  const found = await api("GET", path);
  let text = found.ok ? found.body.text : "";
  let said = null;
  const save = async (event) => {
    event.preventDefault();
    text = event.target.elements.note.value;
    const answer = text ? await api("PUT", path, { text }) : await api("DELETE", path);
    said = answer.ok ? () => t("notes.saved") : answer.problem;
    draw();
  };
  const draw = () =>
    render(
      html`<form class="note" @submit=${save}>
        <label for="note-text">${t("notes.label")}</label>
        <textarea id="note-text" name="note" rows="4" maxlength=${MOST} .value=${text}></textarea>
        <button type="submit">${t("notes.save")}</button>
        <p role="status" class="note-said">${explain(said)}</p></form>`,
      target,
    );
  draw();
  return draw;
}
