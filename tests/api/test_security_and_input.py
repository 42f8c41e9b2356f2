"""From the outside: no seat acts for another or sees what the rules hide; bad input gets a
problem response and changes nothing; a retried command is applied once."""

from __future__ import annotations

import json

import fakeredis
import pytest

from application.background.handoff import CallbackHandoff


def _turn(api, game):
    return api.get(f"/games/{game}").json["turn"]["seat"]


def _secrets(api, game):
    """The real state, holding everything a seat must not learn: hands, deck order, seed."""
    service = api.app.extensions["bluemoon"].service
    state = service.state(game)
    return state


def test_a_seat_cannot_act_for_another(api, game):
    g, tokens = game
    mover = _turn(api, g)
    other = 1 - mover
    r = api.post(f"/games/{g}/commands", token=tokens[other], json={"type": "end_turn"}, headers={"If-Match": '"5"'})
    assert r.status_code == 409 and r.json["code"] == "not_your_turn"
    assert api.get(f"/games/{g}/legal", token=tokens[other]).json["commands"] == []


def test_tokens_are_needed_and_bound_to_their_game(api, game):
    g, tokens = game
    r = api.post(f"/games/{g}/commands", json={"type": "end_turn"}, headers={"If-Match": '"5"'})
    assert r.status_code == 401 and r.mimetype == "application/problem+json"
    assert api.get(f"/games/{g}/legal", token="forged").status_code == 403
    other = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    assert api.get(f"/games/{g}/legal", token=other["seats"][0]["token"]).status_code == 403


def test_tokens_are_unguessable_and_stored_only_as_hashes(api, game):
    g, tokens = game
    assert all(len(t) >= 40 for t in tokens) and len(set(tokens)) == 2
    client = api.app.extensions["bluemoon"].client
    dump = b"".join(client.dump(k) or b"" for k in client.keys("*"))
    stored = [k.decode().removeprefix("token:") for k in client.keys("token:*")]
    for t in tokens:
        assert t.encode() not in dump
    assert len(stored) >= 2 and all(len(k) == 64 for k in stored)


def test_no_endpoint_leaks_hands_deck_seed_or_crystals_before_the_end(api, game):
    g, tokens = game
    # play a few commands so the feed holds draws too
    for _ in range(3):
        seat = _turn(api, g)
        v = api.get(f"/games/{g}").json["version"]
        api.post(f"/games/{g}/commands", token=tokens[seat], json={"type": "end_turn"}, headers={"If-Match": f'"{v}"'})
    state = _secrets(api, g)
    for seat in (0, 1):
        other = state.players[1 - seat]
        hidden = set(other.hand) | set(state.deck)
        texts = [
            api.get(f"/games/{g}", token=tokens[seat]).get_data(as_text=True),
            api.get(f"/games/{g}/events?after=0", token=tokens[seat]).get_data(as_text=True),
            api.get(f"/games/{g}/versions/{state.version}", token=tokens[seat]).get_data(as_text=True),
            api.get(f"/games/{g}/versions/4", token=tokens[seat]).get_data(as_text=True),
        ]
        for text in texts:
            assert not any(f'"{card}"' in text for card in hidden)
            assert state.seed not in text
        view = api.get(f"/games/{g}", token=tokens[seat]).json
        assert view["players"][1 - seat]["crystals"] is None and view["players"][1 - seat]["hand"] is None
    assert api.get(f"/games/{g}/log").status_code == 409
    assert api.get(f"/games/{g}/audit").status_code == 409


