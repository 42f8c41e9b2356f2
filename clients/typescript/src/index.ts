// The package's entry: the fetch client and its types (client.ts), streams followed with resume
// (stream.ts), and every type openapi-typescript generates from openapi.yaml (api.d.ts).
export * from "./client.js";
export * from "./stream.js";
export type { components, operations, paths } from "./api.js";
