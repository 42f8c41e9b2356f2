// The one way HTML reaches the pages: lit-html's tagged templates (vendor/lit-html.js, see
// vendor/README.md). html`...` and svg`...` turn every interpolated value into text or an
// attribute's value, never markup, unless the value is itself a template; render(target,
// template) writes a template into an element, changing only what differs from last time.
// ESLint forbids innerHTML and its kin everywhere (eslint.config.js), so nothing else can.
export { html, nothing, render, svg } from "/web/vendor/lit-html.js";
