// A page's state: one frozen object, replaced (never edited) by update(), after which the page is
// drawn again from it. lit-html changes only what differs, so focus and ticked boxes survive.

/** [state, update] for a page drawn by ``draw``: ``state`` reads the fields of ``initial`` as they
 * are now (it cannot be written); ``update(changes, focus)`` merges ``changes`` in (a field not in
 * ``initial`` is a mistake, and refused), draws the page, then focuses ``focus`` (a selector). */
export function pageState(initial, draw) {
  let now = Object.freeze({ ...initial });
  const state = {};
  for (const field of Object.keys(initial))
    Object.defineProperty(state, field, { get: () => now[field], enumerable: true });
  function update(changes, focus = "") {
    const unknown = Object.keys(changes).filter((field) => !Object.hasOwn(initial, field));
    if (unknown.length) throw new Error(`not a field of this page's state: ${unknown.join(", ")}`);
    now = Object.freeze({ ...now, ...changes });
    draw();
    if (focus) document.querySelector(focus)?.focus();
  }
  return [Object.freeze(state), update];
}
