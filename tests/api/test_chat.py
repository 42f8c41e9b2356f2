"""A game's chat over the API: who writes and reads which room, paging, deleting one's own
message, what a message may hold, the rate limit, blocks and suspensions, retries, chat after
the end (and the audit unchanged by it), and mutes in the room read and the long poll."""

from __future__ import annotations

import json

import pytest

from application.chat.messages import LONGEST_MESSAGE
from application.retries import Retries
from application.settings import CHAT_MESSAGES_PER_MINUTE
from events import keys
from events.redis_store import text
from tests.support.chat import person, seated_game
from tests.support.games import game_and_tokens


def _room(game: str, room: str = "seats") -> str:
    return f"/games/{game}/chat/{room}"


def _post(api, game, text, token=None, room="seats", **kw):
    return api.post(_room(game, room), json={"text": text}, token=token, **kw)


def test_the_seats_talk_in_their_room_and_a_stranger_can_neither_read_nor_write_it(api):
    game, (ada, bo) = game_and_tokens(api)
    sent = _post(api, game, "good luck, have fun", ada)
    assert sent.status_code == 201 and sent.json["seat"] == 0 and sent.json["text"] == "good luck, have fun"
    assert [m["text"] for m in api.get(_room(game), token=bo).json["messages"]] == ["good luck, have fun"]

    stranger = person(api, "eve")
    for token in (None, stranger.token):  # nobody, and someone signed in who holds no seat
        refused = api.get(_room(game), token=token)
        assert refused.status_code == 403 and "good luck" not in refused.get_data(as_text=True)
    assert _post(api, game, "let me in", stranger.token).status_code == 403
    assert _post(api, game, "anyone?", None, room="spectators").status_code == 401

    watched = _post(api, game, "nice move", stranger.token, room="spectators")
    assert watched.status_code == 201 and watched.json["seat"] is None and watched.json["author"] == stranger.account
    assert _post(api, game, "seats write in their own room", ada, room="spectators").status_code == 403
    for token in (ada, stranger.token, None):  # the spectators' room: the seats read it too, and anyone watching
        assert [m["text"] for m in api.get(_room(game, "spectators"), token=token).json["messages"]] == ["nice move"]
    assert [m["text"] for m in api.get(_room(game), token=ada).json["messages"]] == ["good luck, have fun"]
    assert api.get(_room(game, "lobby"), token=ada).status_code == 404


def test_a_room_is_read_page_by_page_after_a_cursor(api):
    game, (ada, bo) = game_and_tokens(api)
    for n in range(5):
        assert _post(api, game, f"line {n}", (ada, bo)[n % 2]).status_code == 201
    first = api.get(f"{_room(game)}?limit=2", token=ada).json
    assert [m["text"] for m in first["messages"]] == ["line 0", "line 1"] and first["more"]
    second = api.get(f"{_room(game)}?limit=2&after={first['next']}", token=ada).json
    last = api.get(f"{_room(game)}?limit=2&after={second['next']}", token=ada).json
    assert [m["text"] for m in second["messages"] + last["messages"]] == ["line 2", "line 3", "line 4"]
    assert not last["more"]
    after_all = api.get(f"{_room(game)}?after={last['next']}", token=ada).json
    assert after_all["messages"] == [] and after_all["next"] == last["next"]
    assert api.get(f"{_room(game)}?after=yesterday", token=ada).status_code == 422


def test_an_author_deletes_their_message_and_the_other_seat_sees_it_deleted_without_its_words(api):
    game, (ada, bo) = game_and_tokens(api)
    sent = _post(api, game, "sorry, wrong card", ada).json
    mine = f"{_room(game)}/{sent['id']}"
    assert api.delete(mine, token=bo).json["code"] == "not_your_message"
    assert api.delete(mine, token=ada).status_code == 204
    assert api.delete(mine, token=ada).status_code == 204  # again: nothing more happens
    (seen,) = api.get(_room(game), token=bo).json["messages"]
    assert seen["id"] == sent["id"] and seen["removed"] == "deleted" and seen["text"] is None
    assert "wrong card" not in api.get(_room(game), token=bo).get_data(as_text=True)
    assert api.delete(f"{_room(game)}/0-999", token=ada).status_code == 404


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n ",
        "x" * (LONGEST_MESSAGE + 1),
        "pay me \u202ereversed",  # a bidi override
        "an \u2066isolate\u2069",
        "a bell \x07",
        "a tab\there",
        "a C1 control \x85",
        "a NUL \x00",
    ],
)
def test_a_message_too_long_empty_or_with_controls_is_refused_naming_text_and_nothing_is_kept(api, text):
    game, (ada, _) = game_and_tokens(api)
    refused = _post(api, game, text, ada)
    assert refused.status_code == 422 and "text" in refused.json["errors"]
    assert api.get(_room(game), token=ada).json["messages"] == []


