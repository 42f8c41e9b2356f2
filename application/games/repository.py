"""The games' current states, as this process knows them: the application's repository.

Streams only grow, so a state kept from an earlier request plus the events after it is the
current state: a request folds only what is new, not the whole game. The store (events/)
keeps the events and the snapshots; this cache of recent states belongs to the application.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from application.settings import BLUEMOON_STATE_CACHE
from domain import Game, evolve
from events.serialization import StoredEvent
from events.store import SNAPSHOT_EVERY, EventStore

#: Games whose latest state a process keeps in memory (about 20 KiB each). Every web worker
#: serves commands of every game, played in turn, so a least-recently-used cache smaller than
#: the games in play misses every time and each command decodes the game's snapshot: it holds
#: 16,384 unless ``BLUEMOON_STATE_CACHE`` says otherwise (docs/settings.md).
STATE_CACHE = BLUEMOON_STATE_CACHE.read()


class GameRepository:
    def __init__(self, store: EventStore, size: int = STATE_CACHE) -> None:
        self.store = store
        self.size = size
        self._states: OrderedDict[str, Game] = OrderedDict()
        self._lock = threading.Lock()

    def load(self, game: str) -> Game | None:
        """The current state: the kept one brought up to date, else the store's (from its
        snapshot). A stream that came back shorter than the kept state (Redis lost its last
        writes in a crash, a failover or a restore) drops it, and the store folds the game
        again from the stream as it now is."""
        kept = self._states.get(game)
        if kept is not None:
            return self.caught_up(game, kept, self.store.read(game, after=kept.version - 1))
        state = self.store.load(game)
        if state is not None:
            self.remember(game, state)
        return state

    def kept(self, game: str) -> Game | None:
        """The state this process kept of ``game``, maybe behind: a caller reads the events
        from its version on with whatever else it reads, and hands them to ``caught_up``."""
        return self._states.get(game)

    def caught_up(self, game: str, kept: Game, stored: list[StoredEvent]) -> Game | None:
        """``kept`` brought up to date by ``stored``, the stream read from ``kept``'s own last
        event on, and kept in its place; a stream shorter than ``kept`` is loaded anew (``load``)."""
        holds = bool(stored) and stored[0].seq == kept.version
        return self.advanced(game, kept, stored[1:] if holds else None)

    def advanced(self, game: str, kept: Game, newer: list[StoredEvent] | None) -> Game | None:
        """``kept`` with ``newer`` (the events after it) applied, and kept in its place; None for
        ``newer`` says the stream no longer holds ``kept``'s version: the game is loaded anew."""
        if newer is None:
            self.forget(game)
            return self.load(game)
        state = kept
        for stored in newer:
            state = evolve(state, stored.event)
        self.remember(game, state, kept)
        return state

    def remember(self, game: str, state: Game, before: Game | None = None) -> None:
        """Keep ``state`` as ``game``'s current state, writing a snapshot each time the game
        passes a multiple of SNAPSHOT_EVERY events (the store keeps only the newest)."""
        before = before if before is not None else self._states.get(game)
        if before is not None and state.version // SNAPSHOT_EVERY > before.version // SNAPSHOT_EVERY:
            self.store.save_snapshot(game, state)
        with self._lock:
            self._states[game] = state
            self._states.move_to_end(game)
            while len(self._states) > self.size:
                self._states.popitem(last=False)

    def forget(self, game: str) -> None:
        with self._lock:
            self._states.pop(game, None)

    def state_at(self, game: str, version: int) -> Game | None:
        """The state after ``version`` events (time travel), folded from the start."""
        return self.store.state_at(game, version)
