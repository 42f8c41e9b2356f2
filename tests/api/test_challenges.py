"""Challenges that wait (issue 38, item 5): sent to a named person or a bot account, listed for
both, heard of on the challenged person's stream, accepted once into a game with both seated,
declined with a reason, cancelled by their author, expired after their time; refused (changing
nothing) to oneself, an unknown account, someone who does not allow it, a suspended person, and
past the per-person and per-pair limits."""

from __future__ import annotations

import pytest

from application.challenges import challenges as module
from application.people.relations import ChallengePolicy
from events import keys
from tests.support.alerts import attempt_alert, channels_captured, outbox_entry
from tests.support.challenges import bot_token, challenge, components, mine
from tests.support.lobby import account_of, auth, people
from tests.support.person_stream import kinds, news, write_news_at_once
from workers.challenge_jobs import expire_now
from workers.turn_jobs import play


@pytest.fixture
def two(api):
    """Ann and Ben, with their accounts; the person-stream jobs run at once."""
    write_news_at_once(api)
    ann, ben = people(api, "ann.ch", "ben.ch")
    return api, ann, ben, account_of(api, ann), account_of(api, ben)


def test_a_challenge_waits_in_both_lists_reaches_the_challenged_stream_and_accepting_starts_the_game(two):
    api, ann, ben, ann_id, ben_id = two
    clock = {"bank_seconds": 259200, "increment_seconds": 3600}
    sent = challenge(api, ann, ben_id, edition="cmon", expansion=True, rated=False, clock=clock)
    assert sent["status"] == "open" and sent["challenger"]["account"] == ann_id
    assert sent["challenged"] == {"account": ben_id, "name": sent["challenged"]["name"], "bot": False}
    assert mine(api, ben) == {"incoming": [sent["id"]], "outgoing": []}
    assert mine(api, ann) == {"incoming": [], "outgoing": [sent["id"]]}
    (received,) = news(api, ben)
    assert received["type"] == "challenge.received" and received["game"] == sent["id"]
    assert received["data"]["other"] == ann_id and received["data"]["options"]["expansion"] is True

    accepted = api.post(f"/challenges/{sent['id']}/accept", headers=auth(ben))
    assert accepted.status_code == 200 and accepted.json["status"] == "accepted", accepted.json
    game = accepted.json["game"]
    again = api.post(f"/challenges/{sent['id']}/accept", headers=auth(ben))  # a retried accept: the same game
    assert again.status_code == 200 and again.json["game"] == game
    view = api.get(f"/games/{game}", headers=auth(ben)).json
    assert view["viewer"] == 1 and view["options"]["expansion"] and not view["settings"]["rated"]
    for token in (ann, ben):
        assert [g["game"] for g in api.get("/me/games", headers=auth(token)).json["games"]] == [game]
        assert mine(api, token) == {"incoming": [], "outgoing": []}
    told = news(api, ann)
    assert kinds(told).count("challenge.accepted") == 1 and kinds(told).count("game.started") == 1
    assert next(e for e in told if e["type"] == "challenge.accepted")["data"]["game"] == game


def test_refusals_name_the_field_or_say_not_allowed_never_why_and_change_nothing(two):
    api, ann, ben, ann_id, ben_id = two
    c = components(api)

    def refused(account: str, status: int, code: str, token: str = ann) -> dict:
        answer = api.post("/challenges", json={"account": account}, headers=auth(token))
        assert answer.status_code == status and answer.json["code"] == code, answer.json
        return answer.json

    assert refused(ann_id, 422, "challenge_to_self")["field"] == "account"
    assert refused("no-such-account", 422, "unknown_account")["field"] == "account"
    c.relations.block(ben_id, ann_id)
    blocked = refused(ben_id, 403, "not_allowed")
    c.relations.unblock(ben_id, ann_id)
    c.relations.set_privacy(ben_id, challenges=ChallengePolicy.NOBODY.value)
    nobody = refused(ben_id, 403, "not_allowed")
    assert blocked["detail"] == nobody["detail"] and "block" not in blocked["detail"]  # never says why
    c.relations.set_privacy(ben_id, challenges=ChallengePolicy.FOLLOWED.value)
    refused(ben_id, 403, "not_allowed")
    c.relations.follow(ben_id, ann_id)  # Ben follows Ann: she may challenge him now
    c.suspensions.suspend(ann_id, 600, "spam", by="operator")
    refused(ben_id, 403, "account_suspended")
    bad = api.post("/challenges", json={"account": ben_id, "edition": "classic", "expansion": True}, headers=auth(ann))
    assert bad.status_code == 422 and "expansion" in bad.json["errors"]
    for token in (ann, ben):
        assert mine(api, token) == {"incoming": [], "outgoing": []} and news(api, token) == []
    c.suspensions.lift(ann_id)
    assert challenge(api, ann, ben_id)["status"] == "open"


