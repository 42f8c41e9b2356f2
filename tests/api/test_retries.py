"""Every create is safe to retry (application/retries.py): the same Idempotency-Key from the same
credential gets the first answer again, status, body and headers, and makes nothing more; another
body under it is refused with the commands' problem; another credential's same key is its own
and learns nothing of the first's answer. Races and crashes: tests/integration/test_retry_races.py."""

from __future__ import annotations

import uuid

from application.retries import Retries
from tests.support.accounts import OWN, page_of, sign_in
from tests.support.games import created
from tests.support.lobby import account_of, auth, open_game, people
from workers.turn_jobs import play

TWO_WITH_INVITE = {"seats": [{"kind": "human"}, {"kind": "open"}]}


def key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def same(first, again) -> None:
    """``again`` is ``first`` given again: its status, body and the headers it named."""
    assert (again.status_code, again.json) == (first.status_code, first.json)
    for header in ("Location", "ETag"):
        assert again.headers.get(header) == first.headers.get(header)


def reused(answer) -> None:
    assert answer.status_code == 422 and answer.json["code"] == "idempotency_key_reused", answer.json


def my_games(api, token: str) -> list[str]:
    return [g["game"] for g in api.get("/me/games", headers=auth(token)).json["games"]]


# -- POST /games ------------------------------------------------------------------------------


def test_a_retried_game_creation_answers_the_first_answer_and_makes_one_game(api):
    (ada,) = people(api, "ada")
    sent = {**key(), **auth(ada)}
    first = api.post("/games", json=TWO_WITH_INVITE, headers=sent)
    assert first.status_code == 201
    again = api.post("/games", json=TWO_WITH_INVITE, headers=sent)
    same(first, again)
    assert my_games(api, ada) == [first.json["game"]]
    reused(api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}, headers=sent))
    assert my_games(api, ada) == [first.json["game"]]
    # the answer's secrets work: the seat token is the game's, the invite takes the open seat
    game, seats = first.json["game"], first.json["seats"]
    assert api.get(f"/games/{game}", token=seats[0]["token"]).json["viewer"] == 0
    joined = api.post(f"/games/{game}/seats/1/join", json={"invite": seats[1]["invite"]})
    assert joined.status_code == 201


def test_without_a_key_each_creation_makes_its_own_game(api):
    assert created(api)["game"] != created(api)["game"]


def test_another_persons_same_key_makes_their_own_game_and_sees_nothing_of_the_first(api):
    ada, mallory = people(api, "ada2", "mallory")
    sent = key()
    first = api.post("/games", json=TWO_WITH_INVITE, headers={**sent, **auth(ada)}).json
    theirs = api.post("/games", json=TWO_WITH_INVITE, headers={**sent, **auth(mallory)})
    assert theirs.status_code == 201 and theirs.json["game"] != first["game"]
    assert theirs.json["seats"][0]["token"] != first["seats"][0]["token"]
    assert theirs.json["seats"][1]["invite"] != first["seats"][1]["invite"]
    assert my_games(api, ada) == [first["game"]] and my_games(api, mallory) == [theirs.json["game"]]
    # nor does anyone without a credential reach it with that key
    anonymous = api.post("/games", json=TWO_WITH_INVITE, headers=sent)
    assert anonymous.status_code == 201 and anonymous.json["game"] not in (first["game"], theirs.json["game"])


def test_a_person_on_the_page_and_with_a_token_is_one_credential(api):
    page = page_of(api, "ada3@example.com")
    made = page.post("/me/tokens", json={"name": "bot"}, headers=OWN).json["token"]
    sent = key()
    first = page.post("/games", json=TWO_WITH_INVITE, headers={**sent, **OWN})
    same(first, api.post("/games", json=TWO_WITH_INVITE, headers={**sent, **auth(made)}))


def test_without_a_credential_the_key_must_be_long_enough_to_be_the_proof(api):
    short = api.post("/games", json=TWO_WITH_INVITE, headers={"Idempotency-Key": "retry-1"})
    assert short.status_code == 422 and "Idempotency-Key" in short.json["errors"]
    sent = key()
    first = api.post("/games", json=TWO_WITH_INVITE, headers=sent)
    same(first, api.post("/games", json=TWO_WITH_INVITE, headers=sent))
    # a bearer that is no credential (a seat token here) does not make a key someone's: it is ignored
    token = first.json["seats"][0]["token"]
    same(first, api.post("/games", json=TWO_WITH_INVITE, headers={**sent, **auth(token)}))


