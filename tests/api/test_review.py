"""A finished game's review over the API (application/review/): nothing before the end, one
review per game however often it is asked for, and the same answer after the archive's move."""

from __future__ import annotations

import json
from functools import partial

from application import settings
from application.games.log_review import review_log
from application.review.computation import computed
from application.review.reviews import PREFIX, Reviews
from events import keys
from tests.support.archive import moved
from tests.support.games import game_and_tokens
from tests.support.scenarios import ended_by_one_offering, scenario_game
from workers.turn_jobs import play


def _reviews(api) -> Reviews:
    service = api.app.extensions["bluemoon"].service
    return Reviews(service.store, service.outbox)


def _entry(api, game: str) -> str | None:
    """The game's review entry's payload in the outbox, or None."""
    found = api.app.extensions["bluemoon"].client.hget(keys.outbox_of(PREFIX + game)[0], PREFIX + game)
    return None if found is None else found.decode()


def _run_job(api, game: str, tries: int = 1) -> str:
    """What the review worker does with the game's entry (workers/review_jobs.py), in this process."""
    service = api.app.extensions["bluemoon"].service
    payload = _entry(api, game)
    assert payload is not None, "no review was asked for"
    return _reviews(api).review(PREFIX + game, payload, tries, partial(computed, service))


def test_no_review_of_a_game_that_has_not_ended_is_shown_or_asked_for(api):
    game, tokens = game_and_tokens(api)
    for method in (api.get, api.post):
        refused = method(f"/games/{game}/review")
        assert refused.status_code == 409 and refused.json["code"] == "not_finished"
        assert "seed is revealed" in refused.json["detail"]
    assert _entry(api, game) is None  # nothing asked for, nothing to compute before the seed is out
    assert api.app.extensions["bluemoon"].client.exists(keys.review(game)) == 0


def test_an_unknown_game_has_no_review(api):
    assert api.get("/games/nosuchgame/review").status_code == 404
    assert api.post("/games/nosuchgame/review").status_code == 404


def test_the_end_asks_for_the_review_and_it_is_pending_until_its_job_records_it(api):
    game, _ = ended_by_one_offering(api)
    assert json.loads(_entry(api, game))["game"] == game  # written by the append that ended it
    pending = api.get(f"/games/{game}/review")
    assert pending.status_code == 202 and pending.json == {"game": game, "status": "pending"}
    assert pending.headers["Retry-After"] == "5"
    assert _run_job(api, game) == "reviewed"
    done = api.get(f"/games/{game}/review")
    assert done.status_code == 200 and done.json["status"] == "done" and _entry(api, game) is None
    review = done.json["review"]
    assert len(review["seats"]) == 2 and review["version"] == api.get(f"/games/{game}").json["version"]
    assert {"decisions", "luck", "curve", "mistakes", "draws"} <= set(review["seats"][0])
    assert api.post(f"/games/{game}/review").json == done.json  # asked again: the same review, nothing queued
    assert _entry(api, game) is None


def test_the_jobs_review_is_the_one_bluemoon_review_computes_from_the_published_log(api):
    """The same numbers offline (issue 40, item 4): the job reviews the log as ``bluemoon-review``
    does, so a turn the clock ended for seat 0 (``deadline:pass``) is not seat 0's decision."""
    game, tokens = scenario_game(
        api, figures=["courtyard", "courtyard"], obelisk=[0, 0, 0, 0, 0], crystals=[20, 0], hands=[[], []]
    )
    service = api.app.extensions["bluemoon"].service
    play(service, game, 0, 1, "pass", "deadline")  # seat 0's first turn, ended by its deadline
    view = api.get(f"/games/{game}").json
    api.post(f"/games/{game}/commands", token=tokens[1], json={"type": "end_turn", "expected_version": view["version"]})
    legal = api.get(f"/games/{game}/legal", token=tokens[0]).json
    offer = next(c for c in legal["commands"] if c["type"] == "offer")
    api.post(f"/games/{game}/commands", token=tokens[0], json=offer, headers={"If-Match": f'"{legal["version"]}"'})
    _run_job(api, game)
    reviewed = api.get(f"/games/{game}/review").json["review"]
    assert reviewed == review_log(api.get(f"/games/{game}/log").json)
    assert [m["played"]["type"] for m in reviewed["seats"][0]["mistakes"]] != ["end_turn"]  # the clock's, not seat 0's


def test_a_retried_job_records_nothing_twice(api):
    """A job run again on the same entry (its worker died after recording) only removes the entry."""
    game, _ = ended_by_one_offering(api)
    payload = _entry(api, game)
    assert _run_job(api, game) == "reviewed"
    client = api.app.extensions["bluemoon"].client
    first = client.get(keys.review(game))
    service = api.app.extensions["bluemoon"].service
    again = _reviews(api).review(PREFIX + game, payload, 2, partial(computed, service))
    assert again == "already reviewed" and client.get(keys.review(game)) == first
    assert _reviews(api).record(PREFIX + game, payload, {"status": "done", "review": {}}) is False  # never over it
    assert client.get(keys.review(game)) == first


