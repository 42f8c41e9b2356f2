"""Turn alerts in the API: a person's settings and their checks, the alert an append writes when
it becomes that person's turn, and when the alert job sends nothing (the turn is over, the game
is muted, the person is watching, quiet hours). The channels themselves are reached for real in
tests/integration/test_alert_channels.py."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from unittest import mock

from events import keys
from events.outbox import LEASE_MS, now_ms
from tests.support.accounts import OWN, personal_token, sign_in
from tests.support.alerts import (
    attempt_alert,
    b64,
    browser_keys,
    channels_captured,
    end_the_turn,
    joined_game,
    outbox_entry,
)
from tests.support.games import made_with_first_turn
from workers import alert_jobs

TWO = {"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}


def test_settings_start_from_defaults_and_change_a_part_at_a_time(api):
    ada = personal_token(api, "ada@example.com")
    shown = api.get("/me/alerts", token=ada).json
    assert shown["email"] == {"enabled": True, "delay_seconds": 600} and shown["push"] == {"enabled": True}
    assert shown["discord"] is None and shown["quiet_hours"] is None and shown["deadline_reminders"] is True
    key = base64.urlsafe_b64decode(shown["vapid_public_key"] + "==")
    assert len(key) == 65 and key[0] == 4  # an uncompressed P-256 point, as pushManager.subscribe wants
    quiet = {"start": "22:00", "end": "07:30", "time_zone": "Europe/Berlin"}
    changed = api.patch(
        "/me/alerts", json={"quiet_hours": quiet, "email": {"enabled": False, "delay_seconds": 60}}, token=ada
    ).json
    assert changed["quiet_hours"] == quiet and changed["email"]["enabled"] is False and changed["push"]["enabled"]
    assert api.get("/me/alerts", token=ada).json["vapid_public_key"] == shown["vapid_public_key"]  # made once, kept
    off = api.patch("/me/alerts", json={"quiet_hours": None}, token=ada).json
    assert off["quiet_hours"] is None and off["email"]["delay_seconds"] == 60
    assert shown["language"] is None  # not chosen: English
    assert api.patch("/me/alerts", json={"language": "ru"}, token=ada).json["language"] == "ru"


def test_bad_settings_name_the_field_and_change_nothing(api):
    ada = personal_token(api, "ada@example.com")
    before = api.get("/me/alerts", token=ada).json
    bad = [
        ({"quiet_hours": {"start": "25:00", "end": "07:00", "time_zone": "Europe/Berlin"}}, "quiet_hours"),
        ({"quiet_hours": {"start": "22:00", "end": "07:00", "time_zone": "Mars/Olympus"}}, "quiet_hours"),
        ({"email": {"enabled": True, "delay_seconds": -1}}, "email"),
        ({"email": {"enabled": True, "delay_seconds": 86_401}}, "email"),
        ({"discord": {"url": "http://discord.example/api/webhooks/1"}}, "discord.url"),  # not https
        ({"slack": {"url": "https://10.0.0.7/services/x"}}, "slack.url"),  # a private address
        ({"slack": {"url": "https://127.0.0.1/services/x"}}, "slack.url"),  # loopback
        ({"discord": {"url": "https://169.254.169.254/latest"}}, "discord.url"),  # cloud metadata
        ({"pager": True}, "pager"),
        ({"language": "fr"}, "language"),  # not one the service words alerts in
    ]
    for body, field in bad:
        answer = api.patch("/me/alerts", json=body, token=ada)
        assert answer.status_code == 422, (body, answer.json)
        assert answer.headers["Content-Type"] == "application/problem+json"
        assert field in answer.json["errors"], (body, answer.json)
    assert api.get("/me/alerts", token=ada).json == before
    assert api.get("/me/alerts").status_code == 401


def test_a_push_subscription_with_bad_keys_is_refused_and_a_good_one_kept_once(api):
    ada = personal_token(api, "ada@example.com")
    _, good = browser_keys()
    endpoint = "https://203.0.113.9/push/abc"
    with mock.patch.dict("os.environ", {"WEBHOOK_ALLOW_HOSTS": "203.0.113.9"}):
        wrong_point = {**good, "p256dh": b64(b"\x04" + bytes(64))}  # 65 bytes, not on the curve
        for keys_sent, field in [
            ({**good, "p256dh": "AAAA"}, "keys.p256dh"),
            (wrong_point, "keys.p256dh"),
            ({**good, "auth": b64(bytes(8))}, "keys.auth"),
        ]:
            answer = api.post("/me/push-subscriptions", json={"endpoint": endpoint, "keys": keys_sent}, token=ada)
            assert answer.status_code == 422 and field in answer.json["errors"], answer.json
            assert answer.json["code"] == "bad_push_keys"
        private = api.post(
            "/me/push-subscriptions", json={"endpoint": "https://192.168.1.4/p", "keys": good}, token=ada
        )
        assert private.status_code == 422 and "endpoint" in private.json["errors"]
        assert api.get("/me/alerts", token=ada).json["push_subscriptions"] == []
        made = api.post(
            "/me/push-subscriptions", json={"endpoint": endpoint, "keys": good, "expirationTime": None}, token=ada
        )
        assert made.status_code == 201
        again = api.post("/me/push-subscriptions", json={"endpoint": endpoint, "keys": browser_keys()[1]}, token=ada)
        assert again.json["id"] == made.json["id"]  # the same browser again: its keys replaced
    assert [s["id"] for s in api.get("/me/alerts", token=ada).json["push_subscriptions"]] == [made.json["id"]]
    assert api.delete(f"/me/push-subscriptions/{made.json['id']}", token=ada).status_code == 204
    assert api.delete(f"/me/push-subscriptions/{made.json['id']}", token=ada).status_code == 404


def test_the_append_that_starts_a_persons_turn_writes_their_alert_and_their_deadline_reminder(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    game, ada_seat, bo_seat = joined_game(api, ada, bo)
    assert outbox_entry(api, f"al:{game}:1") is None  # not Bo's turn yet
    end_the_turn(api, game, ada_seat)
    alert = json.loads(outbox_entry(api, f"al:{game}:1"))
    bo_account = api.get("/me", token=bo).json["account"]
    assert alert["account"] == bo_account and alert["seat"] == 1 and alert["kind"] == "turn.started"
    assert alert["turn"] == api.get(f"/games/{game}", token=bo_seat).json["turn"]["number"]
    assert outbox_entry(api, f"al:{game}:deadline") is None  # no deadline, no reminder
    timed = api.post(
        "/games", json={**TWO, "turn_deadline": 3600, "seats": [{"kind": "human"}, {"kind": "bot"}]}, token=ada
    ).json
    reminder = api.app.extensions["bluemoon"].store.outbox_entry(f"al:{timed['game']}:deadline")
    assert reminder is not None and json.loads(reminder[0])["kind"] == "turn.deadline_near"
    due_in = reminder[1] - now_ms()
    assert 3_300_000 - 5_000 < due_in <= 3_300_000  # 5 minutes before the hour is up
    anonymous = api.post("/games", json=TWO).json  # no account: nobody to alert
    assert not [
        n
        for n in api.app.extensions["bluemoon"].client.hkeys(keys.outbox(keys.shard(anonymous["game"]))[0])
        if n.startswith(f"al:{anonymous['game']}".encode())
    ]


def test_the_alert_job_sends_nothing_for_a_played_turn_a_muted_game_or_a_watched_seat(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    with channels_captured() as sent:
        hook = {"discord": {"url": "https://203.0.113.9/api/webhooks/1"}}
        assert api.patch("/me/alerts", json=hook, token=bo).status_code == 200
        game, ada_seat, bo_seat = joined_game(api, ada, bo)
        end_the_turn(api, game, ada_seat)
        assert api.put(f"/me/muted-games/{game}", token=bo).status_code == 204
        assert attempt_alert(api, f"al:{game}:1") == "skipped" and not sent
        assert outbox_entry(api, f"al:{game}:1") is None  # done with: nothing is retried
        assert api.delete(f"/me/muted-games/{game}", token=bo).status_code == 204

        end_the_turn(api, game, bo_seat)
        end_the_turn(api, game, ada_seat)
        client = api.app.extensions["bluemoon"].client
        client.zadd(keys.watchers(game), {"1:a-stream": now_ms() + 60_000})  # Bo's page is open on the game
        assert attempt_alert(api, f"al:{game}:1") == "skipped" and not sent
        client.delete(keys.watchers(game))

        end_the_turn(api, game, bo_seat)
        end_the_turn(api, game, ada_seat)
        name, payload = f"al:{game}:1", outbox_entry(api, f"al:{game}:1")
        end_the_turn(api, game, bo_seat)  # Bo played before the alert went out
        api.app.extensions["bluemoon"].store.client.hset(keys.outbox_of(name)[0], name, payload)  # as if still pending
        assert alert_jobs.attempt(api.app.extensions["bluemoon"], name, payload) == "skipped" and not sent

        end_the_turn(api, game, ada_seat)
        assert attempt_alert(api, f"al:{game}:1") == "done" and len(sent) == 1
        log = api.get("/me/alerts/deliveries", token=bo).json["deliveries"]
    assert [(d["channel"], d["outcome"]) for d in log] == [
        ("discord", "delivered"),
        ("email", "skipped"),
        *[("all", "skipped")] * 3,
    ]
    assert [d["detail"] for d in log[1:]] == [
        "this service sends no email (no SMTP_URL)",
        "the turn was already played",
        "you are watching this game",
        "the game is muted",
    ]
    assert api.put(f"/me/muted-games/{game}", token=personal_token(api, "cy@example.com")).status_code == 403


def test_a_mail_with_nothing_left_to_say_is_not_sent_and_logged_as_skipped_not_delivered(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    assert api.patch("/me/alerts", json={"email": {"enabled": True, "delay_seconds": 0}}, token=bo).status_code == 200
    game, ada_seat, bo_seat = joined_game(api, ada, bo)
    end_the_turn(api, game, ada_seat)
    composed = alert_jobs.item_for

    def played_meanwhile(*args, **kwargs):  # Bo plays his turn while the job writes his alert
        end_the_turn(api, game, bo_seat)
        return composed(*args, **kwargs)

    mailed: list = []
    with (
        mock.patch.object(alert_jobs, "delivery", lambda: "email"),
        mock.patch.object(alert_jobs.alert_channels, "mail", lambda *message: mailed.append(message)),
    ):
        with mock.patch.object(alert_jobs, "item_for", played_meanwhile):
            assert attempt_alert(api, f"al:{game}:1") == "done"
        assert mailed == []
        end_the_turn(api, game, ada_seat)
        assert attempt_alert(api, f"al:{game}:1") == "done" and len(mailed) == 1  # a turn still Bo's is mailed
    log = api.get("/me/alerts/deliveries", token=bo).json["deliveries"]
    assert [(d["channel"], d["outcome"], d["detail"]) for d in reversed(log)] == [
        ("email", "skipped", "the turn was already played"),
        ("email", "delivered", None),
    ]


def test_a_push_no_subscription_took_is_logged_as_skipped_not_delivered(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    changes = {"email": {"enabled": False, "delay_seconds": 0}, "push": {"enabled": True}}
    assert api.patch("/me/alerts", json=changes, token=bo).status_code == 200
    with mock.patch.dict("os.environ", {"WEBHOOK_ALLOW_HOSTS": "203.0.113.9"}):
        made = api.post(
            "/me/push-subscriptions", json={"endpoint": "https://203.0.113.9/p", "keys": browser_keys()[1]}, token=bo
        )
        assert made.status_code == 201, made.json
    game, ada_seat, _ = joined_game(api, ada, bo)
    end_the_turn(api, game, ada_seat)

    def gone(*args):
        raise alert_jobs.ChannelFailed("answered 410", gone=True, status=410)

    with mock.patch.object(alert_jobs.alert_channels, "push", gone):
        assert attempt_alert(api, f"al:{game}:1") == "done"
    assert api.get("/me/alerts", token=bo).json["push_subscriptions"] == []  # the gone subscription is dropped
    log = api.get("/me/alerts/deliveries", token=bo).json["deliveries"]
    assert [(d["channel"], d["outcome"], d["detail"]) for d in log] == [
        ("push", "skipped", "no push subscription took it (those gone were dropped)")
    ]


def test_quiet_hours_hold_an_alert_until_they_end_in_the_persons_time_zone(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    zone = "America/Sao_Paulo"
    now_there = datetime.now(UTC).astimezone(__import__("zoneinfo").ZoneInfo(zone))
    start, end = (now_there - timedelta(hours=1)).strftime("%H:%M"), (now_there + timedelta(hours=2)).strftime("%H:%M")
    api.patch("/me/alerts", json={"quiet_hours": {"start": start, "end": end, "time_zone": zone}}, token=bo)
    game, ada_seat, _ = joined_game(api, ada, bo)
    end_the_turn(api, game, ada_seat)
    assert attempt_alert(api, f"al:{game}:1") == "held"
    due = api.app.extensions["bluemoon"].store.outbox_entry(f"al:{game}:1")[1]
    ends = datetime.fromtimestamp(due / 1000, UTC).astimezone(now_there.tzinfo)
    assert ends.strftime("%H:%M") == end and 0 < (ends - now_there).total_seconds() <= 2 * 3600 + 60


def test_the_unsubscribe_link_works_without_signing_in(api):
    sign_in(api, "ada@example.com")
    account = api.get("/me").json["account"]
    token = api.app.extensions["bluemoon"].alerts.unsubscribe_token(account)
    api.delete("/auth/session", headers=OWN)
    page = api.get(f"/alerts/unsubscribe?token={token}")
    assert page.status_code == 200 and 'method="post"' in page.get_data(as_text=True)
    assert api.app.extensions["bluemoon"].alerts.get(account)["email"]["enabled"]  # a visit changes nothing
    done = api.post(
        f"/alerts/unsubscribe?token={token}",
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert done.status_code == 200
    assert not api.app.extensions["bluemoon"].alerts.get(account)["email"]["enabled"]
    assert (
        api.post(
            "/alerts/unsubscribe?token=not-a-token",
            data="List-Unsubscribe=One-Click",
            content_type="application/x-www-form-urlencoded",
        ).status_code
        == 404
    )


def test_an_open_stream_of_a_seat_marks_its_person_as_watching_until_it_closes(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    game, _, bo_seat = joined_game(api, ada, bo)
    client = api.app.extensions["bluemoon"].client
    api.app.config["SSE_SECONDS"] = 30
    stream = api.app.test_client().get(
        f"/games/{game}/stream", headers={"Authorization": f"Bearer {bo_seat}"}, buffered=False
    )
    chunks = iter(stream.response)
    assert next(chunks).startswith(b"retry:")
    next(chunks)  # the events so far: the stream is now open on the seat
    assert alert_jobs.watching(client, game, 1) and not alert_jobs.watching(client, game, 0)
    stream.close()  # the page is closed
    assert not alert_jobs.watching(client, game, 1)
    spectator = api.app.test_client().get(f"/games/{game}/stream", buffered=False)
    spectating = iter(spectator.response)
    next(spectating), next(spectating)
    assert not client.zcard(keys.watchers(game))  # a spectator watches no seat
    spectator.close()


def test_a_channel_a_group_shares_gets_each_games_turn_once(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    shared = {"slack": {"url": "https://203.0.113.9/services/group"}}
    with channels_captured() as sent:
        for person in (ada, bo):
            assert api.patch("/me/alerts", json=shared, token=person).status_code == 200
        game, ada_seat, bo_seat = joined_game(api, ada, bo)
        end_the_turn(api, game, ada_seat)
        name, payload = f"al:{game}:1", outbox_entry(api, f"al:{game}:1")
        again = json.dumps({**json.loads(payload), "id": "al_another"})  # the same turn alerted twice
        components = api.app.extensions["bluemoon"]
        assert alert_jobs.attempt(components, name, payload) == "done"
        components.client.hset(keys.outbox_of(name)[0], name, again)
        assert alert_jobs.attempt(components, name, again) == "done"
        end_the_turn(api, game, bo_seat)
        assert attempt_alert(api, f"al:{game}:0") == "done"  # Ada's turn: a new message on the same channel
    names = [api.get("/me", token=person).json["display_name"] for person in (bo, ada)]
    assert [body["text"] for body in sent] == [
        f"{name}, it is your turn in {names[1]}, {names[0]} (CMON)" for name in names
    ]


def test_an_alert_is_worded_in_the_language_its_person_chose(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    with channels_captured() as sent:
        chosen = {"discord": {"url": "https://203.0.113.9/api/webhooks/1"}, "language": "de"}
        assert api.patch("/me/alerts", json=chosen, token=bo).status_code == 200
        game, ada_seat, _ = joined_game(api, ada, bo)
        end_the_turn(api, game, ada_seat)
        assert attempt_alert(api, f"al:{game}:1") == "done"
    bo_name = api.get("/me", token=bo).json["display_name"]
    assert sent[0]["content"].startswith(f"{bo_name}, du bist am Zug in ")


def test_a_game_made_or_joined_while_its_person_is_away_waits_for_them_too(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    back = datetime.now(UTC) + timedelta(days=2)
    away = api.put("/me/vacation", json={"until": back.isoformat()}, token=ada).json
    assert away["days_left"] == 12  # two days begun
    made = made_with_first_turn(
        api, {"seats": [{"kind": "human"}, {"kind": "open"}], "clock": {"bank_seconds": 60}}, token=ada
    )
    api.put("/me/vacation", json={"until": back.isoformat()}, token=bo)
    api.post(f"/games/{made['game']}/seats/1/join", json={"invite": made["seats"][1]["invite"]}, token=bo)
    view = api.get(f"/games/{made['game']}", token=ada).json
    assert [c["away_until"] for c in view["clocks"]] == [away["away_until"], away["away_until"]]
    deadline = datetime.fromisoformat(view["turn"]["deadline"].replace("Z", "+00:00"))
    assert 55 <= (deadline - back).total_seconds() <= 61  # Ada's 60 s begin when she is back


def test_a_clock_outside_its_limits_is_refused_with_the_field_named(api):
    seats = {"seats": [{"kind": "human"}, {"kind": "human"}]}
    for clock, field in [
        ({"bank_seconds": 1}, "bank_seconds"),
        ({"bank_seconds": 61 * 86400}, "bank_seconds"),
        ({"bank_seconds": 600, "increment_seconds": -1}, "increment_seconds"),
        ({"bank_seconds": 600, "cap_seconds": 300}, "cap_seconds"),
        ({"increment_seconds": 60}, "bank_seconds"),
    ]:
        answer = api.post("/games", json={**seats, "clock": clock})
        assert answer.status_code == 422 and field in answer.json["errors"]["clock"], (clock, answer.json)
    both = api.post("/games", json={**seats, "clock": {"bank_seconds": 600}, "turn_deadline": 600})
    assert both.status_code == 422 and "clock" in both.json["errors"]
    assert api.get("/games").json["games"] == []  # nothing was made


def test_each_channel_is_sent_under_a_fresh_lease_so_a_slow_one_never_lets_a_second_job_in(api):
    """Were the first channel to take almost the whole lease (a slow SMTP server, a push
    service at its timeout), the dispatcher would hand the entry to a second job while this
    one still sends: the job renews the lease before each channel."""
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    components = api.app.extensions["bluemoon"]
    leases: list[int] = []

    def slow_post(field, url, body):  # the entry's time left when sent; then the lease all but gone
        payload, due = components.store.outbox_entry(name)
        leases.append(due - now_ms())
        components.client.zadd(keys.outbox_of(name)[1], {name: now_ms() + 5})
        return 200

    with (
        mock.patch.dict("os.environ", {"WEBHOOK_ALLOW_HOSTS": "203.0.113.9"}),
        mock.patch.object(alert_jobs.alert_channels, "post_json", slow_post),
        mock.patch.object(alert_jobs, "delivery", lambda: "server log"),
    ):
        both = {"discord": {"url": "https://203.0.113.9/api/webhooks/1"}, "slack": {"url": "https://203.0.113.9/s"}}
        assert api.patch("/me/alerts", json=both, token=bo).status_code == 200
        game, ada_seat, _ = joined_game(api, ada, bo)
        end_the_turn(api, game, ada_seat)
        name = f"al:{game}:1"
        assert attempt_alert(api, name) == "done"
    assert len(leases) == 2 and min(leases) > LEASE_MS - 2_000, leases