def test_the_sse_stream_is_redacted_too(api, game):
    api.app.config["SSE_SECONDS"] = 0.3
    g, tokens = game
    state = _secrets(api, g)
    seat = 0
    text = api.get(f"/games/{g}/stream", token=tokens[seat]).get_data(as_text=True)
    assert "id: 1\n" in text and "event: GameCreated" in text
    hidden = set(state.players[1].hand) | set(state.deck)
    assert not any(f'"{card}"' in text for card in hidden) and state.seed not in text
    assert all(f'"{c}"' in text for c in state.players[0].hand)
    resumed = api.get(f"/games/{g}/stream", token=tokens[seat], headers={"Last-Event-ID": "4"}).get_data(as_text=True)
    assert "id: 4\n" not in resumed and "id: 5\n" in resumed


def test_a_retried_command_is_applied_once(api, game):
    g, tokens = game
    seat = _turn(api, g)
    headers = {"If-Match": '"5"', "Idempotency-Key": "retry-me"}
    first = api.post(f"/games/{g}/commands", token=tokens[seat], json={"type": "end_turn"}, headers=headers)
    again = api.post(f"/games/{g}/commands", token=tokens[seat], json={"type": "end_turn"}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.json["duplicate"] and not first.json["duplicate"]
    assert again.json["version"] == first.json["version"] and again.json["events"] == first.json["events"]
    assert api.get(f"/games/{g}").json["version"] == first.json["version"]
    reused = api.post(
        f"/games/{g}/commands", token=tokens[seat], json={"type": "move", "to": "fire_temple"}, headers=headers
    )
    assert reused.status_code == 422 and reused.json["code"] == "idempotency_key_reused"


@pytest.mark.parametrize(
    "body, content_type, status, code",
    [
        (b"{not json", "application/json", 400, "bad_request"),
        (b'{"type": "end_turn"}', "text/plain", 415, "unsupported_media_type"),
        (json.dumps({"type": 7}).encode(), "application/json", 422, "invalid_request"),
        (json.dumps({"type": "teleport"}).encode(), "application/json", 422, "invalid_request"),
        (json.dumps({"type": "end_turn", "extra": 1}).encode(), "application/json", 422, "invalid_request"),
        (json.dumps({"type": "move"}).encode(), "application/json", 422, "invalid_request"),
        (
            json.dumps({"type": "end_turn", "discards": ["red-1a", "red-1b", "red-1c"]}).encode(),
            "application/json",
            422,
            "invalid_request",
        ),
        (
            json.dumps({"type": "contribute", "building": "mill", "space": 0, "cards": "red-1a"}).encode(),
            "application/json",
            422,
            "invalid_request",
        ),
        (json.dumps([1, 2]).encode(), "application/json", 422, "invalid_request"),
        (b'{"type": "end_turn", "discards": ["' + b"x" * 70000 + b'"]}', "application/json", 413, "too_large"),
    ],
)
def test_bad_input_gets_a_problem_and_changes_nothing(api, game, body, content_type, status, code):
    g, tokens = game
    seat = _turn(api, g)
    before = api.get(f"/games/{g}").json
    r = api.post(
        f"/games/{g}/commands", token=tokens[seat], data=body, headers={"Content-Type": content_type, "If-Match": '"5"'}
    )
    assert r.status_code == status, r.get_data(as_text=True)
    assert r.mimetype == "application/problem+json" and r.json["code"] == code
    assert r.json["detail"] and r.json["type"].endswith(code)
    assert api.get(f"/games/{g}").json == before


def test_field_errors_name_the_field_and_what_is_allowed(api, game):
    g, tokens = game
    r = api.post(
        f"/games/{g}/commands",
        token=tokens[_turn(api, g)],
        json={"type": "move", "to": "atlantis"},
        headers={"If-Match": '"5"'},
    )
    assert r.status_code == 422 and "to" in r.json["errors"] and "Must be one of" in r.json["errors"]["to"][0]


def test_a_missing_version_is_428_and_a_stale_one_names_the_current_version(api, game):
    g, tokens = game
    seat = _turn(api, g)
    r = api.post(f"/games/{g}/commands", token=tokens[seat], json={"type": "end_turn"})
    assert r.status_code == 428
    r = api.post(f"/games/{g}/commands", token=tokens[seat], json={"type": "end_turn", "expected_version": 2})
    assert r.status_code == 409 and r.json["code"] == "stale_version" and r.json["current_version"] == 5
    r = api.post(f"/games/{g}/commands", token=tokens[seat], json={"type": "end_turn"}, headers={"If-Match": '"3"'})
    assert r.status_code == 412 and r.headers["ETag"] == '"5"'


def test_unicode_names_and_bad_creation_requests(api):
    ok = api.post("/games", json={"seats": [{"kind": "human", "name": "Zoë 🐉"}, {"kind": "bot"}]})
    assert ok.status_code == 201
    view = api.get(f"/games/{ok.json['game']}").json
    assert view["seats"][0]["name"] == "Zoë 🐉"
    for body in (
        {"seats": [{"kind": "human"}]},
        {"seats": [{"kind": "human"}, {"kind": "robot"}]},
        {"seats": [{"kind": "human", "name": "x" * 41}, {"kind": "bot"}]},
        {"seats": [{"kind": "human"}, {"kind": "bot"}], "edition": "classic", "expansion": True},
        {"seats": [{"kind": "human"}, {"kind": "bot"}], "layout": "explicit"},
        {"seats": [{"kind": "human"}, {"kind": "bot"}], "setup": {"first_player": 3}},
    ):
        r = api.post("/games", json=body)
        assert r.status_code == 422 and r.mimetype == "application/problem+json", body


def test_unknown_game_is_404(api):
    r = api.get("/games/nope")
    assert r.status_code == 404 and r.json["code"] == "not_found"


def limited_api(**limits):
    from service.app import create_app
    from tests.api.client import CheckedClient

    return CheckedClient(
        create_app({"REDIS_CLIENT": fakeredis.FakeRedis(), "HANDOFF": CallbackHandoff(lambda t: None), **limits})
    )


def test_writes_are_rate_limited_per_address_with_retry_after_and_ratelimit_headers():
    api = limited_api(RATE_LIMIT_WRITES="3 per minute")
    responses = [api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "bot"}]}) for _ in range(5)]
    assert [r.status_code for r in responses] == [201] * 3 + [429] * 2
    assert [r.headers["RateLimit-Remaining"] for r in responses[:3]] == ["2", "1", "0"]
    r = responses[-1]
    assert r.json["code"] == "rate_limited" and r.mimetype == "application/problem+json"
    assert int(r.headers["Retry-After"]) > 0 and r.headers["RateLimit-Limit"] == "3"
    assert api.get("/healthz").status_code == 200  # probes are never limited


