"""The rate limits on a real Redis (service/ratelimit.py, application/counters.py): counted in
one pipeline of plain commands, windows that end, a counter left without an expiry given one,
and a Redis that cannot count letting requests through."""

from __future__ import annotations

import time
import uuid

import redis

from application import counters
from application.background.handoff import CallbackHandoff
from service.app import create_app
from tests.api.client import CheckedClient

NEW_GAME = {"seats": [{"kind": "human"}, {"kind": "bot"}]}


def _limited(redis_url: str, **limits: str) -> CheckedClient:
    """The service with its limits on, behind one trusted proxy, so that each test is its own
    client address (the counters of one Redis outlive a test)."""
    client = redis.Redis.from_url(redis_url)
    config = {"REDIS_CLIENT": client, "HANDOFF": CallbackHandoff(lambda t: None), "TRUSTED_PROXIES": 1}
    return CheckedClient(create_app({**config, **limits}))


def _address() -> str:
    """An IPv4 address of its own (an IPv6 one would share its /64 with other tests')."""
    n = uuid.uuid4().int
    return f"10.{n % 256}.{n // 256 % 256}.{n // 65536 % 256}"


def test_writes_past_the_limit_get_429_with_retry_after_and_the_window_in_redis(redis_url):
    api, me = _limited(redis_url, RATE_LIMIT_WRITES="3 per minute"), {"X-Forwarded-For": _address()}
    answers = [api.post("/games", json=NEW_GAME, headers=me) for _ in range(4)]
    assert [r.status_code for r in answers] == [201, 201, 201, 429]
    assert [r.headers["RateLimit-Remaining"] for r in answers] == ["2", "1", "0", "0"]
    refused = answers[-1]
    assert refused.json["code"] == "rate_limited" and "from this address" in refused.json["detail"]
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    assert abs(int(refused.headers["RateLimit-Reset"]) - (time.time() + int(refused.headers["Retry-After"]))) <= 2
    client = redis.Redis.from_url(redis_url)
    (key,) = client.keys(f"ratelimit:writes-by-address:60:addr:{me['X-Forwarded-For']}")
    assert client.get(key) == b"4" and 0 < client.pttl(key) <= 60_000


def test_a_request_counts_its_limits_with_three_commands_each_and_reads_no_window_again(redis_url):
    """flask-limiter, before, counted each limit and read each window again for the headers."""
    api, me = _limited(redis_url), {"X-Forwarded-For": _address()}
    created = api.post("/games", json=NEW_GAME, headers=me).json
    game, token = created["game"], created["seats"][0]["token"]
    api.get(f"/games/{game}", token=token, headers=me)  # the token is known from here on
    client = redis.Redis.from_url(redis_url)
    client.config_resetstat()
    assert api.get(f"/games/{game}", token=token, headers=me).status_code == 200
    calls = {name.removeprefix("cmdstat_"): stat["calls"] for name, stat in client.info("commandstats").items()}
    # two limits (the address's reads, the token's reads): SET NX, INCR, PTTL each; the rest is the game's read
    assert calls["set"] == 2 and calls["incr"] == 2 and calls["pttl"] == 2
    assert not {"ttl", "get", "expire", "incrby"} & set(calls), calls


def test_a_window_ends_and_a_new_one_starts(redis_url):
    api, me = _limited(redis_url, RATE_LIMIT_WRITES="1 per second"), {"X-Forwarded-For": _address()}
    assert [api.post("/games", json=NEW_GAME, headers=me).status_code for _ in range(2)] == [201, 429]
    time.sleep(1.1)
    assert api.post("/games", json=NEW_GAME, headers=me).status_code == 201


def test_a_counter_left_without_an_expiry_is_given_one(redis_url):
    """A window that ends between SET NX and INCR leaves INCR to make a counter with no expiry,
    which would refuse its client for good; the next count gives it its window."""
    client = redis.Redis.from_url(redis_url)
    key = f"ratelimit-test:{uuid.uuid4().hex}"
    client.set(key, 5)  # as INCR leaves it: no expiry
    assert client.pttl(key) == -1
    (found,) = counters.count(client, [(key, 60)])
    assert found.total == 6 and 59_000 < found.left_ms <= 60_000
    assert 0 < client.pttl(key) <= 60_000

    api, me = _limited(redis_url, RATE_LIMIT_WRITES="3 per minute"), {"X-Forwarded-For": _address()}
    stuck = f"ratelimit:writes-by-address:60:addr:{me['X-Forwarded-For']}"
    client.set(stuck, 99)
    refused = api.post("/games", json=NEW_GAME, headers=me)
    assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= 60
    assert 0 < client.pttl(stuck) <= 60_000  # it will end


def test_a_redis_that_cannot_count_lets_the_request_through(redis_url, monkeypatch):
    api, me = _limited(redis_url, RATE_LIMIT_WRITES="1 per minute"), {"X-Forwarded-For": _address()}
    failed = []

    def unreachable(client, limits):
        failed.append(limits)
        raise redis.ConnectionError("the limits' Redis is gone")

    monkeypatch.setattr(counters, "count", unreachable)
    answers = [api.post("/games", json=NEW_GAME, headers=me) for _ in range(3)]
    assert len(failed) == 6  # each request tried to count its limits, then its game quotas, and could not
    assert [r.status_code for r in answers] == [201] * 3 and "RateLimit-Limit" not in answers[0].headers


def test_a_personal_token_is_never_looked_up_as_a_seat_token(redis_url):
    api, me = _limited(redis_url), {"X-Forwarded-For": _address()}
    client = redis.Redis.from_url(redis_url)
    client.config_resetstat()
    api.get("/games", headers={**me, "Authorization": "Bearer bmp_not-a-seat-token"})
    calls = {name.removeprefix("cmdstat_"): stat["calls"] for name, stat in client.info("commandstats").items()}
    # the address only; one GET, the service's own lookup of the personal token (the limiter
    # looked it up as a seat token too, before)
    assert calls["incr"] == 1 and calls["get"] == 1
