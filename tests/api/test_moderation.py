"""Reports and moderators from the outside (issue 38, items 2 and 3): a person reports a chat
message (its context kept) or a person, with a reason, within a quota; nobody reports what they
cannot read; moderators alone (on the page's session) see the reports, hide messages, suspend
accounts and let them back, and every such action is in the moderation log. A suspended account
cannot create or join a game, sees its suspension, and its running game goes on at the deadline."""

from __future__ import annotations

from application.chat.messages import ChatMessages
from application.people.suspensions import LONGEST_SUSPENSION_S
from tests.support.accounts import OWN, page_of
from tests.support.lobby import account_of, auth, open_game, people
from tests.support.moderation import moderator_page, said
from workers.turn_jobs import play

HUMANS = {"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}


def _game_of(api, token: str, **extra) -> dict:
    """A game of two humans whose first seat is the person of ``token``."""
    made = api.post("/games", json={**HUMANS, **extra}, headers=auth(token))
    assert made.status_code == 201, made.json
    return made.json


def _reports(page) -> list[dict]:
    answer = page.get("/moderation/reports")
    assert answer.status_code == 200, answer.json
    return answer.json["reports"]


def test_a_report_of_a_message_keeps_the_messages_around_it_when_the_author_deletes_it(api):
    (ada,) = people(api, "rep-ada")
    game = _game_of(api, ada)["game"]
    lines = [f"line {n}" for n in range(12)]
    sent = said(api, game, "seats", "author-1", *lines)
    filed = api.post(
        "/reports",
        json={"game": game, "room": "seats", "message": sent[6]["id"], "reason": "abuse", "text": "rude\nand loud"},
        headers=auth(ada),
    )
    assert filed.status_code == 201, filed.json
    assert filed.json["status"] == "open" and "context" not in filed.json  # the reporter is told it is filed
    ChatMessages(api.app.extensions["bluemoon"].store).remove(game, sent[6]["id"], "deleted", "author-1")
    page, _ = moderator_page(api, "rep-mod@example.com")
    (report,) = _reports(page)
    assert (
        report["reporter"] == account_of(api, ada)
        and report["reason"] == "abuse"
        and report["text"] == "rude\nand loud"
    )
    assert report["subject"] == {
        "kind": "message",
        "game": game,
        "room": "seats",
        "message": sent[6]["id"],
        "author": "author-1",
    }
    assert [m["text"] for m in report["context"]] == lines[1:12]  # five each side, as they were when filed
    assert api.get(f"/games/{game}").status_code == 200


def test_a_report_without_a_reason_or_with_control_characters_is_refused_naming_the_field(api):
    (ada,) = people(api, "bad-ada")
    bo = account_of(api, people(api, "bad-bo")[0])
    cases = [
        ({"account": bo}, "reason"),
        ({"account": bo, "reason": "rude"}, "reason"),
        ({"account": bo, "reason": "abuse", "text": "look \u202eevil"}, "text"),
        ({"account": bo, "reason": "abuse", "text": "bell \u0007"}, "text"),
        ({"account": bo, "reason": "abuse", "text": "c1 \u0085"}, "text"),
        ({"account": bo, "reason": "abuse", "text": "x" * 1001}, "text"),
        ({"reason": "abuse"}, "account"),
        ({"game": "0" * 32, "reason": "abuse"}, "room"),
        ({"game": "0" * 32, "room": "seats", "message": "DROP", "reason": "abuse"}, "message"),
        ({"account": bo, "game": "0" * 32, "room": "seats", "message": "1-0", "reason": "spam"}, "account"),
    ]
    for body, field in cases:
        refused = api.post("/reports", json=body, headers=auth(ada))
        assert refused.status_code == 422 and field in refused.json["errors"], (body, refused.json)
    assert api.post("/reports", json={"account": "nobody", "reason": "spam"}, headers=auth(ada)).status_code == 404
    page, _ = moderator_page(api, "bad-mod@example.com")
    assert _reports(page) == []  # nothing was filed
    assert (
        api.post("/reports", json={"account": bo, "reason": "other", "text": "x" * 1000}, headers=auth(ada)).status_code
        == 201
    )


def test_nobody_reports_themselves(api):
    """A report of oneself would only fill the moderators' queue (and spend no one else's quota)."""
    (ada,) = people(api, "self-ada")
    refused = api.post("/reports", json={"account": account_of(api, ada), "reason": "spam"}, headers=auth(ada))
    assert refused.status_code == 422 and refused.json["code"] == "report_of_self", refused.json
    assert refused.json["field"] == "account"
    page, _ = moderator_page(api, "self-mod@example.com")
    assert _reports(page) == []  # nothing was filed


def test_a_suspended_moderator_moderates_nothing_until_the_suspension_ends(api):
    """Otherwise one moderator's suspension of another would mean nothing: the suspended one
    could lift it, or go on hiding and suspending."""
    (ada,) = people(api, "smod-ada")
    first, first_id = moderator_page(api, "smod-first@example.com")
    second, second_id = moderator_page(api, "smod-second@example.com")
    made = first.put(f"/moderation/suspensions/{second_id}", json={"seconds": 3600, "reason": "rogue"}, headers=OWN)
    assert made.status_code == 200, made.json
    calls = [
        second.get("/moderation/reports"),
        second.post(f"/moderation/suspensions/{second_id}/lift", json={}, headers=OWN),
        second.put(f"/moderation/suspensions/{account_of(api, ada)}", json={"seconds": 60, "reason": "x"}, headers=OWN),
    ]
    assert [(c.status_code, c.json["code"]) for c in calls] == [(403, "account_suspended")] * 3
    assert api.get("/me/suspension", headers=auth(ada)).json["suspended"] is False
    assert first.post(f"/moderation/suspensions/{second_id}/lift", json={}, headers=OWN).status_code in (200, 204)
    assert second.get("/moderation/reports").status_code == 200


def test_a_stranger_cannot_report_a_message_of_the_seats_room_and_learns_nothing_of_it(api):
    ada, eve = people(api, "seat-ada", "seat-eve")
    game = _game_of(api, ada)["game"]
    (secret,) = said(api, game, "seats", "author-2", "our plan")
    (public,) = said(api, game, "spectators", "author-2", "hello watchers")
    seen = api.post(
        "/reports", json={"game": game, "room": "seats", "message": secret["id"], "reason": "spam"}, headers=auth(eve)
    )
    never = "1-0"
    unknown = api.post(
        "/reports", json={"game": game, "room": "seats", "message": never, "reason": "spam"}, headers=auth(eve)
    )
    assert seen.status_code == unknown.status_code == 404
    assert seen.json["detail"].replace(secret["id"], "?") == unknown.json["detail"].replace(never, "?")
    watched = api.post(
        "/reports",
        json={"game": game, "room": "spectators", "message": public["id"], "reason": "spam"},
        headers=auth(eve),
    )
    assert watched.status_code == 201  # the spectators' room is everyone's to read, and to report
    page, _ = moderator_page(api, "seat-mod@example.com")
    assert [r["subject"]["message"] for r in _reports(page)] == [public["id"]]


def test_one_open_report_per_subject_and_a_quota_a_day_answered_429_with_retry_after(api, monkeypatch):
    monkeypatch.setenv("QUOTA_REPORTS_PER_ACCOUNT", "2")
    ada, *others = people(api, "quota-ada", "quota-b", "quota-c", "quota-d")
    b, c, d = (account_of(api, token) for token in others)
    assert api.post("/reports", json={"account": b, "reason": "spam"}, headers=auth(ada)).status_code == 201
    again = api.post("/reports", json={"account": b, "reason": "abuse"}, headers=auth(ada))
    assert again.status_code == 409 and again.json["code"] == "already_reported"
    assert api.post("/reports", json={"account": c, "reason": "spam"}, headers=auth(ada)).status_code == 201
    over = api.post("/reports", json={"account": d, "reason": "spam"}, headers=auth(ada))
    assert over.status_code == 429 and over.json["code"] == "too_many_reports"
    assert over.json["limit"] == "QUOTA_REPORTS_PER_ACCOUNT" and 0 < int(over.headers["Retry-After"]) <= 86400
    page, _ = moderator_page(api, "quota-mod@example.com")
    assert sorted(r["subject"]["account"] for r in _reports(page)) == sorted([b, c])
    assert api.post("/reports", json={"account": d, "reason": "spam"}, headers=auth(others[0])).status_code == 201


def test_only_a_moderators_session_reaches_the_moderators_operations(api):
    (ada,) = people(api, "only-ada")
    person = page_of(api, "only-person@example.com")
    page, moderator = moderator_page(api, "only-mod@example.com")
    token = page.post(
        "/me/tokens", json={"name": "mod tools", "scopes": ["read", "play", "webhooks", "alerts"]}, headers=OWN
    ).json["token"]
    game = _game_of(api, ada)["game"]
    (message,) = said(api, game, "spectators", "author-3", "hi")
    calls = [
        ("get", "/moderation/reports", None),
        ("get", "/moderation/log", None),
        (
            "post",
            "/moderation/hidden-messages",
            {"game": game, "room": "spectators", "message": message["id"], "reason": "x"},
        ),
        ("put", f"/moderation/suspensions/{account_of(api, ada)}", {"seconds": 60, "reason": "x"}),
        ("post", f"/moderation/suspensions/{account_of(api, ada)}/lift", {}),
        ("post", "/moderation/reports/r0000000000000abcdef01/close", {"outcome": "dismissed"}),
    ]
    for method, path, body in calls:
        kwargs = {"json": body} if body is not None else {}
        as_person = getattr(person, method)(path, headers=OWN, **kwargs)
        assert as_person.status_code == 403 and as_person.json["code"] == "not_a_moderator", (path, as_person.json)
        by_token = getattr(api, method)(path, headers=auth(token), **kwargs)
        assert by_token.status_code == 403 and by_token.json["code"] == "session_required", (path, by_token.json)
        by_player = getattr(api, method)(path, headers=auth(ada), **kwargs)
        assert by_player.status_code == 403 and by_player.json["code"] == "session_required"
        assert getattr(api, method)(path, **kwargs).status_code == 401
    assert ChatMessages(api.app.extensions["bluemoon"].store).one(game, "spectators", message["id"])["removed"] is None
    assert api.get("/me/suspension", headers=auth(ada)).json["suspended"] is False
    assert page.get("/moderation/log").json["entries"][0] == {
        **page.get("/moderation/log").json["entries"][0],
        "action": "grant",
        "by": "operator",
        "account": moderator,
    }  # only the grant: nothing the refused calls asked for was done


def test_a_moderator_hides_a_message_for_everyone_and_closes_the_report_and_the_log_says_who_what_when_why(api):
    (ada,) = people(api, "hide-ada")
    game = _game_of(api, ada)["game"]
    sent = said(api, game, "seats", "author-4", "fine", "vile words", "fine too")
    filed = api.post(
        "/reports", json={"game": game, "room": "seats", "message": sent[1]["id"], "reason": "abuse"}, headers=auth(ada)
    ).json
    page, moderator = moderator_page(api, "hide-mod@example.com")
    target = {"game": game, "room": "seats", "message": sent[1]["id"]}
    hidden = page.post("/moderation/hidden-messages", json={**target, "reason": "slurs"}, headers=OWN)
    assert hidden.status_code == 200 and hidden.json["removed"] == "hidden" and hidden.json["text"] is None
    shown = ChatMessages(api.app.extensions["bluemoon"].store).read(game, "seats")
    assert [m["text"] for m in shown] == ["fine", None, "fine too"]  # for everyone who reads the room
    (report,) = _reports(page)
    assert report["context"][1]["text"] == "vile words"  # the evidence stays with the report
    closed = page.post(
        f"/moderation/reports/{filed['id']}/close", json={"outcome": "resolved", "note": "hidden"}, headers=OWN
    )
    assert closed.status_code == 200 and closed.json["status"] == "resolved" and closed.json["closed_by"] == moderator
    twice = page.post(f"/moderation/reports/{filed['id']}/close", json={"outcome": "dismissed"}, headers=OWN)
    assert twice.status_code == 409 and twice.json["code"] == "report_closed"
    assert _reports(page) == []
    unknown = page.post("/moderation/hidden-messages", json={**target, "message": "1-0", "reason": "x"}, headers=OWN)
    assert unknown.status_code == 404
    log = page.get("/moderation/log").json["entries"]
    assert [(e["action"], e["by"]) for e in log[:2]] == [("resolve", moderator), ("hide", moderator)]
    assert log[1]["reason"] == "slurs" and log[1]["message"] == sent[1]["id"] and log[1]["game"] == game
    assert log[0]["report"] == filed["id"] and log[0]["at"] >= log[1]["at"] >= filed["at"]
    again = api.post(
        "/reports", json={"game": game, "room": "seats", "message": sent[1]["id"], "reason": "abuse"}, headers=auth(ada)
    )
    assert again.status_code == 201  # closed: the same subject may be reported anew


def test_the_open_reports_and_the_log_come_a_page_at_a_time(api):
    ada, *others = people(api, "page-ada", "page-b", "page-c", "page-d")
    for token in others:
        assert (
            api.post(
                "/reports", json={"account": account_of(api, token), "reason": "spam"}, headers=auth(ada)
            ).status_code
            == 201
        )
    page, _ = moderator_page(api, "page-mod@example.com")
    first = page.get("/moderation/reports?limit=2").json
    second = page.get(f"/moderation/reports?limit=2&after={first['next']}").json
    assert len(first["reports"]) == 2 and len(second["reports"]) == 1 and second["next"] is None
    listed = [r["subject"]["account"] for r in first["reports"] + second["reports"]]
    assert listed == [account_of(api, token) for token in others]  # oldest first
    for report in first["reports"] + second["reports"]:
        page.post(f"/moderation/reports/{report['id']}/close", json={"outcome": "dismissed"}, headers=OWN)
    newest = page.get("/moderation/log?limit=2").json
    older = page.get(f"/moderation/log?limit=2&before={newest['next']}").json
    assert [e["action"] for e in newest["entries"] + older["entries"]] == ["dismiss", "dismiss", "dismiss", "grant"]
    assert page.get("/moderation/reports?after=not-a-cursor").status_code == 422
    assert page.get("/moderation/log?before=not-a-cursor").status_code == 422


def test_a_suspended_account_cannot_create_or_join_sees_why_and_its_running_game_goes_on_at_the_deadline(api):
    ada, bo = people(api, "susp-ada", "susp-bo")
    running = _game_of(api, ada, turn_deadline=3600, deadline_level="greedy")
    invited = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "open"}]}).json
    table = open_game(api, bo)
    page, moderator = moderator_page(api, "susp-mod@example.com")
    ada_id = account_of(api, ada)
    for seconds in (0, LONGEST_SUSPENSION_S + 1):
        wrong = page.put(f"/moderation/suspensions/{ada_id}", json={"seconds": seconds, "reason": "x"}, headers=OWN)
        assert wrong.status_code == 422 and "seconds" in wrong.json["errors"]
    assert page.put(f"/moderation/suspensions/{ada_id}", json={"seconds": 60}, headers=OWN).json["errors"].keys() == {
        "reason"
    }
    assert (
        page.put("/moderation/suspensions/nobody", json={"seconds": 60, "reason": "x"}, headers=OWN).status_code == 404
    )
    made = page.put(f"/moderation/suspensions/{ada_id}", json={"seconds": 3600, "reason": "abuse in chat"}, headers=OWN)
    assert made.status_code == 200 and made.json["by"] == moderator
    mine = api.get("/me/suspension", headers=auth(ada)).json
    assert mine == {"suspended": True, "until": made.json["until"], "reason": "abuse in chat"}

    refusals = [
        api.post("/games", json=HUMANS, headers=auth(ada)),
        api.post("/open-games", json={"players": 2}, headers=auth(ada)),
        api.post(f"/open-games/{table['id']}/join", headers=auth(ada)),
        api.post(
            f"/games/{invited['game']}/seats/1/join", json={"invite": invited["seats"][1]["invite"]}, headers=auth(ada)
        ),
    ]
    assert [(r.status_code, r.json["code"]) for r in refusals] == [(403, "account_suspended")] * 4
    assert api.get(f"/open-games/{table['id']}").json["free"] == 1  # nothing was taken

    service = api.app.extensions["bluemoon"].service
    game = running["game"]
    before = service.state(game)
    assert before.turn.seat == 0  # the suspended person's turn: the deadline's bot plays it, as for anyone away
    play(service, game, 0, before.turn.number, "greedy", "deadline")
    after = service.state(game)
    assert after.turn.seat == 1 and after.version > before.version
    assert api.get(f"/games/{game}", headers=auth(ada)).status_code == 200  # and they still see their game

    assert (
        page.post(f"/moderation/suspensions/{ada_id}/lift", json={"reason": "served"}, headers=OWN).status_code == 204
    )
    assert page.post(f"/moderation/suspensions/{ada_id}/lift", json={}, headers=OWN).status_code == 404
    assert api.get("/me/suspension", headers=auth(ada)).json == {"suspended": False, "until": None, "reason": None}
    assert api.post("/games", json=HUMANS, headers=auth(ada)).status_code == 201
    log = page.get("/moderation/log").json["entries"]
    assert [(e["action"], e.get("account"), e["reason"]) for e in log[:2]] == [
        ("lift", ada_id, "served"),
        ("suspend", ada_id, "abuse in chat"),
    ]
    assert log[1]["until"] == made.json["until"]
