"""Everything the service keeps about a person, as one JSON document (they may ask for it).

The export is a table of sections, ``SECTIONS``: a name and a function from the wiring's
components and the account id to what that feature keeps about the person, as JSON. A feature
that keeps something new about people adds a row (its function in its own package); the export
and ``bluemoon-admin person export`` need nothing else. Secrets never leave: no token or
session digests, no passkey public keys, no push subscription keys, no channel URLs (a Discord
or Slack webhook URL is a credential), only what each is and when it was made or used.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from application.accounts.passkeys import Passkeys
from application.chat.messages import ROOMS, ChatMessages
from application.wiring import Components
from events import keys
from events.projection import GameIndex
from events.redis_store import text

Section = Callable[[Components, str], Any]
CHAT_PAGE = 500  #: chat messages read at a time from a room


def _account(parts: Components, account: str) -> dict[str, Any]:
    return {
        **parts.accounts.profile(account),
        "tokens": parts.accounts.tokens(account),
        "passkeys": Passkeys(parts.accounts).of(account),
    }


def _games(parts: Components, account: str) -> list[dict[str, Any]]:
    seats = parts.accounts.seats(account)
    found = GameIndex(parts.client).summaries(seats)
    return [{"game": game, "seat": seat, "summary": found.get(game)} for game, seat in sorted(seats.items())]


def _ratings(parts: Components, account: str) -> dict[str, Any]:
    return {"rating": parts.ratings.current(account).document(), "history": parts.ratings.history(account)}


def _host(url: Any) -> Any:
    return urlparse(url).hostname if isinstance(url, str) else url


def _alerts(parts: Components, account: str) -> dict[str, Any]:
    settings = parts.alerts.get(account)
    for channel in ("discord", "slack"):  # the webhook URL is a credential: its host says which
        if isinstance(settings.get(channel), dict) and "url" in settings[channel]:
            settings[channel] = {**settings[channel], "url": _host(settings[channel]["url"])}
    pushes = [json.loads(raw) for raw in parts.client.hvals(keys.push_subscriptions(account))]
    return {
        "settings": settings,
        "push_subscriptions": [
            {"endpoint_host": _host(p.get("endpoint")), "created": p.get("created")} for p in pushes
        ],
        "muted_games": sorted(parts.alerts.muted(account)),
        "deliveries": parts.alerts.log(account),
        "vacation": parts.vacations.status(account),
    }


def _relations(parts: Components, account: str) -> dict[str, Any]:
    relations = parts.relations
    followers = [text(a) for a in parts.client.zrange(keys.followers(account), 0, -1)]
    return {
        "following": relations.following(account),
        "followers": followers,
        "muted": sorted(relations.muted(account)),
        "blocked": sorted(relations.blocked(account)),
        "privacy": relations.privacy(account),
        "suspension": parts.suspensions.suspension(account),
    }


def _apps(parts: Components, account: str) -> dict[str, Any]:
    grants = {text(k): json.loads(v) for k, v in parts.client.hgetall(keys.account_oauth_grants(account)).items()}
    registered = sorted(text(a) for a in parts.client.smembers(keys.account_oauth_apps(account)))
    allowed = [{"app": app, "scopes": g.get("scopes", []), "allowed": g.get("allowed")} for app, g in grants.items()]
    return {"registered": registered, "allowed": allowed}


def _chat(parts: Components, account: str) -> list[dict[str, Any]]:
    """The person's own messages in the rooms of their games."""
    chat, written = ChatMessages(parts.store), []
    for game in sorted(parts.accounts.seats(account)):
        for room in ROOMS:
            after = "-"
            while True:
                page = chat.read(game, room, after, CHAT_PAGE)
                written += [m for m in page if m["author"] == account]
                if len(page) < CHAT_PAGE:
                    break
                after = page[-1]["id"]
    return written


def _news(parts: Components, account: str) -> list[dict[str, Any]]:
    """The person's stream of news (events/person_streams.py), as kept."""
    return [entry.document() for entry in parts.person_streams.read(account, 0, 10_000)]


#: The sections of a person's export, in its order (see module doc: a feature adds a row).
SECTIONS: dict[str, Section] = {
    "account": _account,
    "games": _games,
    "ratings": _ratings,
    "alerts": _alerts,
    "relations": _relations,
    "apps": _apps,
    "chat": _chat,
    "news": _news,
}


def export(parts: Components, account: str) -> dict[str, Any]:
    """Every section about ``account`` (NotFound, from the account's profile, when it does not exist)."""
    parts.accounts.profile(account)
    return {"account_id": account, **{name: section(parts, account) for name, section in SECTIONS.items()}}