def test_a_message_of_500_characters_with_newlines_is_kept_as_plain_text(api):
    game, (ada, bo) = game_and_tokens(api)
    words = "<b>bold?</b>\nline two " + "y" * (LONGEST_MESSAGE - 22)
    assert len(words) == LONGEST_MESSAGE and _post(api, game, words, ada).status_code == 201
    assert api.get(_room(game), token=bo).json["messages"][0]["text"] == words  # as written: never markup here


def test_a_person_posts_at_most_the_documented_number_a_minute_in_one_game(api):
    game, (ada, bo) = game_and_tokens(api)
    most = CHAT_MESSAGES_PER_MINUTE.default
    for n in range(most):
        assert _post(api, game, f"spam {n}", ada).status_code == 201
    refused = _post(api, game, "one more", ada)
    assert refused.status_code == 429 and refused.json["code"] == "chat_rate_limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60 and refused.json["limit"] == "CHAT_MESSAGES_PER_MINUTE"
    assert _post(api, game, "the other seat still may", bo).status_code == 201
    other, (ada_elsewhere, _) = game_and_tokens(api)
    assert _post(api, other, "and in another game", ada_elsewhere).status_code == 201
    assert len(api.get(_room(game), token=bo).json["messages"]) == most + 1


def test_someone_a_seat_blocks_cannot_write_and_a_suspended_account_cannot_either(api):
    game, (ada, bo) = seated_game(api, "ada", "bo")
    mallory = person(api, "mallory")
    components = api.app.extensions["bluemoon"]
    components.relations.block(ada.account, mallory.account)
    refused = _post(api, game, "hello there", mallory.token, room="spectators")
    assert refused.status_code == 403 and refused.json["code"] == "not_allowed"
    assert "block" not in refused.json["detail"]  # they see that they cannot, not why
    _post(api, game, "said before the block", bo.token)
    components.relations.block(ada.account, bo.account)  # a seat blocked by the other seat: no word to them
    assert api.get(_room(game), token=ada.token).json["messages"] == []  # nor are their words shown to the blocker
    assert len(api.get(_room(game), token=bo.token).json["messages"]) == 1
    for token in (bo.token, bo.seat_token):
        assert _post(api, game, "hey", token).json["code"] == "not_allowed"
    assert api.get(_room(game, "spectators"), token=ada.token).json["messages"] == []

    components.suspensions.suspend(ada.account, 3600, "spam", "moderator")
    suspended = _post(api, game, "hello", ada.token)
    assert suspended.status_code == 403 and suspended.json["code"] == "account_suspended"
    assert _post(api, game, "hello", ada.seat_token).json["code"] == "account_suspended"  # the seat is the account's


def test_a_message_retried_with_its_idempotency_key_is_kept_once(api):
    game, (ada, bo) = game_and_tokens(api)
    first = _post(api, game, "rematch?", ada, headers={"Idempotency-Key": "ask-1"})
    again = _post(api, game, "rematch?", ada, headers={"Idempotency-Key": "ask-1"})
    assert first.status_code == again.status_code == 201 and first.json == again.json
    assert _post(api, game, "rematch!", ada, headers={"Idempotency-Key": "ask-1"}).status_code == 422
    assert [m["text"] for m in api.get(_room(game), token=bo).json["messages"]] == ["rematch?"]


def test_a_message_retried_with_its_idempotency_key_is_delivered_to_a_webhook_under_one_id(api, monkeypatch):
    """Two copies of one post in flight (each read no answer under its key yet) make the message
    once, and its webhook delivery once too, not a second under another ``webhook-id``. Checked
    to fail with a new id each post."""
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "203.0.113.9")
    monkeypatch.setattr(Retries, "answered", lambda self, retry: None)  # the copies overlap
    game, (ada, bo) = game_and_tokens(api)
    hook = api.post(
        f"/games/{game}/webhooks",
        token=bo,
        json={"url": "http://203.0.113.9/hook", "events": ["game.ended"], "chat": True},
    ).json
    client = api.app.extensions["bluemoon"].store.client
    payloads = keys.outbox(keys.shard(game))[0]

    def pending() -> list[str]:
        return sorted(n for n in map(text, client.hkeys(payloads)) if n.startswith(f"wh:{game}:"))

    for _ in range(2):
        assert _post(api, game, "rematch?", ada, headers={"Idempotency-Key": "ask-2"}).status_code == 201
    (name,) = pending()
    payload = json.loads(client.hget(payloads, name))
    assert payload["webhook"] == hook["id"] and json.loads(payload["body"])["data"]["text"] == "rematch?"
    _post(api, game, "another", ada)
    assert len(pending()) == 2


