"""Sign-in limits from the attacker's side (application/accounts/account_service.py): they count an email per
client address, and count failures only, so that nobody can lock another person out."""

from __future__ import annotations

from unittest import mock

from tests.api.client import CheckedClient
from tests.support.accounts import OWN

ATTACKER, VICTIM = {"REMOTE_ADDR": "198.51.100.7"}, {"REMOTE_ADDR": "203.0.113.9"}


def _ask(api: CheckedClient, email: str, where: dict[str, str]):
    sent: list[str] = []
    with mock.patch("service.routes.account_routes.send_sign_in_link", lambda e, link, lang: sent.append(link)):
        answer = api.post("/auth/email-link", json={"email": email}, environ_base=where)
    return answer, sent


def test_requests_from_one_address_cannot_lock_an_email_out_for_another(api):
    refused = [_ask(api, "victim@example.com", ATTACKER)[0] for _ in range(8)]
    assert [r.status_code for r in refused] == [202] * 5 + [429] * 3  # the attacker's address is limited
    last = refused[-1]
    assert last.json["code"] == "rate_limited" and last.json["limit"] == "SIGN_IN_LINKS_PER_EMAIL"
    assert int(last.headers["Retry-After"]) > 0
    answer, sent = _ask(api, "Victim@Example.com", VICTIM)  # the victim, from their own address
    assert answer.status_code == 202 and len(sent) == 1
    token = sent[0].split("token=", 1)[1].split("&")[0]
    signed_in = api.post("/auth/email-link/use", json={"token": token}, headers=OWN, environ_base=VICTIM)
    assert signed_in.status_code == 200 and signed_in.json["email"] == "victim@example.com"


def test_an_ipv6_client_is_counted_per_64_so_it_cannot_rotate_addresses_past_the_limit(api):
    tries = [_ask(api, "victim@example.com", {"REMOTE_ADDR": f"2001:db8:5:6::{i:x}"})[0] for i in range(7)]
    assert [r.status_code for r in tries] == [202] * 5 + [429] * 2
    assert _ask(api, "victim@example.com", {"REMOTE_ADDR": "2001:db8:5:7::1"})[0].status_code == 202  # another /64


def test_device_codes_that_sign_in_are_not_counted(api):
    from application.accounts.account_service import CODES_PER_ADDRESS

    with mock.patch("service.routes.account_routes.send_sign_in_link", lambda e, link, lang: sent.append(link)):
        sent: list[str] = []
        api.post("/auth/email-link", json={"email": "ada@example.com"})
        token = sent[0].split("token=", 1)[1].split("&")[0]
    api.post("/auth/email-link/use", json={"token": token}, headers=OWN)
    for _ in range(CODES_PER_ADDRESS + 2):  # more good codes than the limit allows wrong ones
        code = api.post("/me/device-code", headers=OWN).json["code"]
        other = CheckedClient(api.app)
        assert other.post("/auth/device-code", json={"code": code}).status_code == 200
    wrong = [CheckedClient(api.app).post("/auth/device-code", json={"code": "ABCD-EFGH"}) for _ in range(21)]
    assert [r.status_code for r in wrong] == [401] * CODES_PER_ADDRESS + [429]
    assert wrong[-1].json["limit"] == "SIGN_IN_CODES_PER_ADDRESS" and int(wrong[-1].headers["Retry-After"]) > 0


def test_every_per_address_limit_counts_an_ipv6_client_per_64():
    from service.ratelimit import counted_address

    assert counted_address("2001:db8:1:2:aaaa::1") == counted_address("2001:db8:1:2:bbbb::2") == "2001:db8:1:2::/64"
    assert counted_address("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert counted_address("::ffff:198.51.100.7") == "198.51.100.7" == counted_address("198.51.100.7")
    assert counted_address(None) == "unknown" and counted_address("not an address") == "not an address"


def test_the_rate_limits_refusal_names_its_setting():
    import fakeredis

    from application.background.handoff import CallbackHandoff
    from service.app import create_app

    api = CheckedClient(
        create_app(
            {
                "REDIS_CLIENT": fakeredis.FakeRedis(),
                "HANDOFF": CallbackHandoff(lambda t: None),
                "RATE_LIMIT_READS": "1/minute",
            }
        )
    )
    answers = [api.get("/games", environ_base={"REMOTE_ADDR": f"2001:db8:9:9::{i}"}) for i in range(2)]
    assert [a.status_code for a in answers] == [200, 429]  # one client: one /64
    assert answers[1].json["limit"] == "RATE_LIMIT_READS" and int(answers[1].headers["Retry-After"]) > 0
