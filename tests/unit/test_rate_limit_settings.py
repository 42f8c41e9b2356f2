"""How the rate limits are set (service/ratelimit.py): the forms a limit is written in, and
an operator's environment under what the app is given."""

from __future__ import annotations

import fakeredis
import pytest

from service.ratelimit import LIMITS, Limit, RateLimits


@pytest.mark.parametrize(
    ("text", "amount", "seconds"),
    [("300 per minute", 300, 60), ("10/hour", 10, 3600), ("5 per 10 seconds", 5, 10), (" 1 per day ", 1, 86400)],
)
def test_a_limit_is_read_in_its_written_forms(text, amount, seconds):
    assert Limit.parse("writes-by-address", text) == Limit("writes-by-address", amount, seconds)


@pytest.mark.parametrize("text", ["300", "per minute", "300 per fortnight", "-1 per minute", "300 per minute!"])
def test_a_limit_that_is_not_one_is_refused_at_start_with_its_name(text):
    with pytest.raises(ValueError, match="writes-by-address"):
        Limit.parse("writes-by-address", text)


def test_the_environment_sets_a_limit_the_app_is_not_given(monkeypatch):
    monkeypatch.setenv("RATE_LIMIT_WRITES", "7 per minute")
    monkeypatch.setenv("RATE_LIMIT_READS", "9 per minute")
    limits = RateLimits(fakeredis.FakeRedis(), {"RATE_LIMIT_READS": "3 per second"})
    assert limits.by_address == {"read": Limit("reads-by-address", 3, 1), "write": Limit("writes-by-address", 7, 60)}
    assert limits.by_token["write"] == Limit.parse("writes-by-token", LIMITS["RATE_LIMIT_TOKEN_WRITES"])