def test_rotating_made_up_tokens_does_not_escape_the_address_limit():
    api = limited_api(RATE_LIMIT_WRITES="3 per minute")
    codes = [
        api.post(
            "/games",
            json={"seats": [{"kind": "human"}, {"kind": "bot"}]},
            headers={"Authorization": f"Bearer made-up-{i}"},
        ).status_code
        for i in range(5)
    ]
    assert codes == [201] * 3 + [429] * 2


def test_reads_are_rate_limited_per_valid_token_as_well_as_per_address():
    api = limited_api(RATE_LIMIT_TOKEN_READS="2 per minute", RATE_LIMIT_READS="100 per minute")
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    g, (a, b) = created["game"], [s["token"] for s in created["seats"]]
    assert [api.get(f"/games/{g}", token=a).status_code for _ in range(3)] == [200, 200, 429]
    assert api.get(f"/games/{g}", token=b).status_code == 200  # another seat has its own budget
    assert api.get(f"/games/{g}").status_code == 200  # the address is far from its limit


def test_join_with_a_wrong_invite_or_a_taken_seat(api):
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "open"}]}).json
    g = created["game"]
    assert api.post(f"/games/{g}/seats/1/join", json={"invite": "wrong"}).status_code == 403
    invite = created["seats"][1]["invite"]
    assert api.post(f"/games/{g}/seats/1/join", json={"invite": invite}).status_code == 201
    r = api.post(f"/games/{g}/seats/1/join", json={"invite": invite})
    assert r.status_code == 409 and r.json["code"] == "seat_taken"