def test_a_retry_is_not_counted_against_the_quota_again(api, monkeypatch):
    counted: list[str | None] = []

    class Counting:  # the quotas as the service has them with RATE_LIMIT on, counting only
        def count_game(self, account: str | None) -> None:
            counted.append(account)

    monkeypatch.setitem(api.app.extensions, "quotas", Counting())
    (ada,) = people(api, "ada4")
    sent = {**key(), **auth(ada)}
    for _ in range(3):
        assert api.post("/games", json=TWO_WITH_INVITE, headers=sent).status_code == 201
    assert len(counted) == 1


# -- open games and their joins ------------------------------------------------------------


def test_a_retried_open_game_is_opened_once(api):
    ada, bo = people(api, "ada5", "bo5")
    sent = {**key(), **auth(ada)}
    first = api.post("/open-games", json={"players": 2}, headers=sent)
    assert first.status_code == 201
    same(first, api.post("/open-games", json={"players": 2}, headers=sent))
    listed = api.get("/open-games").json["open_games"]
    assert [t["id"] for t in listed if t["seats"][0]["player"] == account_of(api, ada)] == [first.json["id"]]
    reused(api.post("/open-games", json={"players": 3}, headers=sent))
    theirs = api.post("/open-games", json={"players": 2}, headers={**sent, **auth(bo)})
    assert theirs.status_code == 201 and theirs.json["id"] != first.json["id"]


def test_a_retried_join_of_an_open_game_answers_the_first_answer(api):
    ada, bo, cy = people(api, "ada6", "bo6", "cy6")
    table = open_game(api, ada, players=3)["id"]
    sent = key()
    first = api.post(f"/open-games/{table}/join", headers={**sent, **auth(bo)})
    assert first.status_code == 200 and first.json["free"] == 1
    same(first, api.post(f"/open-games/{table}/join", headers={**sent, **auth(bo)}))
    # without the key, a second join is refused as before: the seat is one person's
    again = api.post(f"/open-games/{table}/join", headers=auth(bo))
    assert again.status_code == 409 and again.json["code"] == "already_seated"
    # another person's same key is their own join, answered with the table as it is for them
    theirs = api.post(f"/open-games/{table}/join", headers={**sent, **auth(cy)})
    assert theirs.status_code == 200 and theirs.json["status"] == "started" and theirs.json["game"]
    players = [s["player"] for s in theirs.json["seats"]]
    assert players == [account_of(api, p) for p in (ada, bo, cy)]
    # and a retry once the table has started still answers as first answered
    same(first, api.post(f"/open-games/{table}/join", headers={**sent, **auth(bo)}))


# -- a seat's join by invite: its token only to whoever asked ------------------------------


def test_a_retried_seat_join_gives_the_same_token_and_only_to_its_credential(api):
    made = created(api, TWO_WITH_INVITE)
    game, invite = made["game"], made["seats"][1]["invite"]
    sent = key()
    first = api.post(f"/games/{game}/seats/1/join", json={"invite": invite, "name": "Bo"}, headers=sent)
    assert first.status_code == 201
    same(first, api.post(f"/games/{game}/seats/1/join", json={"invite": invite, "name": "Bo"}, headers=sent))
    reused(api.post(f"/games/{game}/seats/1/join", json={"invite": invite, "name": "Cy"}, headers=sent))
    # a signed-in attacker who learnt the invite and the key gets no token: their key is their own
    (mallory,) = people(api, "mallory2")
    stolen = api.post(
        f"/games/{game}/seats/1/join", json={"invite": invite, "name": "Bo"}, headers={**sent, **auth(mallory)}
    )
    assert stolen.status_code == 409 and stolen.json["code"] == "seat_taken" and "token" not in stolen.json
    # another game's invite with the same key is its own join
    other = created(api, TWO_WITH_INVITE)
    theirs = api.post(
        f"/games/{other['game']}/seats/1/join", json={"invite": other["seats"][1]["invite"]}, headers=sent
    )
    assert theirs.status_code == 201 and theirs.json["token"] != first.json["token"]
    assert api.get(f"/games/{game}", token=first.json["token"]).json["viewer"] == 1


# -- rematches ----------------------------------------------------------------------------------


def test_a_retried_rematch_acceptance_gives_the_same_new_token_to_that_seat_only(api):
    made = created(api, {"seats": [{"kind": "human"}, {"kind": "human"}], "turn_deadline": 10})
    game, tokens = made["game"], [s["token"] for s in made["seats"]]
    service = api.app.extensions["bluemoon"].service
    while not service.state(game).finished:  # every turn the deadline's bot's
        state = service.state(game)
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")
    sent = key()
    first = api.post(f"/games/{game}/rematch", token=tokens[0], headers=sent)
    assert first.status_code == 200 and first.json["token"]
    same(first, api.post(f"/games/{game}/rematch", token=tokens[0], headers=sent))
    refused = api.post(f"/games/{game}/rematch", token=tokens[0])
    assert refused.status_code == 409 and refused.json["code"] == "already_accepted"
    # the other seat's same key is its own acceptance, with its own new token
    theirs = api.post(f"/games/{game}/rematch", token=tokens[1], headers=sent)
    assert theirs.status_code == 200 and theirs.json["token"] not in (None, first.json["token"])
    new = theirs.json["game"]
    assert new and theirs.json["waiting_for"] == []
    assert api.get(f"/games/{new}", token=first.json["token"]).json["viewer"] == 0


