"""Sends to other parties' servers: webhooks, and what every send keeps to (public addresses, timeouts, a budget)."""
