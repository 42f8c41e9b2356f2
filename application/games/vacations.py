"""Vacations: days away that pause every clock of a person's (application/games/clocks.py).

A person has ``VACATION_DAYS`` a calendar year (14 unless the operator sets otherwise). Going
away until a time spends the days it touches (a day begun counts whole), from the days of the
year it starts in, and is written into each of their games: their turn's deadline moves by the
time away, and the other seats see until when they are away. Asking again while away moves the
end of the same span. Coming back early gives back the whole days not begun, and moves the
deadlines back by the time not spent away.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

from application.accounts.account_service import Accounts
from application.background.turns import TurnTicket
from application.games.clocks import Clocks
from application.refusals import ServiceError
from application.settings import BLUEMOON_VACATION_DAYS
from events import keys
from events.outbox import Outbox, now_ms
from events.redis_store import RedisStore, text

DAY_MS = 86_400_000
VACATION_DAYS = BLUEMOON_VACATION_DAYS.read()  #: days away a person has a year


class VacationRefused(ServiceError):
    status, code, title = 422, "vacation_refused", "The vacation cannot be taken"


def _days(start_ms: int, end_ms: int) -> int:
    return max(1, math.ceil((end_ms - start_ms) / DAY_MS))


def _year(at_ms: int) -> int:
    return datetime.fromtimestamp(at_ms / 1000, UTC).year


class Vacations:
    def __init__(self, store: RedisStore, accounts: Accounts, clocks: Clocks, outbox: Outbox) -> None:
        self.store, self.client = store, store.client
        self.accounts, self.clocks, self.outbox = accounts, clocks, outbox

    def status(self, account: str) -> dict[str, Any]:
        at = now_ms()
        current = self._away(account, at)
        return {
            "away_until": _iso(current[1]) if current else None,
            "days_per_year": VACATION_DAYS,
            "days_left": VACATION_DAYS - self._used(account, _year(at)),
        }

    def go_away(self, account: str, until_ms: int) -> dict[str, Any]:
        """Pause every clock of the person's until ``until_ms`` (refused past the days left). A
        span under way is moved to end then instead: it keeps its start, so it is charged the
        days between its start and ``until_ms`` once, however often the same span is asked for.
        A refusal changes nothing."""
        at = now_ms()
        if until_ms <= at:
            raise VacationRefused(
                "'until' must be in the future", field="until", errors={"until": ["must be in the future"]}
            )
        current = self._away(account, at)
        start, ended = (current[0], current[1]) if current else (at, at)
        charged = _days(start, ended) if current else 0
        days, year = _days(start, until_ms), _year(start)
        left = VACATION_DAYS - self._used(account, year) + charged
        if days > left:
            detail = f"{days} days asked, {left} of {VACATION_DAYS} left in {year}"
            raise VacationRefused(detail, field="until", errors={"until": [detail]})
        self._write(account, [start, until_ms], days - charged, year)
        self._shift(account, (start, until_ms), until_ms - ended)
        return self.status(account)

    def come_back(self, account: str) -> dict[str, Any]:
        """End the vacation now: whole days not begun are given back (to the year that was
        charged for them), deadlines move back."""
        at = now_ms()
        away = self._away(account, at)
        if away is None:
            return self.status(account)
        unused = _days(away[0], away[1]) - _days(away[0], at)
        self._write(account, [away[0], at], -unused, _year(away[0]))
        self._shift(account, (away[0], at), -(away[1] - at))
        return self.status(account)

    def _away(self, account: str, at: int) -> list[int] | None:
        """The span under way at ``at`` (start, end in ms), if any."""
        found = self.client.hget(keys.vacation(account), "away")
        away = json.loads(found) if found else None
        return away if away and away[1] > at else None

    def _used(self, account: str, year: int) -> int:
        return int(self.client.hget(keys.vacation(account), f"days:{year}") or 0)

    def _write(self, account: str, away: list[int], days: int, year: int) -> None:
        """Keep the span and count the days against ``year`` (one write each: a durable write is
        one command)."""
        record = keys.vacation(account)
        self.store.durably(record, lambda c: c.hset(record, "away", json.dumps(away)))
        self.store.durably(record, lambda c: c.hincrby(record, f"days:{year}", days))

    def _shift(self, account: str, span: tuple[int, int], by_ms: int) -> None:
        """Write the span into each of the person's games, and move their pending deadline."""
        for game, seat in self.accounts.seats(account).items():
            self.clocks.set_away(game, seat, span)
            found = self.client.hget(keys.outbox_of(game)[0], game)
            if found is None:
                continue
            ticket = TurnTicket.from_payload(text(found))
            if ticket.reason != "deadline" or ticket.seat != seat or ticket.deadline_ms is None:
                continue
            moved = TurnTicket(**{**ticket.__dict__, "deadline_ms": ticket.deadline_ms + by_ms, "tries": 1})
            self.outbox.replace(game, text(found), moved.payload(), moved.deadline_ms or 0)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
