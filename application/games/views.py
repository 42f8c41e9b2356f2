"""The pictures of its games this process drew lately (``domain.view``), so that a seat that
polls an unchanged game gets its picture without drawing it again.

States are immutable and the repository hands out the same state object while a game does not
change, so a picture drawn of that very object (``is``, not equal: a game that lost its last
writes may come back with another state of the same version) is still its picture. Callers
treat a picture as read-only: they copy what they add to.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from domain import Game, view

VIEW_CACHE = 1024  #: pictures a process keeps, one per game and seat (about 5 KB each)


class ViewMemo:
    def __init__(self, size: int = VIEW_CACHE) -> None:
        self.size = size
        self._drawn: OrderedDict[tuple[str, int | None], tuple[Game, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def view(self, game: str, state: Game, seat: int | None) -> dict[str, Any]:
        """``domain.view(state, seat)``, drawn once per state object (read-only)."""
        key = (game, seat)
        found = self._drawn.get(key)
        if found is not None and found[0] is state:
            return found[1]
        picture = view(state, seat)
        with self._lock:
            self._drawn[key] = (state, picture)
            self._drawn.move_to_end(key)
            while len(self._drawn) > self.size:
                self._drawn.popitem(last=False)
        return picture
