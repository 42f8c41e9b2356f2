"""A person's stream (GET /me/events, GET /me/stream): each person's news across their games, in
order, to them alone; a long poll that waits for the next; a stream resumed after an id, and an id
it never sent refused naming the field, changing nothing; a job run twice writes once."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime

import fakeredis
import pytest
from rq import Queue

from application.background.handoff import CallbackHandoff
from application.background.rq_handoff import RQHandoff
from application.background.work import WORK
from events.outbox import now_ms
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.accounts import OWN, page_of
from tests.support.lobby import account_of, auth, open_game, people
from tests.support.person_stream import kinds, news, write_news_at_once
from workers.person_stream_jobs import write_now
from workers.rating_jobs import rate_now
from workers.turn_jobs import play


@pytest.fixture
def table(api):
    """Dee opens an unrated game of two, Eli joins it: their game starts. (api, game, dee, eli, the jobs run)."""
    ran = write_news_at_once(api)
    dee, eli = people(api, "dee", "eli")
    opened = open_game(api, dee, rated=False)
    game = api.post(f"/open-games/{opened['id']}/join", headers=auth(eli)).json["game"]
    return api, game, dee, eli, ran


def _end_turns(api, game: str, tokens: dict[int, str], count: int) -> None:
    for _ in range(count):
        view = api.get(f"/games/{game}").json
        end = {"type": "end_turn", "expected_version": view["version"]}
        assert (
            api.post(f"/games/{game}/commands", json=end, headers=auth(tokens[view["turn"]["seat"]])).status_code == 200
        )


def _to_the_end(api, game: str) -> None:
    """Every turn played by the deadline's greedy bot, as in a game whose people are away."""
    service = api.app.extensions["bluemoon"].service
    while not (state := service.state(game)).finished:
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")


def test_each_persons_news_reach_their_own_stream_in_order_and_no_one_elses(table):
    api, game, dee, eli, _ = table
    (cy,) = people(api, "cy")
    _end_turns(api, game, {0: dee, 1: eli}, 5)
    started = [e["data"] for e in api.get(f"/games/{game}/events?after=0").json["events"] if e["type"] == "TurnStarted"]
    for seat, token in ((0, dee), (1, eli)):
        mine = news(api, token)
        assert [e["id"] for e in mine] == list(range(1, len(mine) + 1))  # numbered in order, from 1
        assert kinds(mine[:2]) == ["open_game.filled", "game.started"] and all(e["game"] == game for e in mine)
        assert mine[1]["data"]["seat"] == seat and mine[0]["data"]["seat"] == seat
        turns = mine[2:]
        assert set(kinds(turns)) == {"turn.started"} and all(e["data"]["seat"] == seat for e in turns)
        assert [e["data"]["turn"] for e in turns] == [t["number"] for t in started if t["seat"] == seat]
        versions = [e["data"]["version"] for e in turns]
        assert versions == sorted(versions) and len(set(versions)) == len(versions)
    assert news(api, cy) == []  # seated nowhere: told nothing
    # another account's token reads its own stream; a query naming someone else changes nothing
    assert api.get(f"/me/events?after=0&account={account_of(api, dee)}", headers=auth(cy)).json["events"] == []


def test_a_game_ended_and_its_rating_changed_reach_each_person_once_though_the_rating_job_runs_twice(api):
    write_news_at_once(api)
    dee, eli = people(api, "dee", "eli")
    opened = open_game(api, dee, turn_deadline=3600, deadline_level="greedy")
    game = api.post(f"/open-games/{opened['id']}/join", headers=auth(eli)).json["game"]
    components = api.app.extensions["bluemoon"]
    claims = []
    components.service.dispatcher.handoff.on["rating"] = claims.append
    _to_the_end(api, game)
    for claim in claims * 2:  # a retried job: the ratings and their news are written once
        assert rate_now(components.service, components.ratings, claim.name, claim.payload) == "rated"
    view = api.get(f"/games/{game}").json
    for seat, token in ((0, dee), (1, eli)):
        mine = news(api, token)
        assert kinds(mine).count("game.ended") == 1 and kinds(mine).count("rating.changed") == 1
        ended, rated = mine[-2:]
        assert kinds([ended, rated]) == ["game.ended", "rating.changed"]
        assert ended["data"]["seat"] == seat and ended["data"]["rated"] is True
        assert ended["data"]["version"] == view["version"] and ended["data"]["place"] == ended["data"]["places"][seat]
        assert ended["data"]["winners"] == [s for s, place in enumerate(ended["data"]["places"]) if place == 1]
        mine_now = api.get("/me/rating", headers=auth(token)).json
        assert (
            rated["data"]["after"]["rating"] == mine_now["rating"] and rated["data"]["place"] == ended["data"]["place"]
        )
        turns = [e for e in mine if e["type"] == "turn.started"]
        deadline = datetime.fromisoformat(turns[0]["data"]["deadline"])
        assert 3500 < (deadline - datetime.fromisoformat(turns[0]["at"])).total_seconds() <= 3601


