"""The use cases that the web process, the workers and the command-line tools share: games and
seats, turns and their hand-off to the workers, webhooks, the codec, the audit of a published
log, the errors, and the wiring that builds them. It imports neither ``service`` nor ``workers``:
whoever builds it hands in the queue adapter (docs/architecture.md)."""