# -- webhooks and personal access tokens --------------------------------------------------


def test_a_retried_webhook_is_made_once_with_one_secret(api, game, monkeypatch):
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "receiver.example")  # resolves nowhere, and is not checked
    monkeypatch.setattr("socket.getaddrinfo", lambda host, port, **kw: [(2, 1, 6, "", ("192.0.2.1", port))])
    game_id, tokens = game
    body = {"url": "https://receiver.example/in", "events": ["turn.started"]}
    sent = key()
    first = api.post(f"/games/{game_id}/webhooks", token=tokens[0], json=body, headers=sent)
    assert first.status_code == 201
    same(first, api.post(f"/games/{game_id}/webhooks", token=tokens[0], json=body, headers=sent))
    assert [h["id"] for h in api.get(f"/games/{game_id}/webhooks", token=tokens[0]).json["webhooks"]] == [
        first.json["id"]
    ]
    reused(api.post(f"/games/{game_id}/webhooks", token=tokens[0], json={**body, "events": ["event"]}, headers=sent))
    theirs = api.post(f"/games/{game_id}/webhooks", token=tokens[1], json=body, headers=sent)
    assert theirs.status_code == 201 and theirs.json["id"] != first.json["id"]
    assert theirs.json["secret"] != first.json["secret"]


def test_a_retried_personal_access_token_is_made_once(api):
    page = page_of(api, "ada7@example.com")
    sent = {**key(), **OWN}
    first = page.post("/me/tokens", json={"name": "bot"}, headers=sent)
    assert first.status_code == 201
    same(first, page.post("/me/tokens", json={"name": "bot"}, headers=sent))
    assert [t["id"] for t in page.get("/me/tokens").json["tokens"]] == [first.json["id"]]
    reused(page.post("/me/tokens", json={"name": "other"}, headers=sent))
    other = page_of(api, "mallory3@example.com")
    theirs = other.post("/me/tokens", json={"name": "bot"}, headers=sent)
    assert theirs.status_code == 201 and theirs.json["token"] != first.json["token"]


# -- what is kept -----------------------------------------------------------------------------


def test_the_record_keeps_no_secret_readable_and_expires(api):
    sign_in(api, "ada8@example.com")
    sent = {**key(), **OWN}
    first = api.post("/games", json=TWO_WITH_INVITE, headers=sent).json
    client = api.app.extensions["bluemoon"].service.client
    records = list(client.scan_iter(match="retry:*"))
    assert records
    everything = b"".join(b"".join(v for v in client.hgetall(k).values()) for k in records)
    for secret in (first["seats"][0]["token"], first["seats"][1]["invite"], sent["Idempotency-Key"]):
        assert secret.encode() not in everything
    assert 0 < min(client.ttl(k) for k in records) <= 24 * 3600


def test_a_crash_before_the_answer_is_kept_makes_nothing_twice(api, monkeypatch):
    """The create is made, then the process dies before its answer is kept: the retry makes the
    same game (the plan's id and secrets), not a second one."""
    (ada,) = people(api, "ada9")
    sent = {**key(), **auth(ada)}
    kept = Retries.answer

    def dies(*args, **kwargs):
        raise ConnectionResetError("the process died before the answer was kept")

    monkeypatch.setattr(Retries, "answer", dies)
    assert api.post("/games", json=TWO_WITH_INVITE, headers=sent).status_code == 500
    made = my_games(api, ada)
    assert len(made) == 1
    monkeypatch.setattr(Retries, "answer", kept)
    again = api.post("/games", json=TWO_WITH_INVITE, headers=sent)
    assert again.status_code == 201 and again.json["game"] == made[0] and my_games(api, ada) == made
    assert api.get(f"/games/{made[0]}", token=again.json["seats"][0]["token"]).json["viewer"] == 0


def test_a_body_sent_where_none_is_taken_is_no_500(api):
    ada, bo = people(api, "ada10", "bo10")
    table = open_game(api, ada)["id"]
    sent = {**key(), **auth(bo), "Content-Type": "text/plain"}
    first = api.post(f"/open-games/{table}/join", data="not json", headers=sent)
    assert first.status_code == 200
    same(first, api.post(f"/open-games/{table}/join", data="not json", headers=sent))
    reused(api.post(f"/open-games/{table}/join", data="other", headers=sent))