def test_chat_goes_on_after_the_end_and_the_audit_verifies_the_game_as_before(api):
    game = api.post("/games", json={"seats": [{"kind": "bot", "level": "random"}] * 2}).json["game"]
    api.run_workers()
    assert api.get(f"/games/{game}").json["status"] == "finished"
    log_before = api.get(f"/games/{game}/log").json
    watcher = person(api, "watcher")
    assert _post(api, game, "what a game", watcher.token, room="spectators").status_code == 201
    assert api.get(f"/games/{game}/log").json == log_before  # chat is not in the log
    audit = api.get(f"/games/{game}/audit").json
    assert audit["verified"] is True
    assert [m["text"] for m in api.get(_room(game, "spectators")).json["messages"]] == ["what a game"]


def test_a_muted_persons_words_never_reach_who_muted_them_in_the_room_or_the_long_poll(api):
    game, (ada, bo) = seated_game(api, "ada", "bo")
    api.app.extensions["bluemoon"].relations.mute(ada.account, bo.account)
    version = api.get(f"/games/{game}", token=ada.token).json["version"]
    _post(api, game, "you will never read this", bo.seat_token)
    by_account = _post(api, game, "but this you will", ada.token)  # the account that holds the seat writes as it
    assert by_account.status_code == 201 and by_account.json["seat"] == 0 and by_account.json["room"] == "seats"
    for token in (ada.token, ada.seat_token):  # the account, and the seat it holds
        assert [m["text"] for m in api.get(_room(game), token=token).json["messages"]] == ["but this you will"]
        polled = api.get(f"/games/{game}/events?after={version}&chat_after=0", token=token).json
        assert [n["message"]["text"] for n in polled["chat"]] == ["but this you will"]
        assert polled["chat_next"] == 2
    shown = api.get(f"/games/{game}/events?after={version}&chat_after=0", token=bo.token).json["chat"]
    assert [n["message"]["text"] for n in shown] == ["you will never read this", "but this you will"]
    plain = api.get(f"/games/{game}/events?after={version}", token=ada.token).json
    assert "chat" not in plain  # without chat_after, the page is as it always was
    api.app.extensions["bluemoon"].relations.unmute(ada.account, bo.account)
    assert len(api.get(_room(game), token=ada.token).json["messages"]) == 2


def test_the_long_poll_wakes_for_a_chat_message_and_tells_of_a_removal(api):
    game, (ada, bo) = game_and_tokens(api)
    version = api.get(f"/games/{game}", token=ada).json["version"]
    sent = _post(api, game, "are you there?", bo).json
    polled = api.get(f"/games/{game}/events?after={version}&chat_after=0&wait=5", token=ada).json
    assert polled["events"] == [] and [n["type"] for n in polled["chat"]] == ["chat"]
    api.delete(f"{_room(game)}/{sent['id']}", token=bo)
    removed = api.get(f"/games/{game}/events?after={version}&chat_after={polled['chat_next']}", token=ada).json
    assert [(n["type"], n["message"]) for n in removed["chat"]] == [
        ("chat.removed", {"id": sent["id"], "room": "seats", "removed": "deleted"})
    ]
    spectator = api.get(f"/games/{game}/events?after={version}&chat_after=0").json
    assert spectator["chat"] == []  # the seats' room is not theirs


def _frames(body: bytes) -> list[dict[str, str]]:
    found = []
    for block in body.decode().split("\n\n"):
        lines = [line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":")]
        if any(name == "data" for name, _ in lines):
            found.append(dict(lines))
    return found


def test_the_stream_carries_chat_as_its_own_frames_without_a_muted_persons_words(api):
    game, (ada, bo) = seated_game(api, "ada", "bo")
    api.app.extensions["bluemoon"].relations.mute(ada.account, bo.account)
    api.app.config["SSE_SECONDS"] = 1
    stream = api.app.test_client().get(
        f"/games/{game}/stream?chat=true", headers={"Authorization": f"Bearer {ada.seat_token}"}, buffered=False
    )
    chunks = iter(stream.response)
    next(chunks), next(chunks)  # the retry, then the game's events so far: the stream now follows both
    _post(api, game, "muted words", bo.seat_token)
    mine = _post(api, game, "my words", ada.seat_token).json
    api.delete(f"{_room(game)}/{mine['id']}", token=ada.seat_token)
    frames = _frames(b"".join(chunks))
    stream.close()
    assert [f["event"] for f in frames] == ["chat", "chat.removed"]
    assert all("id" not in f for f in frames)  # Last-Event-ID keeps naming the game's version
    assert "muted words" not in str(frames) and '"my words"' in frames[0]["data"]