def test_one_open_challenge_per_pair_either_way_and_a_capped_number_per_person(two, monkeypatch):
    api, ann, ben, ann_id, ben_id = two
    first = challenge(api, ann, ben_id)
    for token, other in ((ann, ben_id), (ben, ann_id)):
        twice = api.post("/challenges", json={"account": other}, headers=auth(token))
        assert twice.status_code == 409 and twice.json["code"] == "challenge_already_open"
        assert twice.json["detail"].endswith(first["id"])
    assert api.delete(f"/challenges/{first['id']}", headers=auth(ann)).json["status"] == "cancelled"
    assert challenge(api, ben, ann_id)["status"] == "open"  # the pair's place is free again

    monkeypatch.setattr(module, "CHALLENGES_PER_ACCOUNT", 2)
    others = [account_of(api, t) for t in people(api, "cal.ch", "dan.ch", "eve.ch")]
    challenge(api, ann, others[0])
    challenge(api, ann, others[1])
    over = api.post("/challenges", json={"account": others[2]}, headers=auth(ann))
    assert over.status_code == 429 and over.json["code"] == "too_many_challenges"
    assert over.json["limit"] == "QUOTA_CHALLENGES_PER_ACCOUNT" and int(over.headers["Retry-After"]) > 86400
    assert len(mine(api, ann)["outgoing"]) == 2
    assert components(api).client.get(f"challenge-pair:{min(ann_id, others[2])}:{max(ann_id, others[2])}") is None


def test_a_challenge_listed_while_it_is_being_made_stays_in_both_lists(two, monkeypatch):
    """A challenge is counted in both people's lists before its document is written; Ben's list
    read in between must not drop it (it would never show, and Ann's limit would count one too
    few). Checked to fail when a missing document's entry is removed before its time."""
    api, ann, ben, ann_id, ben_id = two
    challenges = components(api).challenges
    hold = challenges._hold

    def lists_read_in_between(doc, at):
        hold(doc, at)
        challenges.of(ben_id), challenges.of(ann_id)

    monkeypatch.setattr(challenges, "_hold", lists_read_in_between)
    sent = challenge(api, ann, ben_id)
    assert mine(api, ben) == {"incoming": [sent["id"]], "outgoing": []}
    assert mine(api, ann) == {"incoming": [], "outgoing": [sent["id"]]}


def test_decline_with_a_reason_cancel_by_the_author_and_nobody_else_touches_it(two):
    api, ann, ben, ann_id, ben_id = two
    (cal,) = people(api, "cal.other")
    sent = challenge(api, ann, ben_id)
    assert api.get(f"/challenges/{sent['id']}", headers=auth(cal)).status_code == 404  # a stranger sees nothing
    for path in ("accept", "decline"):
        assert api.post(f"/challenges/{sent['id']}/{path}", json={}, headers=auth(cal)).status_code == 404
        assert api.post(f"/challenges/{sent['id']}/{path}", json={}, headers=auth(ann)).status_code == 403  # not hers
    assert api.delete(f"/challenges/{sent['id']}", headers=auth(cal)).status_code == 404
    assert api.delete(f"/challenges/{sent['id']}", headers=auth(ben)).status_code == 403  # he declines, not cancels
    bad = api.post(f"/challenges/{sent['id']}/decline", json={"reason": "tired"}, headers=auth(ben))
    assert bad.status_code == 422 and "reason" in bad.json["errors"]
    assert api.get(f"/challenges/{sent['id']}", headers=auth(ben)).json["status"] == "open"

    declined = api.post(f"/challenges/{sent['id']}/decline", json={"reason": "busy"}, headers=auth(ben)).json
    assert (declined["status"], declined["reason"], declined["game"]) == ("declined", "busy", None)
    late = api.post(f"/challenges/{sent['id']}/accept", headers=auth(ben))
    assert late.status_code == 409 and late.json["code"] == "challenge_answered"
    told = news(api, ann)
    assert kinds(told) == ["challenge.declined"] and told[0]["data"]["reason"] == "busy"

    other = challenge(api, ann, ben_id)
    assert api.delete(f"/challenges/{other['id']}", headers=auth(ann)).json["status"] == "cancelled"
    assert kinds(news(api, ben)) == ["challenge.received", "challenge.received", "challenge.cancelled"]
    assert api.post(f"/challenges/{other['id']}/accept", headers=auth(ben)).status_code == 409


