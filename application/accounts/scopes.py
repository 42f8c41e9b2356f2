"""What an account credential may do: the scopes, each with what it lets a program do, kept here
once (openapi.yaml's security schemes, the problems and the docs are written from ``SCOPES``).

Every operation that takes an account credential names one scope in its declaration
(service/operation.py). The page's session holds every scope. A personal access token holds the
scopes chosen when it was made, never ``account``: a token is a long-lived secret pasted into
programs, and one that could make tokens, passkeys or codes for another device would let whoever
copies it keep the account after the token itself is revoked (RFC 9700's advice against minting
credentials from credentials). Seat tokens are no account credential: scopes do not apply to them.

``bot`` is a bot account's (application/accounts/bot_accounts.py): a bot account's token needs it
beside ``play`` for every ``play`` operation, so that a token made while the account was a
person's, or made without it, cannot act as the bot; a person's token may not hold it.
"""

from __future__ import annotations

READ, PLAY, WEBHOOKS, ALERTS, ACCOUNT = "read", "play", "webhooks", "alerts", "account"
BOT = "bot"

#: Every scope, with what it allows.
SCOPES: dict[str, str] = {
    READ: "read the person's games, profile, rating and lists",
    PLAY: "create and join games and open games, send commands, offer and accept rematches, claim seats",
    WEBHOOKS: "manage the webhooks of the person's seats",
    ALERTS: "alert settings, push subscriptions, muted games and vacations",
    BOT: "play as a bot account: a bot account's token needs it beside `play` for every `play` operation; "
    "only a bot account's tokens hold it",
    ACCOUNT: "manage tokens, passkeys, sessions, the profile and the account (the page's session only)",
}
#: The scopes a personal access token may hold.
TOKEN_SCOPES = (READ, PLAY, WEBHOOKS, ALERTS, BOT)
#: A token made before scopes existed (none kept) holds what every token could do then.
EARLIER_TOKENS = (READ, PLAY, WEBHOOKS, ALERTS)
#: A token made without naming scopes holds these: what every token could do before scopes (a bot
#: account's holds ``bot`` too).
DEFAULT_TOKEN_SCOPES = EARLIER_TOKENS
MAX_TOKEN_DAYS = 365  #: the longest a personal access token may be made to last (none: until revoked)


def listed() -> str:
    """The scopes as a Markdown list, for the documents."""
    return "\n".join(f"- `{name}`: {text}" for name, text in SCOPES.items())