def test_asking_on_demand_is_idempotent(api):
    """A game that ended with no review asked for (before reviews existed): POST asks once, however often."""
    game, _ = ended_by_one_offering(api)
    service = api.app.extensions["bluemoon"].service
    service.outbox.finish(PREFIX + game, _entry(api, game))  # as if it had ended before reviews existed
    missing = api.get(f"/games/{game}/review")
    assert missing.status_code == 404 and f"POST /games/{game}/review" in missing.json["detail"]
    answers = [api.post(f"/games/{game}/review") for _ in range(5)]
    assert {(a.status_code, a.json["status"]) for a in answers} == {(202, "pending")}
    payloads, due, tries = keys.outbox_of(PREFIX + game)
    client = api.app.extensions["bluemoon"].client
    assert [n for n in client.hkeys(payloads) if n.decode().startswith(PREFIX + game)] == [(PREFIX + game).encode()]
    assert _run_job(api, game) == "reviewed"
    assert api.post(f"/games/{game}/review").status_code == 200 and _entry(api, game) is None


def test_a_review_that_cannot_be_computed_is_given_up_after_its_attempts(api):
    game, _ = ended_by_one_offering(api)
    attempts = settings.REVIEW_ATTEMPTS.read()
    assert attempts == 3  # docs/settings.md
    assert _run_job(api, game, tries=attempts + 1) == "failed"
    for method in (api.get, api.post):
        answer = method(f"/games/{game}/review")
        assert answer.status_code == 200 and answer.json == {"game": game, "status": "failed"}
    assert _entry(api, game) is None  # not asked for again: a game's review costs at most its attempts


def test_a_review_done_before_the_archives_move_goes_with_the_game(api):
    game, _ = ended_by_one_offering(api)
    _run_job(api, game)
    before = api.get(f"/games/{game}/review").json
    components = api.app.extensions["bluemoon"]
    moved(components, game)
    assert components.client.exists(keys.review(game)) == 0  # Redis let it go with the game
    assert json.loads(components.mover.archive.parts(game)["review"])["review"] == before["review"]
    after = api.get(f"/games/{game}/review")
    assert after.status_code == 200 and after.json == before


def test_a_game_moved_without_a_review_is_reviewed_on_demand_from_the_archive(api):
    game, _ = ended_by_one_offering(api)
    components = api.app.extensions["bluemoon"]
    moved(components, game)  # its review entry done without a review, as a game ended before reviews
    assert api.get(f"/games/{game}/review").status_code == 404
    assert api.post(f"/games/{game}/review").status_code == 202
    assert _run_job(api, game) == "reviewed"  # from the archive's events
    done = api.get(f"/games/{game}/review")
    assert done.status_code == 200 and done.json["review"]["seats"]
    kept = components.client.ttl(keys.review(game))
    assert 0 < kept <= settings.REVIEW_KEPT_SECONDS.read()  # kept in Redis a while, then asked for again


def test_a_review_recorded_while_the_game_moves_stays_in_redis_and_expires(api, monkeypatch):
    """The move does not wait for the review: one recorded after the move collected the game,
    before Redis let it go, is not deleted with the game's keys but kept REVIEW_KEPT_SECONDS."""
    game, _ = ended_by_one_offering(api)
    components = api.app.extensions["bluemoon"]
    collect = components.mover.collected

    def collected_then_reviewed(name):
        found = collect(name)
        _run_job(api, name)  # the review lands between the collection and the let-go
        return found

    monkeypatch.setattr(components.mover, "collected", collected_then_reviewed)
    assert components.mover.move(game) == "moved"
    assert "review" not in components.mover.archive.parts(game)
    assert 0 < components.client.ttl(keys.review(game)) <= settings.REVIEW_KEPT_SECONDS.read()
    assert api.get(f"/games/{game}/review").json["status"] == "done"


def test_the_move_does_not_wait_for_a_pending_review_which_is_then_computed_from_the_archive(api):
    game, _ = ended_by_one_offering(api)
    components = api.app.extensions["bluemoon"]
    assert _entry(api, game) is not None and components.mover.move(game) == "moved"  # its review still pending
    assert api.get(f"/games/{game}/review").status_code == 202
    assert _run_job(api, game) == "reviewed"
    assert api.get(f"/games/{game}/review").json["status"] == "done"
    assert 0 < components.client.ttl(keys.review(game)) <= settings.REVIEW_KEPT_SECONDS.read()


def test_a_review_kept_before_reviews_named_their_method_is_shown_as_the_first_method(api):
    """Reviews kept before the Reset's discards were costed name no method: they are method 1,
    which ``bluemoon-review`` (method 2) would not give again, so the answer says so."""
    game, _ = ended_by_one_offering(api)
    _run_job(api, game)
    client = api.app.extensions["bluemoon"].client
    record = json.loads(client.get(keys.review(game)))
    assert record["review"]["method"] == 2
    del record["review"]["method"]
    client.set(keys.review(game), json.dumps(record))
    shown = api.get(f"/games/{game}/review").json["review"]
    assert shown["method"] == 1 and shown["seats"] == record["review"]["seats"]
