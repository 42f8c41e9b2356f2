// The page's scripts are ES modules run by browsers as they are (no build step).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["service/web/vendor/**"] }, // third-party files, served exactly as released
  js.configs.recommended,
  {
    files: ["service/web/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
    rules: { "no-unused-vars": "error", eqeqeq: "error", "prefer-const": "error" },
  },
];