def test_listing_my_games_and_my_turn(api, game):
    g, tokens = game
    seat = _turn(api, g)
    mine = api.get("/games?my_turn=true", token=tokens[seat]).json["games"]
    assert [x["game"] for x in mine] == [g] and mine[0]["my_turn"]
    assert api.get("/games?my_turn=true", token=tokens[1 - seat]).json["games"] == []
    assert g in [x["game"] for x in api.get("/games?status=active").json["games"]]
    assert api.get("/games?status=finished").json["games"] == []


def test_huge_versions_are_refused_cleanly(api, game):
    g, tokens = game
    assert api.get(f"/games/{g}/events?after={2**64}").status_code == 422
    assert api.get(f"/games/{g}/stream?after=-1").status_code == 422
    assert api.get(f"/games/{g}/versions/{2**70}").status_code == 404


@pytest.mark.parametrize(
    "path, field",
    [
        ("events?after=abc", "after"),
        ("events?after=-1", "after"),
        ("events?after=1.5", "after"),
        ("events?wait=1e9", "wait"),
        ("events?wait=inf", "wait"),
        ("events?wait=nan", "wait"),
        ("events?wait=-1", "wait"),
        ("events?wait=30.5", "wait"),
        ("events?wait=soon", "wait"),
        ("stream?after=abc", "after"),
    ],
)
def test_bad_feed_parameters_get_a_problem_naming_the_field(api, game, path, field):
    g, _ = game
    r = api.get(f"/games/{g}/{path}")
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    assert field in r.json["errors"], r.json


@pytest.mark.parametrize("header", ["garbage", "-3", "1.0", "99999999999999999999"])
def test_a_garbage_last_event_id_gets_a_problem_naming_the_header(api, game, header):
    g, _ = game
    r = api.get(f"/games/{g}/stream", headers={"Last-Event-ID": header})
    assert r.status_code == 422 and "Last-Event-ID" in r.json["errors"], r.json


def test_an_empty_last_event_id_counts_as_absent(api, game):
    api.app.config["SSE_SECONDS"] = 0.2
    g, _ = game
    text = api.get(f"/games/{g}/stream", headers={"Last-Event-ID": ""}).get_data(as_text=True)
    assert "id: 1\n" in text


def test_a_long_poll_may_wait_the_documented_maximum_but_no_longer(api, game):
    g, _ = game
    from service import live

    assert api.get(f"/games/{g}/events?wait={live.MAX_WAIT:g}&after=0").status_code == 200  # events exist: no wait
    assert api.get(f"/games/{g}/events?wait={live.MAX_WAIT + 0.001}&after=0").status_code == 422


@pytest.mark.parametrize("depth, status", [(100_000, 413), (10_000, 400), (17, 400)])  # over / under the 64 kB limit
def test_deeply_nested_json_gets_a_4xx_problem_and_changes_nothing(api, game, depth, status):
    g, tokens = game
    before = api.get(f"/games/{g}").json["version"]
    for nested in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
        r = api.post(
            f"/games/{g}/commands",
            token=tokens[0],
            data=nested,
            content_type="application/json",
            headers={"If-Match": f'"{before}"'},
        )
        assert r.status_code == status and r.mimetype == "application/problem+json", r.data[:200]
        r = api.post("/games", data=nested, content_type="application/json")
        assert r.status_code == status and r.mimetype == "application/problem+json"
    assert api.get(f"/games/{g}").json["version"] == before


def test_a_10000_character_game_id_gets_a_414_problem(api):
    r = api.get("/games/" + "a" * 10_000)
    assert r.status_code == 414 and r.mimetype == "application/problem+json" and r.json["code"] == "uri_too_long"


