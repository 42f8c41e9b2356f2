"""Chat reaches the seats' webhooks (`chat.message`), delivered by a real worker to a real HTTP
receiver, and never carries the words of someone the seat's person mutes."""

from __future__ import annotations

import pytest

from tests.support.chat import seated_game
from tests.support.workers import WORKER_ENV, wait_until


@pytest.mark.slow
def test_a_seats_webhook_gets_chat_messages_but_never_those_of_someone_its_person_mutes(hooks_env, receivers):
    """Slow (about 3 s): a real worker process starts and delivers six messages over HTTP."""
    api, workers = hooks_env
    game, (ada, bo) = seated_game(api, "ada", "bo")
    inbox = {}
    for who in (ada, bo):
        inbox[who.account] = receivers(200)
        made = api.post(
            f"/games/{game}/webhooks",
            token=who.seat_token,
            json={"url": inbox[who.account].url, "events": ["game.ended"], "chat": True},
        )
        assert made.status_code == 201 and made.json["chat"] is True
    api.app.extensions["bluemoon"].relations.mute(ada.account, bo.account)
    workers.start(**WORKER_ENV)
    for who, text in ((bo, "muted words"), (ada, "hello"), (bo, "more muted words"), (ada, "bye")):
        assert api.post(f"/games/{game}/chat/seats", token=who.seat_token, json={"text": text}).status_code == 201

    def texts(account: str) -> list[str]:
        return [m["json"]["data"]["text"] for m in inbox[account].messages("chat.message")]

    wait_until(lambda: len(texts(bo.account)) == 4, 20, "bo's webhook to get all four messages")
    wait_until(lambda: len(texts(ada.account)) >= 2, 20, "ada's webhook to get her own two")
    assert sorted(texts(bo.account)) == sorted(["muted words", "hello", "more muted words", "bye"])
    assert sorted(texts(ada.account)) == ["bye", "hello"]
    delivered = inbox[ada.account].messages("chat.message")[0]["json"]
    assert delivered["game"] == game and delivered["seat"] == 0 and delivered["data"]["room"] == "seats"
