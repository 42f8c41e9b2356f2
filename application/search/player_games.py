"""A player's games, filtered: by opponent, edition, player count, result, place, how and when
the game ended.

The index to search is the one the service keeps already: each account's seats (``game ->
seat``, written when the person takes a seat and kept when the game moves to the archive). A
search reads the player's games' summaries through the game index, which answers from Redis and,
for games moved out of it, from the archive (``GameIndex.summaries``: one pipeline, one SQL
query), so games in Redis and archived games are searched alike and nothing is written twice.
A request costs the player's games, never every game there is (about 45 ms a thousand, measured
on SQLite and Redis: docs/operations.md); an opponent's filter is the two accounts' seats
intersected before any summary is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from events.projection import GameIndex, Page, entry, page_of

#: The most games one export answers (its cursor continues).
MAX_EXPORTED = 1000


@dataclass(frozen=True)
class Filters:
    """What a search keeps; None: any."""

    finished_only: bool = True  #: others see a player's finished games only
    status: str | None = None  #: ``active`` or ``finished``
    opponent: dict[str, int] | None = None  #: the opponent's seats (game -> seat), when filtered by one
    edition: str | None = None
    players: int | None = None
    result: str | None = None  #: ``won`` (among the winners) or ``lost`` (finished, not among them)
    place: int | None = None  #: the player's place, 1 the best (domain/standings.py: ties share one)
    ended: str | None = None  #: how the game ended (events/endings.py ``ENDINGS``)
    ended_from: datetime | None = None
    ended_to: datetime | None = None


def search(index: GameIndex, seats: dict[str, int], filters: Filters, limit: int, after: str | None) -> Page:
    """A page of the games in ``seats`` (the player's: game -> seat) that ``filters`` keep,
    newest first, paged the way the index pages every game."""
    wanted = [g for g in seats if filters.opponent is None or g in filters.opponent]
    listed = {}
    for game, summary in index.summaries(wanted).items():
        if kept(summary, seats[game], filters):
            listed[entry(game, summary["created"])] = summary
    return page_of(listed, limit, after)


def kept(summary: dict[str, Any], seat: int, filters: Filters) -> bool:
    finished = summary["status"] == "finished"
    judged = filters.ended_from or filters.ended_to or filters.result or filters.place or filters.ended
    if (filters.finished_only or judged) and not finished:
        return False
    if filters.status and summary["status"] != filters.status:
        return False
    if (
        filters.opponent is not None
        and summary["game"] in filters.opponent
        and filters.opponent[summary["game"]] == seat
    ):
        return False  # the player's own seat is not their opponent
    if filters.edition and summary["edition"] != filters.edition:
        return False
    if filters.players and summary["players"] != filters.players:
        return False
    if filters.result and (seat in (summary["winners"] or [])) != (filters.result == "won"):
        return False
    if filters.place and (summary.get("places") or [])[seat : seat + 1] != [filters.place]:
        return False
    if filters.ended and summary.get("ended") != filters.ended:
        return False
    ended = _moment(summary["updated"])  # a finished game's last events are its end
    if filters.ended_from and ended < filters.ended_from:
        return False
    return not (filters.ended_to and ended > filters.ended_to)


def aware(moment: datetime) -> datetime:
    """A time as given, read as UTC when it names no zone."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _moment(stamp: str) -> datetime:
    return aware(datetime.fromisoformat(stamp.replace("Z", "+00:00")))