def test_the_same_idempotency_key_makes_one_challenge(two):
    api, ann, ben, _, ben_id = two
    headers = {**auth(ann), "Idempotency-Key": "challenge-ben-1"}
    first = api.post("/challenges", json={"account": ben_id}, headers=headers)
    again = api.post("/challenges", json={"account": ben_id}, headers=headers)
    assert first.status_code == again.status_code == 201 and first.json["id"] == again.json["id"]
    assert mine(api, ben)["incoming"] == [first.json["id"]] and kinds(news(api, ben)) == ["challenge.received"]


def test_a_challenge_past_its_time_expires_once_and_cannot_be_accepted(two):
    api, ann, ben, _, ben_id = two
    sent = challenge(api, ann, ben_id)
    c = components(api)
    assert c.challenges.expire(sent["id"])["status"] == "open"  # not due: nothing happens
    later = c.challenges._read(sent["id"])["expires"]
    assert c.challenges.expire(sent["id"], at=later)["status"] == "expired"
    assert c.challenges.expire(sent["id"], at=later)["status"] == "expired"  # again: nothing more
    late = api.post(f"/challenges/{sent['id']}/accept", headers=auth(ben))
    assert late.status_code == 409 and late.json["code"] == "challenge_answered"
    assert kinds(news(api, ann)) == ["challenge.expired"]
    assert kinds(news(api, ben)) == ["challenge.received", "challenge.expired"]
    assert mine(api, ben) == {"incoming": [], "outgoing": []}


def test_a_challenge_past_its_time_that_its_job_has_not_expired_yet_is_expired_by_a_listing(two, monkeypatch):
    """The listing reads the ids from the index as Redis gives them (bytes) and expires one past
    its time on the way: a 500 here once."""
    api, ann, ben, _, ben_id = two
    sent = challenge(api, ann, ben_id)
    later = components(api).challenges._read(sent["id"])["expires"]
    monkeypatch.setattr(module, "_ms", lambda: later + 1)  # its time is up; the workers are slow
    assert mine(api, ben) == {"incoming": [], "outgoing": []}
    assert components(api).challenges._read(sent["id"])["status"] == "expired"
    assert kinds(news(api, ann)) == ["challenge.expired"]


def test_a_challenge_to_a_bot_account_reaches_the_bots_stream_and_its_token_accepts(two):
    api, ann, _, ann_id, _ = two
    robot = bot_token(api, "robot.ch@example.com")
    robot_id = account_of(api, robot)
    sent = challenge(api, ann, robot_id, rated=False)
    assert sent["challenged"]["bot"] is True
    (received,) = news(api, robot)
    assert received["type"] == "challenge.received" and received["data"]["other"] == ann_id
    game = api.post(f"/challenges/{sent['id']}/accept", headers=auth(robot)).json["game"]
    assert api.get(f"/games/{game}", headers=auth(robot)).json["viewer"] == 1


def test_the_challenged_person_hears_of_it_on_their_alert_channels_in_their_language_once(two):
    api, ann, ben, _, ben_id = two
    chosen = {"discord": {"url": "https://203.0.113.9/api/webhooks/1"}, "language": "de"}
    with channels_captured() as sent:
        assert api.patch("/me/alerts", json=chosen, headers=auth(ben)).status_code == 200
        first = challenge(api, ann, ben_id, expansion=True)
        assert attempt_alert(api, f"al:{first['id']}:challenge") == "done"
        assert outbox_entry(api, f"al:{first['id']}:challenge") is None  # sent once: the entry is gone
        api.delete(f"/challenges/{first['id']}", headers=auth(ann))
        second = challenge(api, ann, ben_id)
        api.delete(f"/challenges/{second['id']}", headers=auth(ann))  # cancelled before its alert went out
        assert attempt_alert(api, f"al:{second['id']}:challenge") == "skipped"
    ann_name, ben_name = (api.get("/me", headers=auth(t)).json["display_name"] for t in (ann, ben))
    (posted,) = sent
    said = posted["content"].replace("\\", "")  # (Discord's markdown escaped)
    assert said == f"{ben_name}, {ann_name} fordert dich zu einem Spiel heraus: CMON + Erweiterung"
    assert posted["embeds"][0]["url"].endswith("/#challenges")
    log = api.get("/me/alerts/deliveries", headers=auth(ben)).json["deliveries"]
    outcomes = [(d["channel"], d["outcome"]) for d in log if d["kind"] == "challenge.received"]
    assert outcomes == [("all", "skipped"), ("discord", "delivered"), ("email", "skipped")]  # (no SMTP here)


