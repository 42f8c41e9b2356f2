"""Ending a game by hand, as its clock would, and deleting one.

The rules have no way to stop a game early, so an operator's end plays the rest of it as the
turn jobs play a turn whose time ran out: each human seat's turn at the game's deadline level
(``pass`` unless the game chose a bot level; the audit shows ``deadline:<level>``), each bot's
turn by its own bot, until the rules end it (with ``pass``, the stalemate rule P16 ends it
after ten quiet rounds). Each move's record says an operator's end played it
(``by: admin``; the index's ``ended``: events/endings.py). Nothing is invented: every move is a legal command appended as the
workers append theirs, under their keys, so a worker playing the same turn meanwhile plays it
once. Games created under rules without the stalemate never end by passing: those need a bot
level (``level``).

Deleting removes every key of the game and every key that names it, as the sweep of games never
started does (application/games/sweeps.py: one place knows a game's keys).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from application.games.game_service import GameService
from application.games.sweeps import Sweeper
from domain.decide import STALEMATE_SINCE_RULES
from events import keys

#: Turns played at most to end one game: a game of four seats that passes ends after 40.
MOST_TURNS = 2000

#: How a turn is played: (service, game, seat, turn number, level, reason, by=...) -> str, as
#: ``workers.turn_jobs.play`` (the application does not import the workers: the CLI hands it in).
PlayTurn = Callable[..., Any]


class CannotEnd(Exception):
    """The game cannot be ended this way: the message says why."""


def end(service: GameService, game: str, play_turn: PlayTurn, level: str | None = None) -> dict[str, Any]:
    """Play ``game`` to its end (see module doc); returns its version, result and the turns played."""
    settings = service.settings(game)
    state = service.state(game)
    human_level = level or settings.get("deadline_level") or "pass"
    if human_level == "pass" and state.rules < STALEMATE_SINCE_RULES and not state.finished:
        raise CannotEnd(f"{game} was created under rules without the stalemate: passing never ends it (give a level)")
    played = 0
    while not state.finished:
        if played >= MOST_TURNS:
            raise CannotEnd(f"{game} did not end after {MOST_TURNS} turns")
        turn = state.turn
        assert turn is not None, "a game that is not finished has a turn"
        seat = settings["seats"][turn.seat]
        if seat["kind"] == "bot":
            play_turn(service, game, turn.seat, turn.number, seat.get("level") or "greedy", "bot", by="admin")
        else:
            play_turn(service, game, turn.seat, turn.number, human_level, "deadline", by="admin")
        played += 1
        state = service.state(game)
    return {
        "game": game,
        "version": state.version,
        "result": {
            "reason": state.result.reason.value if state.result else None,
            "winners": list(state.result.winners) if state.result else [],
        },
        "turns_played": played,
    }


def delete(client: Any, game: str) -> bool:
    """Remove every key of ``game``; False when there was no such game."""
    if not client.exists(keys.stream(game)) and not client.exists(keys.meta(game)):
        return False
    Sweeper(client).remove(game)
    client.zrem(keys.unstarted(keys.shard(game)), game)
    return True
