// Pinch zoom for the board on touch screens. Two fingers on the city scale it about their
// midpoint (1× to 4×) and move it as they move; one finger still taps a tile, and drags the city
// when it is zoomed (else it scrolls the page, as a swipe does elsewhere). The browser's own
// pinch is turned off over the city (touch-action: none in app.css): it would zoom the whole
// page, and headless browsers ignore it. The view lives in CSS variables on the board's
// container (--zoom, --pan-x, --pan-y, read by app.css), so it survives every redraw of the SVG.
const MIN = 1;
const MAX = 4;
const SLOP = 10; // pixels a finger may wander and still tap

/** Follow touches on ``container``'s city (its .city box); ``reset`` (a button) returns to 1×. */
export function pinchZoom(container, reset) {
  let view = { scale: 1, x: 0, y: 0 };
  // pointerId -> {x, y}: pixels from the city's top left corner (and screenY: from the window's)
  const fingers = new Map();
  let start = null; // where the gesture stood when its fingers last changed: {view, mid, distance, at}
  let moved = false; // this gesture dragged or pinched: the click that ends it selects nothing
  const city = () => container.querySelector(".city");

  function show(next) {
    const box = city();
    const { clientWidth: w, clientHeight: h } = box ?? { clientWidth: 0, clientHeight: 0 };
    const scale = Math.min(MAX, Math.max(MIN, next.scale));
    // the zoomed city always covers its box: no gap at any edge
    const x = Math.min(0, Math.max(w - w * scale, next.x));
    const y = Math.min(0, Math.max(h - h * scale, next.y));
    view = { scale, x, y };
    container.style.setProperty("--zoom", String(scale));
    container.style.setProperty("--pan-x", `${x}px`);
    container.style.setProperty("--pan-y", `${y}px`);
    reset.hidden = scale === 1;
  }

  const spot = (event) => {
    const box = city().getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top, screenY: event.clientY };
  };
  const mid = ([a, b]) => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
  const distance = ([a, b]) => Math.hypot(a.x - b.x, a.y - b.y) || 1;

  function begin() {
    // the fingers changed: the gesture goes on from here
    const points = [...fingers.values()];
    start =
      points.length === 2
        ? { view, mid: mid(points), distance: distance(points) }
        : points.length === 1
          ? { view, at: points[0] }
          : null;
  }

  container.addEventListener("pointerdown", (event) => {
    if (!fingers.size) moved = false;
    if (event.pointerType === "mouse" || !event.target.closest(".city") || fingers.size >= 2) return;
    fingers.set(event.pointerId, spot(event));
    if (fingers.size === 2) moved = true; // a pinch, not a tap
    begin();
  });

  container.addEventListener("pointermove", (event) => {
    if (!fingers.has(event.pointerId)) return;
    const before = fingers.get(event.pointerId);
    const now = spot(event);
    fingers.set(event.pointerId, now);
    if (fingers.size === 2) {
      // the point of the city under the fingers' midpoint at the start stays under it now
      const points = [...fingers.values()];
      const scale = Math.min(MAX, Math.max(MIN, (start.view.scale * distance(points)) / start.distance));
      const centre = mid(points);
      const x = centre.x - (scale * (start.mid.x - start.view.x)) / start.view.scale;
      const y = centre.y - (scale * (start.mid.y - start.view.y)) / start.view.scale;
      show({ scale, x, y });
      return;
    }
    if (!moved && Math.hypot(now.x - start.at.x, now.y - start.at.y) < SLOP) return;
    moved = true;
    if (view.scale > 1)
      show({ scale: view.scale, x: start.view.x + now.x - start.at.x, y: start.view.y + now.y - start.at.y });
    else window.scrollBy(0, before.screenY - now.screenY); // at 1× a swipe over the city scrolls the page
  });

  const lift = (event) => {
    if (!fingers.delete(event.pointerId)) return;
    begin();
  };
  container.addEventListener("pointerup", lift);
  container.addEventListener("pointercancel", lift);
  // a drag or a pinch ends with no tile chosen (the listener is on the way down, before board.js's)
  container.addEventListener(
    "click",
    (event) => {
      if (moved) {
        event.stopPropagation();
        event.preventDefault();
      }
    },
    true,
  );
  reset.addEventListener("click", () => show({ scale: 1, x: 0, y: 0 }));
  window.addEventListener("resize", () => show(view)); // the box changed size: keep the city inside it
}