def test_a_game_id_the_service_never_makes_is_not_found_without_a_lookup(api):
    r = api.get("/games/not-a-game-id")
    assert r.status_code == 404 and r.mimetype == "application/problem+json"


def test_a_token_of_another_game_gets_the_same_403_as_an_unknown_token(api, game):
    g, tokens = game
    other = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    foreign = api.get(f"/games/{g}/legal", token=other["seats"][0]["token"])
    unknown = api.get(f"/games/{g}/legal", token="x" * 43)
    assert foreign.status_code == unknown.status_code == 403
    assert dict(foreign.json) == dict(unknown.json)


def test_bot_events_carry_no_hash_of_the_bots_view_that_public_data_and_a_guessed_hand_could_match(api):
    import hashlib
    import hmac
    import json as json_module

    from domain import view

    created = api.post(
        "/games", json={"seats": [{"kind": "bot", "level": "greedy"}, {"kind": "human"}], "setup": {"first_player": 0}}
    ).json
    g, token = created["game"], created["seats"][1]["token"]
    assert api.run_workers() == 1
    feed = api.get(f"/games/{g}/events?after=0", token=token).json["events"]
    bot_events = [e for e in feed if e["actor"] == "bot:greedy"]
    assert bot_events
    service = api.app.extensions["bluemoon"].service
    seed = service.state(g).seed
    text = json_module.dumps(feed)
    for event in bot_events:
        version = int(service.store.read(g, after=event["seq"] - 1, until=event["seq"])[0].command.split(":")[2])
        seen = json_module.dumps(view(service.state_at(g, version), 0), sort_keys=True).encode()
        # the guess that used to work: the plain SHA-256 of the bot's true view
        assert hashlib.sha256(seen).hexdigest() not in text
        # what is there is keyed with the seed, which is revealed with the log at the end
        assert event["meta"]["view"] == hmac.new(seed.encode(), seen, hashlib.sha256).hexdigest()


def test_the_address_comes_from_x_forwarded_for_only_behind_the_configured_trusted_proxies():
    body = {"seats": [{"kind": "human"}, {"kind": "bot"}]}

    def codes(api):
        return [
            api.post("/games", json=body, headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code for i in range(3)
        ]

    assert codes(limited_api(RATE_LIMIT_WRITES="1 per minute")) == [201, 429, 429]  # a client cannot pick its address
    assert codes(limited_api(RATE_LIMIT_WRITES="1 per minute", TRUSTED_PROXIES=1)) == [201, 201, 201]  # one per client


def test_the_lobby_comes_a_page_at_a_time_newest_first(api):
    made = [api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json for _ in range(5)]
    seen, after = [], None
    while True:
        page = api.get("/games?limit=2" + (f"&after={after}" if after else "")).json
        assert len(page["games"]) <= 2
        seen += [g["game"] for g in page["games"]]
        if page["next"] is None:
            break
        after = page["next"]
    assert len(seen) == len(set(seen)) and {m["game"] for m in made} <= set(seen)
    created = [api.get(f"/games/{g}").status_code for g in seen]
    assert created == [200] * len(seen)
    tokens = ",".join(m["seats"][0]["token"] for m in made)  # a person's own games page the same way
    first = api.get("/games?limit=3", token=tokens).json
    rest = api.get(f"/games?limit=3&after={first['next']}", token=tokens).json
    listed = [(g["created"], g["game"]) for g in first["games"] + rest["games"]]
    assert sorted(listed, reverse=True) == listed and {g for _, g in listed} == {m["game"] for m in made}
    assert rest["next"] is None


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "after=not-a-cursor", "after=12:abc"])
def test_a_bad_page_request_says_which_field_and_what_is_allowed(api, query):
    answer = api.get(f"/games?{query}")
    assert answer.status_code == 422
    field = query.split("=")[0]
    assert field in str(answer.json["errors"]), answer.json