def test_a_rematch_offer_reaches_only_the_people_it_waits_for_once_and_its_game_starts_for_each(table):
    api, game, dee, eli, _ = table
    _to_the_end(api, game)
    before = {token: len(news(api, token)) for token in (dee, eli)}
    offer = {**auth(dee), "Idempotency-Key": "rematch-1"}
    assert api.post(f"/games/{game}/rematch", headers=offer).status_code == 200
    assert api.post(f"/games/{game}/rematch", headers=offer).status_code == 200  # the same request again
    assert news(api, dee, after=before[dee]) == []  # the one who offered is not told of it
    (offered,) = news(api, eli, after=before[eli])
    assert offered["type"] == "rematch.offered" and offered["game"] == game
    name = api.get("/me", headers=auth(dee)).json["display_name"]
    assert offered["data"] == {"seat": 1, "by": 0, "by_name": name, "accepted": [0], "waiting_for": [1]}
    new = api.post(f"/games/{game}/rematch", headers=auth(eli)).json["game"]
    for seat, token in ((0, dee), (1, eli)):
        started = [e for e in news(api, token, after=before[token]) if e["type"] == "game.started"]
        assert [(e["game"], e["data"]["rematch_of"], e["data"]["seat"]) for e in started] == [(new, game, seat)]


def test_without_after_the_long_poll_starts_from_now_and_waits_for_the_next_event(table):
    api, game, dee, eli, _ = table
    now = api.get("/me/events", headers=auth(eli)).json
    assert now["events"] == [] and now["next"] == len(news(api, eli))
    answers: list = []
    waiting = threading.Thread(
        target=lambda: answers.append(api.get(f"/me/events?after={now['next']}&wait=10", headers=auth(eli)))
    )
    started = time.monotonic()
    waiting.start()
    time.sleep(0.3)  # the poll waits: nothing new yet
    assert answers == []
    first = api.get(f"/games/{game}").json["turn"]["seat"]  # drawn: Eli's turn ends too when it is hers
    _end_turns(api, game, {0: dee, 1: eli}, 1 + first)  # until Dee's turn ends and Eli's begins
    waiting.join(10)
    assert time.monotonic() - started < 5
    page = answers[0].json
    assert kinds(page["events"]) == ["turn.started"] and page["next"] == page["events"][0]["id"] == now["next"] + 1


def _stream(api, token: str, path: str = "/me/stream", **headers: str):
    api.app.config["SSE_SECONDS"] = 0  # what is there, then the end
    answer = api.get(path, headers={**auth(token), **headers})
    ids = [int(line[4:]) for line in answer.get_data(as_text=True).splitlines() if line.startswith("id: ")]
    return answer, ids


def test_a_stream_resumes_after_last_event_id_or_after_and_without_either_starts_from_now(table):
    api, game, dee, eli, _ = table
    _end_turns(api, game, {0: dee, 1: eli}, 4)
    last = news(api, dee)[-1]["id"]
    assert _stream(api, dee, **{"Last-Event-ID": "2"})[1] == list(range(3, last + 1))
    assert _stream(api, dee, "/me/stream?after=1", **{"Last-Event-ID": "2"})[1] == list(range(2, last + 1))
    assert _stream(api, dee, **{"Last-Event-ID": f" {last} "})[1] == []
    answer, ids = _stream(api, dee)
    assert answer.status_code == 200 and answer.mimetype == "text/event-stream" and ids == []
    frames = _stream(api, dee, **{"Last-Event-ID": "0"})[0].get_data(as_text=True).split("\n\n")
    first = next(f for f in frames if f.startswith("id: 1\n"))
    assert first.splitlines()[1] == "event: open_game.filled"
    assert json.loads(first.splitlines()[2][6:]) == news(api, dee)[0]


@pytest.mark.parametrize(
    ("path", "headers", "field"),
    [
        ("/me/stream", {"Last-Event-ID": "{future}"}, "Last-Event-ID"),
        ("/me/stream", {"Last-Event-ID": "abc"}, "Last-Event-ID"),
        ("/me/stream", {"Last-Event-ID": "-1"}, "Last-Event-ID"),
        ("/me/stream?after={future}", {}, "after"),
        ("/me/stream?after=1e3", {}, "after"),
        ("/me/events?after={future}", {}, "after"),
        ("/me/events?after=+1", {}, "after"),
    ],
)
def test_a_resume_from_an_id_the_stream_never_sent_is_refused_naming_the_field_and_changes_nothing(
    table, path, headers, field
):
    api, game, dee, eli, _ = table
    future = str(len(news(api, dee)) + 1)
    api.app.config["SSE_SECONDS"] = 0  # a stream that did open would end at once
    client = api.app.extensions["bluemoon"].client
    before = sorted(client.keys())
    answer = api.get(
        path.format(future=future), headers={**auth(dee), **{k: v.format(future=future) for k, v in headers.items()}}
    )
    assert answer.status_code == 422 and answer.mimetype == "application/problem+json"
    assert list(answer.json["errors"]) == [field] and field in answer.json["detail"]
    assert sorted(client.keys()) == before and len(news(api, dee)) == int(future) - 1


