"""How a finished game ended, for its index summary (a player's games searched by ``ended``).

The rules end every game the same way, by the event ``GameEnded`` (R11, P16); what differs is
who made the move that caused it, which the command's record (each event's ``meta``) keeps:

- ``played``: a seat's own move, a person's through the API or a bot seat's by its bot;
- ``clock``: the workers played the turn of a seat whose time ran out (a turn's deadline or an
  empty time bank: application/games/clocks.py; the move's ``reason`` is ``deadline``);
- ``admin``: an operator ended it (``bluemoon-admin games end``, application/admin/game_ending.py:
  the moves it plays are recorded ``by`` ``admin``).

The rules know no resignation or abandonment: a seat that stops playing is played by its
deadline's level until the game ends, which is the ``clock`` ending.
"""

from __future__ import annotations

import json

from domain import Game
from domain.standings import places

#: every way a game ends, as the summary and the search's ``ended`` filter name it
ENDINGS = ("played", "clock", "admin")


def ending(meta: str) -> str:
    """How the command whose record is ``meta`` (JSON) ended the game."""
    record = json.loads(meta or "{}")
    if record.get("by") == "admin":
        return "admin"
    return "clock" if record.get("reason") == "deadline" else "played"


def end_fields(state: Game, meta: str | None) -> dict[str, object]:
    """The summary's ``places`` (each seat's, 1 the best: domain/standings.py) and ``ended``: both
    None while the game is in play. ``meta``: the record of the command that made ``state``."""
    if not state.finished:
        return {"places": None, "ended": None}
    return {"places": list(places(state)), "ended": ending(meta or "{}")}
