// What changed from one OpenAPI document to another, as api-smart-diff classifies it:
// `node changes.mjs before.yaml after.yaml` prints a JSON list of {type, action, path, description},
// type one of breaking, non-breaking, deprecated, annotation, unclassified. It reads only the two
// files: no network, no telemetry. cli/api_changes.py decides what version the changes need.
import { readFileSync } from "node:fs";
import { apiDiff } from "api-smart-diff";
import yaml from "js-yaml";

const [before, after] = process.argv.slice(2).map((file) => yaml.load(readFileSync(file, "utf8")));
if (!before || !after) {
  console.error("usage: node changes.mjs before.yaml after.yaml");
  process.exit(2);
}
const changes = apiDiff(before, after).map((diff) => ({
  type: diff.type,
  action: diff.action,
  path: diff.path.join("/"),
  description: diff.description ?? "",
}));
process.stdout.write(JSON.stringify(changes));
