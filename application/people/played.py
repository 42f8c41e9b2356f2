"""The games people sit in, as their profiles and their friends' lists show them: from each
account's seats and the lobby's index of game summaries (events/projection.py), public facts
only, so that anyone may see them as anyone may watch the game."""

from __future__ import annotations

from typing import Any

from application.accounts.shown_text import shown
from events import keys
from events.redis_store import text


def seats_of(client: Any, people: list[str]) -> dict[str, dict[str, int]]:
    """Each account's seats (game -> seat), in one pipeline (a cluster's client sends each slot's
    part to its node)."""
    pipe = client.pipeline(transaction=False)
    for account in people:
        pipe.hgetall(keys.account_seats(account))
    return {account: {text(g): int(s) for g, s in found.items()} for account, found in zip(people, pipe.execute())}


def names_of(client: Any, people: list[str]) -> dict[str, dict[str, Any]]:
    """Each existing account's display name (one stored before names refused control and bidi
    characters made harmless), and ``bot`` for a bot account; a deleted one is left out."""
    pipe = client.pipeline(transaction=False)
    for account in people:
        pipe.hmget(keys.account(account), "name", "bot")
    return {
        account: {"name": shown(text(name)), **({"bot": True} if bot is not None else {})}
        for account, (name, bot) in zip(people, pipe.execute())
        if name is not None
    }


def played(summaries: dict[str, dict[str, Any]], seats: dict[str, int]) -> list[dict[str, Any]]:
    """The games of ``seats`` (game -> the person's seat) among ``summaries`` (GameIndex's), the
    last moved first, each with the person's seat, whose turn it is, and where to watch it."""
    games = [seen(summaries[game], seat) for game, seat in seats.items() if game in summaries]
    return sorted(games, key=lambda g: (g["updated"], g["game"]), reverse=True)


def seen(summary: dict[str, Any], seat: int) -> dict[str, Any]:
    turn, names = summary["turn"], summary["names"]
    return {
        **{k: summary[k] for k in ("game", "status", "edition", "players", "expansion", "updated", "winners")},
        "names": names,
        "seat": seat,
        "turn": turn,
        "turn_name": names[turn] if turn is not None and turn < len(names) else None,
        "their_turn": turn == seat,
        "watch": f"/play/{summary['game']}",
    }