def test_the_expiry_is_an_outbox_entry_due_at_the_end_that_a_job_run_twice_expires_once(two):
    api, ann, ben, _, ben_id = two
    sent = challenge(api, ann, ben_id)
    c = components(api)
    name = f"ch:{sent['id']}"
    payloads, due, _ = keys.outbox_of(name)
    expires = c.challenges._read(sent["id"])["expires"]
    assert c.client.hget(payloads, name) == sent["id"].encode() and int(c.client.zscore(due, name)) == expires
    assert expire_now(c, name, sent["id"]) == "waiting"  # claimed early: nothing happens
    c.client.hset(keys.challenge(sent["id"]), "expires", 1)  # as if 7 days had passed
    c.client.zadd(due, {name: 1})
    handed = []
    c.service.dispatcher.handoff.on["challenge"] = handed.append
    c.service.dispatch()
    (claim,) = handed
    assert expire_now(c, claim.name, claim.payload) == "expired"
    assert expire_now(c, claim.name, claim.payload) == "expired"  # a job run again
    assert c.client.hget(payloads, name) is None
    assert kinds(news(api, ann)) == ["challenge.expired"]
    assert kinds(news(api, ben)) == ["challenge.received", "challenge.expired"]


def _finished_game(api, ann: str, ben_id: str, ben: str) -> str:
    """A game of Ann and Ben (by a challenge), played to its end by the deadline's greedy bot."""
    sent = challenge(api, ann, ben_id, rated=False)
    game = api.post(f"/challenges/{sent['id']}/accept", headers=auth(ben)).json["game"]
    service = components(api).service
    while not (state := service.state(game)).finished:
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")
    return game


@pytest.mark.slow
def test_a_rematch_offered_after_the_other_has_left_becomes_a_challenge(two, monkeypatch):
    """Slow: two games played to their end by the greedy bot (about 3 s)."""
    api, ann, ben, ann_id, ben_id = two
    at_the_table = _finished_game(api, ann, ben_id, ben)
    offered = api.post(f"/games/{at_the_table}/rematch", headers=auth(ann)).json
    assert offered["waiting_for"] == [1] and "challenge" not in offered  # within the hour: a rematch

    left = _finished_game(api, ann, ben_id, ben)
    monkeypatch.setattr(module, "REMATCH_WINDOW_SECONDS", 0)  # the hour has passed: Ben has left
    components(api).relations.block(ben_id, ann_id)
    refused = api.post(f"/games/{left}/rematch", headers=auth(ann))
    assert refused.status_code == 403 and refused.json["code"] == "not_allowed"  # Ben keeps Ann away
    components(api).relations.unblock(ben_id, ann_id)
    asked = api.post(f"/games/{left}/rematch", headers={**auth(ann), "Idempotency-Key": "rematch-left-1"})
    again = api.post(f"/games/{left}/rematch", headers={**auth(ann), "Idempotency-Key": "rematch-left-1"})
    assert asked.status_code == again.status_code == 200 and asked.json == again.json
    sent = asked.json["challenge"]
    assert (sent["rematch_of"], sent["challenged"]["account"], asked.json["accepted"]) == (left, ben_id, [])
    assert mine(api, ben)["incoming"] == [sent["id"]]
    game = api.post(f"/challenges/{sent['id']}/accept", headers=auth(ben)).json["game"]
    assert api.get(f"/games/{game}", headers=auth(ann)).json["viewer"] == 0


def test_a_challenge_from_someone_blocked_since_is_no_longer_shown_and_cannot_be_accepted_by_them(two):
    api, ann, ben, ann_id, ben_id = two
    sent = challenge(api, ann, ben_id)
    components(api).relations.block(ben_id, ann_id)  # Ben keeps Ann away: her challenge leaves his list
    assert mine(api, ben)["incoming"] == []
    components(api).relations.unblock(ben_id, ann_id)
    components(api).relations.block(ann_id, ben_id)  # Ann keeps Ben away: he cannot take her up on it
    refused = api.post(f"/challenges/{sent['id']}/accept", headers=auth(ben))
    assert refused.status_code == 403 and refused.json["code"] == "not_allowed"
    assert api.get(f"/challenges/{sent['id']}", headers=auth(ben)).json["status"] == "open"
