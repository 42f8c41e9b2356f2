"""What a person's stream says (docs/api.md, "Following a person"): each kind of news and its fields.

Every item names its game and what the person needs to act on it without another request: their
seat, the turn's deadline, the finishing order. The item types, in the order one append gives them:

- ``open_game.filled``: the open game the person sat at filled, and its game was made;
- ``game.started``: a game was made with a seat of theirs in it (one they made signed in, an open
  game that filled, a rematch every seat accepted, their next game in a tournament: its
  ``tournament`` and ``round``); a seat taken later (its invite, a seat token
  kept in the account) is not told: its game had started;
- ``turn.started``: their turn began, with its deadline if the game has one;
- ``game.ended``: how it ended, each seat's place, and whether it is rated;
- ``rating.changed``: their rating before and after a rated game, written when the rating job has
  rated it (a moment after ``game.ended``): the ratings are computed once, off the command's path;
- ``rematch.offered``: another seat of a finished game offered (or accepted) a rematch that waits
  for them;
- ``challenge.received`` (to the challenged person), ``challenge.accepted`` and
  ``challenge.declined`` (to the challenger), ``challenge.cancelled`` (to the challenged person) and
  ``challenge.expired`` (to both): a challenge's news, its item's ``game`` the challenge's id
  (application/challenges/);
- ``tournament.bye`` (the entrant with a bye in a round: no game, so no ``game.started``),
  ``tournament.cancelled`` (each entrant not withdrawn, when too few joined by its start) and
  ``tournament.finished`` (each entrant, withdrawn too, with their place in the final standings):
  a tournament's news, its item's ``game`` the tournament's id (application/tournaments/rounds.py).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from application.games import clocks
from application.lobby.ratings import BOT
from domain.events import GameEnded, TurnStarted
from domain.standings import places
from events.outbox import now_ms
from events.person_streams import News
from events.serialization import now

if TYPE_CHECKING:
    from application.reactions import Change

CHALLENGE_TYPES = (
    "challenge.received",
    "challenge.accepted",
    "challenge.declined",
    "challenge.cancelled",
    "challenge.expired",
)
TOURNAMENT_TYPES = ("tournament.bye", "tournament.cancelled", "tournament.finished")
TYPES = (
    "open_game.filled",
    "game.started",
    "turn.started",
    "game.ended",
    "rating.changed",
    "rematch.offered",
    *CHALLENGE_TYPES,
    *TOURNAMENT_TYPES,
)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def of_change(change: Change) -> dict[str, list[News]]:
    """Each person's news from one append, by account: only seats kept in an account are told."""
    held: dict[int, str] = change.settings.get("accounts") or {}
    news: defaultdict[str, list[News]] = defaultdict(list)
    if not held:
        return {}
    at = now()
    if change.before is None:
        for seat, account in sorted(held.items()):
            news[account] += _started(change, seat, at)
    turn = next((s for s in change.stored if isinstance(s.event, TurnStarted)), None)
    if turn is not None and isinstance(turn.event, TurnStarted) and not change.after.finished:
        seat = turn.event.seat
        if seat in held and change.settings["seats"][seat]["kind"] == "human":
            due = clocks.deadline_ms(change.settings, seat, now_ms())
            data = {
                "seat": seat,
                "turn": turn.event.number,
                "version": turn.seq,
                "deadline": _iso(due) if due else None,
            }
            news[held[seat]].append(News("turn.started", change.game, at, data))
    ended = next((s for s in change.stored if isinstance(s.event, GameEnded)), None)
    if ended is not None and isinstance(ended.event, GameEnded):
        for seat, account in sorted(held.items()):
            news[account].append(_ended(change, ended.event, ended.seq, seat, at))
    return dict(news)


def _started(change: Change, seat: int, at: str) -> list[News]:
    """A new game's news for ``seat``: its open game filled, if it had one, and the game started."""
    origin: dict[str, Any] = change.settings.get("origin") or {}
    shown = [
        {**{k: s.get(k) for k in ("seat", "kind", "name", "level")}, "open": s["kind"] == "open"}
        for s in change.settings["seats"]
    ]
    started = {
        "seat": seat,
        "seats": shown,
        "rated": bool(change.settings.get("rated")),
        "open_game": origin.get("open_game"),
        "rematch_of": origin.get("rematch_of"),
        "tournament": origin.get("tournament"),
        "round": origin.get("round"),
        "version": change.after.version,
    }
    told = [News("game.started", change.game, at, started)]
    if origin.get("open_game"):
        told.insert(0, News("open_game.filled", change.game, at, {"open_game": origin["open_game"], "seat": seat}))
    return told


def _ended(change: Change, end: GameEnded, version: int, seat: int, at: str) -> News:
    order = list(places(change.after))
    data = {
        "seat": seat,
        "version": version,
        "reason": end.reason,
        "winners": list(end.winners),
        "places": order,
        "place": order[seat],
        "rated": bool(change.settings.get("rated")),
    }
    return News("game.ended", change.game, at, data)


def rating_changed(game: str, recorded: dict[str, Any]) -> dict[str, News]:
    """Each rated person's ``rating.changed``, by account, from a game's recorded ratings
    (application/lobby/ratings.py); a bot level has no stream."""
    at = now()
    return {
        seat["player"]: News(
            "rating.changed",
            game,
            at,
            {"seat": seat["seat"], "place": seat["place"], "before": seat["before"], "after": seat["after"]},
        )
        for seat in recorded["seats"]
        if not seat["player"].startswith(BOT)
    }


def rematch_offered(
    game: str, by: int, status: dict[str, Any], seats: list[dict[str, Any]], held: dict[int, str]
) -> dict[str, News]:
    """The ``rematch.offered`` of each person still awaited, by account, once seat ``by`` has
    accepted the rematch of ``game`` (``status``: who accepted, who is awaited)."""
    at = now()
    return {
        held[seat]: News(
            "rematch.offered",
            game,
            at,
            {
                "seat": seat,
                "by": by,
                "by_name": seats[by].get("name"),
                "accepted": status["accepted"],
                "waiting_for": status["waiting_for"],
            },
        )
        for seat in status["waiting_for"]
        if seat in held and seat != by
    }


def challenge_news(kind: str, challenge: dict[str, Any], told: str) -> News:
    """A challenge's ``challenge.<kind>`` for ``told`` (one of its two people): the other person,
    the game asked for, and the answer's reason or game."""
    other = challenge["to"] if told == challenge["from"]["account"] else challenge["from"]
    data = {
        "challenge": challenge["id"],
        "other": other["account"],
        "other_name": other["name"],
        "options": challenge["options"],
        "rated": challenge["rated"],
        "reason": challenge["reason"],
        "game": challenge["game"],
    }
    return News(f"challenge.{kind}", challenge["id"], now(), data)


def tournament_news(kind: str, doc: dict[str, Any], round_: int | None = None, place: int | None = None) -> News:
    """A tournament's ``tournament.<kind>``: its name, and the bye's round, the reason it was
    cancelled or the person's final place."""
    data = {
        "tournament": doc["id"],
        "name": doc["name"],
        "round": round_,
        "reason": doc.get("reason") if kind == "cancelled" else None,
        "place": place,
    }
    return News(f"tournament.{kind}", doc["id"], now(), data)
