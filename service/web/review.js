// A finished game's review (GET /games/{game}/review): per seat, its chance of finishing first
// over the game (a drawn curve, described in words and listed in a table), its three costliest
// decisions (each a button that takes the replay to that version) and its two totals in words.
// Asked for with POST when the game has none; looked at again while its job computes it.
import { html, nothing, render, svg } from "/web/html.js";
import { currentLanguage, onLanguageChange, t } from "/web/i18n.js";
import { decisionWords } from "/web/review_words.js";
import { api } from "/web/transport.js";

const WIDTH = 320;
const HEIGHT = 120;
const LOOKS = 60; // how often a pending review is looked at again (at Retry-After's pace) before the page stops

const percent = (x, sign = false) =>
  new Intl.NumberFormat(currentLanguage(), {
    style: "percent",
    maximumFractionDigits: 0,
    signDisplay: sign ? "exceptZero" : "auto",
  }).format(x);

/**
 * Show the review of ``game`` in ``element``. ``view`` is the finished game's view (its players'
 * names, for the words of commands), ``seat`` the viewer's (null for a spectator), ``goTo(version)``
 * takes the replay there.
 */
export function showReview(element, game, view, seat, goTo) {
  let answer = null; // {status, review} once known; {status: "none"} when none was asked for
  let looks = 0;
  const draw = () => render(panel(answer, view, seat, goTo, ask), element);

  async function look() {
    const found = await api("GET", `/games/${game}/review`);
    took(found);
  }

  async function ask() {
    answer = { status: "asking" };
    draw();
    took(await api("POST", `/games/${game}/review`));
  }

  function took(found) {
    if (found.status === 404) answer = { status: "none" };
    else if (found.ok) answer = found.body;
    else answer = { status: "unavailable" };
    draw();
    if (answer.status === "pending" && ++looks < LOOKS) setTimeout(look, 5000);
  }

  onLanguageChange(draw);
  draw();
  look();
}

function panel(answer, view, seat, goTo, ask) {
  if (!answer || answer.status === "asking") return html`<p class="muted">${t("review.loading")}</p>`;
  if (answer.status === "none")
    return html`<p>${t("review.none")}</p>
      <button type="button" class="ask-review" @click=${ask}>${t("review.ask")}</button>`;
  if (answer.status === "pending") return html`<p class="muted" role="status">${t("review.pending")}</p>`;
  if (answer.status !== "done") return html`<p>${t("review.failed")}</p>`;
  const { review } = answer;
  return html`<p class="muted">${t("review.about", { model: review.model, samples: review.samples })}</p>
    ${review.seats.map((s) => seatPanel(s, view, seat, goTo))}`;
}

function nameOf(view, s) {
  const player = view.players[s];
  return player?.name ?? t("review.seat", { seat: s + 1 });
}

function seatPanel(reviewed, view, seat, goTo) {
  const name = nameOf(view, reviewed.seat);
  const yours = reviewed.seat === seat;
  const amounts = { name, cost: percent(reviewed.decisions), luck: percent(reviewed.luck, true) };
  const totals = yours ? t("review.totalsYou", amounts) : t("review.totals", amounts);
  const id = `review-seat-${reviewed.seat}`;
  return html`<article class="review-seat" aria-labelledby=${id}>
    <h3 id=${id}>${yours ? t("review.you", { name }) : name}</h3>
    <p class="review-totals">${totals}</p>
    ${curve(reviewed, name, id)}
    <h4>${t("review.mistakes")}</h4>
    ${
      reviewed.mistakes.length
        ? html`<ol class="review-mistakes">
          ${reviewed.mistakes.map(
            (m) =>
              html`<li>
                <button type="button" class="review-mistake" @click=${() => goTo(m.version)}>
                  ${t("review.mistake", {
                    version: m.version,
                    cost: percent(m.cost),
                    played: decisionWords(m.played, view, reviewed.seat),
                    better: decisionWords(m.better, view, reviewed.seat),
                  })}
                </button>
              </li>`,
          )}
        </ol>`
        : html`<p>${t("review.noMistakes")}</p>`
    }
  </article>`;
}

/** The seat's chance over the game: a line drawn in SVG (an image with a title and a description
 * in words), and the same numbers in a table for whoever does not see the line. */
function curve(reviewed, name, id) {
  const points = reviewed.curve;
  if (!points.length) return nothing;
  const first = points[0].version;
  const span = Math.max(1, points.at(-1).version - first);
  const x = (v) => ((v - first) / span) * WIDTH;
  const y = (c) => HEIGHT - c * HEIGHT;
  const line = points.map((p) => `${x(p.version).toFixed(1)},${y(p.chance).toFixed(1)}`).join(" ");
  const low = points.reduce((a, b) => (b.chance < a.chance ? b : a));
  const high = points.reduce((a, b) => (b.chance > a.chance ? b : a));
  const described = t("review.curveWords", {
    start: percent(points[0].chance),
    low: percent(low.chance),
    lowAt: low.version,
    high: percent(high.chance),
    highAt: high.version,
    end: percent(points.at(-1).chance),
  });
  return html`<figure class="review-curve">
    <svg
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      width=${WIDTH}
      height=${HEIGHT}
      role="img"
      aria-labelledby="${id}-title ${id}-desc"
    >
      <title id="${id}-title">${t("review.curve", { name })}</title>
      <desc id="${id}-desc">${described}</desc>
      ${svg`<line x1="0" y1=${HEIGHT / 2} x2=${WIDTH} y2=${HEIGHT / 2} class="review-even"></line>
        <polyline points=${line} fill="none" class="review-line"></polyline>`}
    </svg>
    <figcaption>${described}</figcaption>
    <details>
      <summary>${t("review.table")}</summary>
      <table class="review-table">
        <caption>
          ${t("review.curve", { name })}
        </caption>
        <thead>
          <tr>
            <th scope="col">${t("review.version")}</th>
            <th scope="col">${t("review.chance")}</th>
          </tr>
        </thead>
        <tbody>
          ${points.map((p) => html`<tr><td>${p.version}</td><td>${percent(p.chance)}</td></tr>`)}
        </tbody>
      </table>
    </details>
  </figure>`;
}
