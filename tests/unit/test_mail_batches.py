"""The mail batch's rules on fakeredis: a game is in it as its latest turn, whichever alert's job
joins last, and each alert is marked with what the sent batch did with it."""

from __future__ import annotations

import fakeredis

from application.alerts.mail_batches import REPLACED, MailBatches


def _item(game: str, turn: int) -> dict:
    return {"game": game, "seat": 1, "turn": turn, "kind": "turn.started"}


def test_a_game_is_in_the_batch_as_its_latest_turn_whichever_alert_joins_last():
    batches = MailBatches(fakeredis.FakeRedis())
    batches.join("acct", "al_1", _item("g", 3), due_ms=1_000)
    batches.join("acct", "al_2", _item("g", 5), due_ms=9_000)  # the turn came back: it replaces turn 3
    batches.join("acct", "al_0", _item("g", 1), due_ms=9_000)  # an older alert's job running late: kept out
    batches.join("acct", "al_2", _item("g", 5), due_ms=9_000)  # a retry joins nothing again
    batches.join("acct", "al_9", _item("h", 2), due_ms=9_000)
    assert batches.take("acct", now_ms=999) == (None, 1_000)  # due when the first alert opened it
    batch, _ = batches.take("acct", now_ms=1_000)
    assert batch is not None
    assert sorted((i["game"], i["turn"], i["alert"]) for i in batch["items"]) == [("g", 5, "al_2"), ("h", 2, "al_9")]

    batches.sent("acct", batch["id"], {"al_2": "sent", "al_9": "the turn was already played"})
    assert batches.take("acct", now_ms=2_000) == (None, 0)
    assert batches.outcome("acct", "al_2") == "sent"
    assert batches.outcome("acct", "al_9") == "the turn was already played"
    assert batches.outcome("acct", "al_1") == REPLACED  # its game went out as a later turn's alert
