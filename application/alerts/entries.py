"""Turn alerts: the outbox entries an append writes when it becomes a person's turn.

An alert is an outbox entry written by the same append as the ``TurnStarted`` that causes it,
so none is lost, and it is named by the game and seat (``al:<game>:<seat>``), so a newer turn
of the same seat replaces one not yet sent; a deadline reminder is one entry per game
(``al:<game>:deadline``), set when a turn with a deadline starts and cleared by the next turn.
Only seats kept in an account are alerted: the account holds the person's channels
(application/alerts/channel_settings.py), and workers/alert_jobs.py delivers.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from application.background.work import WORK
from application.games import clocks
from application.outbound.webhooks import DEADLINE_WARNING
from domain import Event, Game
from domain.events import GameEnded, TurnStarted
from events.outbox import now_ms
from events.store import OutboxWrite

PREFIX = WORK["alert"].prefix
KINDS = ("turn.started", "turn.deadline_near", "challenge.received")


def _alert(game: str, account: str, seat: int, turn: int, version: int, kind: str, **data: Any) -> str:
    """An alert's payload: its id is the same on every retry (the key that deduplicates it)."""
    doc = {"id": f"al_{uuid.uuid4().hex}", "game": game, "account": account, "seat": seat, "turn": turn}
    return json.dumps({**doc, "version": version, "kind": kind, **data}, sort_keys=True)


def alert_entries(
    game: str, events: list[Event], first_seq: int, state: Game, settings: dict[str, Any]
) -> list[OutboxWrite]:
    """The alerts the events (the first one at version ``first_seq``) cause: "your turn" for a
    seat kept in an account, and the reminder before its deadline (or the clearing of the
    previous turn's reminder)."""
    started = next(((first_seq + i, e) for i, e in enumerate(events) if isinstance(e, TurnStarted)), None)
    ended = any(isinstance(e, GameEnded) for e in events)
    if started is None and not ended:
        return []
    writes = [OutboxWrite(f"{PREFIX}{game}:deadline", None)]  # the turn before is over
    if started is None or state.finished:
        return writes
    version, turn = started
    account = settings.get("accounts", {}).get(turn.seat)
    seat = settings["seats"][turn.seat]
    if account is None or seat["kind"] != "human":
        return writes
    at = now_ms()
    writes = [
        OutboxWrite(
            f"{PREFIX}{game}:{turn.seat}", _alert(game, account, turn.seat, turn.number, version, "turn.started"), at
        )
    ]
    deadline_ms = clocks.deadline_ms(settings, turn.seat, at)
    if deadline_ms is not None:
        warning_ms = int(min(300_000, (deadline_ms - at) * DEADLINE_WARNING))
        reminder = _alert(
            game, account, turn.seat, turn.number, version, "turn.deadline_near", seconds_left=warning_ms / 1000
        )
        writes.append(OutboxWrite(f"{PREFIX}{game}:deadline", reminder, deadline_ms - warning_ms))
    else:
        writes.append(OutboxWrite(f"{PREFIX}{game}:deadline", None))
    return writes


def challenge_alert(challenge: dict[str, Any]) -> OutboxWrite:
    """The challenged person's alert of a challenge (application/challenges/), on their turn-alert
    channels: named by the challenge (``al:<challenge>:challenge``, its shard the challenge's), so it
    is written once. Its ``game`` is the challenge's id, as in the person's stream."""
    payload = _alert(challenge["id"], challenge["to"]["account"], 0, 0, 0, "challenge.received")
    shown = {"by_name": challenge["from"]["name"], "options": challenge["options"], "rated": challenge["rated"]}
    return OutboxWrite(f"{PREFIX}{challenge['id']}:challenge", json.dumps({**json.loads(payload), **shown}), now_ms())
