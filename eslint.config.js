// The page's scripts are ES modules run by browsers as they are (no build step).
import js from "@eslint/js";
import globals from "globals";

// Text reaches the page only through html.js (lit-html's templates, which escape every value):
// writing HTML as a string anywhere else is how a player's name became script once.
const HTML_STRINGS = "Write HTML through html.js's templates and render(), which escape every value";
const noHtmlStrings = [
  ...["innerHTML", "outerHTML", "insertAdjacentHTML", "setHTMLUnsafe", "createContextualFragment"].map((property) => ({ property })),
  ...["write", "writeln"].map((property) => ({ object: "document", property })),
].map((rule) => ({ ...rule, message: HTML_STRINGS }));

// The service is reached through transport.js alone (REST, the event stream and the play socket,
// with their retries and resumption), as boardgame.io's clients reach theirs through one Transport.
const TRANSPORT = "Reach the service through /web/transport.js (api, follow, file)";
const REQUESTS = ["fetch", "EventSource", "XMLHttpRequest", "WebSocket"];
const noOwnRequests = REQUESTS.map((name) => ({ name, message: TRANSPORT }));
const noOwnRequestsThrough = ["window", "self", "globalThis"].flatMap((object) =>
  REQUESTS.map((property) => ({ object, property, message: TRANSPORT })),
);

export default [
  { ignores: ["service/web/vendor/**"] }, // third-party files, served exactly as released
  js.configs.recommended,
  {
    files: ["service/web/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
    rules: {
      "no-unused-vars": "error",
      eqeqeq: "error",
      "prefer-const": "error",
      "no-restricted-imports": ["error", { patterns: [{ group: ["**/vendor/*"], message: "import lit-html through /web/html.js" }] }],
      "no-restricted-globals": ["error", ...noOwnRequests],
      "no-restricted-properties": ["error", ...noHtmlStrings, ...noOwnRequestsThrough],
    },
  },
  { files: ["service/web/html.js"], rules: { "no-restricted-imports": "off" } },
  {
    files: ["service/web/transport.js"],
    rules: { "no-restricted-globals": "off", "no-restricted-properties": ["error", ...noHtmlStrings] },
  },
];
