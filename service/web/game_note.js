// The game page's private note: shown to a signed-in person, on this game (notes.js).
import { onLanguageChange } from "/web/i18n.js";
import { noteEditor } from "/web/notes.js";
import { api } from "/web/transport.js";

const game = location.pathname.split("/").pop();
const session = await api("GET", "/auth/session");
if (session.ok && session.body.signed_in) {
  const section = document.getElementById("note-section");
  section.hidden = false;
  const redraw = await noteEditor(`/me/notes/games/${encodeURIComponent(game)}`, document.getElementById("note"));
  onLanguageChange(redraw);
}
