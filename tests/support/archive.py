"""Finished games moved to the archive in tests, as a worker would move them."""

from __future__ import annotations

from events import keys


def work_done(components, game: str) -> None:
    """The game's other outbox entries (its people's news, turn alerts) done, as workers would."""
    payloads = keys.outbox(keys.shard(game))[0]
    for name, payload in list(components.client.hscan_iter(payloads, match=f"*{game}*")):
        if not name.startswith(b"ar:"):
            components.service.outbox.finish(name.decode(), payload.decode())


def moved(components, game: str) -> None:
    """``game`` (finished) moved out of Redis into the service's archive now."""
    work_done(components, game)
    assert components.mover.move(game) == "moved"


def forget_opened_archives() -> None:
    """What a new process would not have: the archives this one opened (application/archive/opening.py)."""
    from application.archive import opening

    with opening._lock:
        for archive in opening._opened.values():
            archive.engine.dispose()
        opening._opened.clear()
