"""Clocks for async play: a fixed deadline per turn, or a time bank per seat; and vacations,
which pause every clock of the person who is away.

A **time bank** (chosen when the game is made) gives each human seat ``bank`` seconds in all: a
turn may use what is left, and each turn the seat ends adds ``increment`` seconds, never above
``cap``, as Board Game Arena's clocks do. When a seat's bank runs out in its turn, what happens
is what happens at a fixed deadline: the deadline's level plays the turn (and the audit shows
it, ``deadline:<level>``), and the bank starts again from the increment.

The game's clock record (events/keys.py ``clock``, in the game's slot) holds each seat's bank,
the turn under way (its seat and start), both written by the append that ends or starts a
turn, and the seats whose person is **away**: a vacation
writes its time into each game of the person's (application/games/vacations.py), so a turn's deadline
is computed from the game's own record, and the other seats see it in the view. Time away is
not charged to a bank, and a deadline that falls in it moves by its length.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson

from domain import Event
from domain.events import TurnEnded, TurnStarted
from events import keys
from events.redis_store import RedisStore, text
from events.store import HashWrite


@dataclass(frozen=True)
class Bank:
    bank: int  #: seconds each seat starts with
    increment: int  #: seconds added each time the seat ends its turn
    cap: int  #: the most a bank may hold

    @classmethod
    def of(cls, settings: dict[str, Any]) -> Bank | None:
        found = settings.get("clock")
        return cls(found["bank"], found["increment"], found["cap"]) if found else None


def read(raw: dict[Any, Any]) -> dict[str, Any]:
    """The clock record as stored (a hash of JSON fields): banks (ms by seat), turn, away."""
    found = {text(k): orjson.loads(v) for k, v in raw.items()}
    return {
        "banks": {int(s): ms for s, ms in found.get("banks", {}).items()},
        "turn": found.get("turn"),
        "away": {int(s): tuple(span) for s, span in found.get("away", {}).items()},
    }


def away_overlap(away: tuple[int, int] | None, start_ms: int, end_ms: int) -> int:
    """How much of [start, end] the person was away (ms)."""
    if away is None:
        return 0
    return max(0, min(end_ms, away[1]) - max(start_ms, away[0]))


def bank_left_ms(settings: dict[str, Any], seat: int) -> int | None:
    """What the seat's bank holds before its turn (ms), or None without a time bank."""
    bank = Bank.of(settings)
    if bank is None:
        return None
    return settings.get("clocks", {}).get("banks", {}).get(seat, bank.bank * 1000)


def deadline_ms(settings: dict[str, Any], seat: int, started_ms: int) -> int | None:
    """When a turn of ``seat`` that starts at ``started_ms`` must end: its bank, or the game's
    fixed deadline, counted from the end of its person's time away if they are away."""
    budget = bank_left_ms(settings, seat)
    if budget is None:
        fixed = settings.get("turn_deadline")
        if not fixed:
            return None
        budget = int(fixed) * 1000
    away = settings.get("clocks", {}).get("away", {}).get(seat)
    begins = max(started_ms, away[1]) if away and away[0] <= started_ms < away[1] else started_ms
    return begins + budget


def _charged(bank: Bank, left: int, used: int) -> int:
    return min(bank.cap * 1000, max(0, left - used) + bank.increment * 1000)


def current_away(client: Any, account: str, at_ms: int) -> tuple[int, int] | None:
    """The person's vacation under way at ``at_ms`` (start, end in ms), if any."""
    found = client.hget(keys.vacation(account), "away")
    span = json.loads(found) if found else None
    return (span[0], span[1]) if span and span[0] <= at_ms < span[1] else None


class Clocks:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client

    @staticmethod
    def record(game: str, events: list[Event], settings: dict[str, Any], at_ms: int) -> HashWrite | None:
        """What the append of ``events`` writes to the clock record with them: the bank of a
        seat that ended its turn charged, and the turn that started noted. None without a bank
        or without a turn's end or start. Written by the append itself (``EventStore.append``'s
        ``record``), so the clock is never behind an acknowledged turn and costs no round trip."""
        bank = Bank.of(settings)
        if bank is None or not any(isinstance(e, (TurnStarted, TurnEnded)) for e in events):
            return None
        clocks = settings.get("clocks") or read({})
        banks, turn = dict(clocks["banks"]), clocks["turn"]
        for event in events:
            if isinstance(event, TurnEnded) and turn and turn["seat"] == event.seat:
                if settings["seats"][event.seat]["kind"] == "human":
                    used = (
                        at_ms - turn["started"] - away_overlap(clocks["away"].get(event.seat), turn["started"], at_ms)
                    )
                    banks[event.seat] = _charged(bank, banks.get(event.seat, bank.bank * 1000), used)
            elif isinstance(event, TurnStarted):
                turn = {"seat": event.seat, "number": event.number, "started": at_ms}
        fields = (("banks", json.dumps({str(s): ms for s, ms in banks.items()})), ("turn", json.dumps(turn)))
        return HashWrite(keys.clock(game), fields)

    def set_away(self, game: str, seat: int, span: tuple[int, int] | None) -> None:
        """Mark the seat's person away for ``span`` (ms), or back (None)."""
        key = keys.clock(game)
        found = read(self.client.hgetall(key))["away"]
        if span is None:
            found.pop(seat, None)
        else:
            found[seat] = span
        away = json.dumps({str(s): list(v) for s, v in found.items()})
        self.store.durably(key, lambda c: c.hset(key, "away", away))

    @staticmethod
    def shown(settings: dict[str, Any], seats: int, now_ms: int) -> list[dict[str, Any]]:
        """Each seat's clock as the view shows it: its bank left (ms, running down in its turn)
        and until when its person is away."""
        clocks = settings.get("clocks") or read({})
        turn = clocks["turn"]
        shown = []
        for seat in range(seats):
            left = bank_left_ms(settings, seat)
            away = clocks["away"].get(seat)
            if left is not None and turn and turn["seat"] == seat:
                left = max(0, left - (now_ms - turn["started"]) + away_overlap(away, turn["started"], now_ms))
            shown.append(
                {
                    "seat": seat,
                    "bank_ms": left,
                    "away_until": away[1] if away and away[1] > now_ms else None,
                }
            )
        return shown