def test_only_the_account_itself_reads_its_stream(table):
    api, game, dee, eli, _ = table
    seat_token = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json["seats"][0]["token"]
    for path in ("/me/events?after=0", "/me/stream?after=0"):
        assert api.get(path).status_code == 401  # nobody
        assert api.get(path, headers=auth(seat_token)).status_code == 401  # a seat token is no person
        assert api.get(path, headers=auth("bmp_made-up")).status_code == 401
    page = page_of(api, "dee@example.com")  # Dee's own session, on the page
    assert page.get("/me/events?after=0").json["events"] == news(api, dee)
    revoked = page.post("/me/tokens", json={"name": "leaked"}, headers=OWN).json
    assert page.delete(f"/me/tokens/{revoked['id']}", headers=OWN).status_code == 204
    assert api.get("/me/events?after=0", headers=auth(revoked["token"])).status_code == 401
    assert {e["data"]["seat"] for e in news(api, eli)} == {1}  # Eli's token: Eli's news only


def test_a_job_run_again_writes_its_news_once(table):
    """As when a job wrote and died before finishing its entry: the entry is claimed again, and
    its job finds the write taken."""
    api, game, dee, eli, ran = table
    components = api.app.extensions["bluemoon"]
    told = news(api, dee)
    claim = next(c for c in ran if json.loads(c.payload)["account"] == account_of(api, dee))
    assert components.service.outbox.add(claim.name, claim.payload, now_ms())  # back in the outbox
    assert components.service.dispatch(claim.name) == 1 and ran[-1].name == claim.name
    assert write_now(components, claim.name, claim.payload) == "written already"
    assert news(api, dee) == told and components.service.store.outbox_entry(claim.name) is None


def test_a_deleted_accounts_stream_goes_with_it_and_a_late_write_is_dropped(table):
    api, game, dee, eli, ran = table
    components = api.app.extensions["bluemoon"]
    account = account_of(api, eli)
    page = page_of(api, "eli@example.com")
    assert page.delete("/me", headers=OWN).status_code == 204
    assert components.client.keys("{acct:" + account + "}:*") == []
    late = next(c for c in ran if json.loads(c.payload)["account"] == account)
    assert write_now(components, late.name + ":late", late.payload) == "the account is gone"
    assert components.client.keys("{acct:" + account + "}:*") == []


def test_an_account_holds_at_most_its_quota_of_streams_open():
    loose = {"RATE_LIMIT_WRITES": "1000 per minute", "RATE_LIMIT_READS": "1000 per minute"}
    app = create_app(
        {"REDIS_CLIENT": fakeredis.FakeRedis(), "HANDOFF": CallbackHandoff(lambda t: None), **loose}
        | {"QUOTA_STREAMS_PER_ACCOUNT": 2}
    )
    api = CheckedClient(app)
    (dee,) = people(api, "dee")
    held = [
        api.http.get("/me/stream", headers=auth(dee), environ_base={"REMOTE_ADDR": f"192.0.2.{i}"}, buffered=False)
        for i in range(2)
    ]
    refused = api.get("/me/stream", headers=auth(dee), environ_base={"REMOTE_ADDR": "192.0.2.9"})
    assert refused.status_code == 429 and refused.json["code"] == "too_many_streams"
    assert refused.json["limit"] == "QUOTA_STREAMS_PER_ACCOUNT" and "/me/events" in refused.json["detail"]
    held.pop().close()  # a client gone: its slot comes back
    again = api.http.get("/me/stream", headers=auth(dee), buffered=False)
    assert again.status_code == 200
    for stream in (again, *reversed(held)):
        stream.close()
    assert app.extensions["bluemoon"].client.zcard(f"quota:streams:account:{account_of(api, dee)}") == 0


def test_each_entry_goes_to_rq_under_a_job_id_rq_takes(table):
    """An entry's name holds colons (``<prefix><game>:<what>:<account>``), which RQ refuses in a job id."""
    api, game, dee, eli, ran = table
    connection = fakeredis.FakeRedis()
    handoff = RQHandoff(connection, queue="news")
    for claim in ran:
        kind = WORK.of(claim.name)
        handoff.hand(kind, kind.work(claim), kind.job_id(claim))
    assert ran and len(Queue("news", connection=connection).job_ids) == len(ran)
