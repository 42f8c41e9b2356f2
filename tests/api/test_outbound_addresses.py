"""From the attacker's side: a URL the service will connect to (a webhook, a push endpoint, a
Discord or Slack channel) whose name resolves to 127.0.0.1 hidden in an IPv6 address, that names
a port other than the web's, or whose name is re-pointed at a private address after it was
checked. Each is refused by the field's name, before any connection (fakeredis; the names'
resolution is scripted)."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from py_vapid import Vapid02

from application.outbound.addresses import embedded_ipv4, why_not_public
from events import keys
from events.outbox import Outbox
from tests.support.accounts import personal_token
from tests.support.alerts import browser_keys
from tests.support.games import TWO_HUMANS_SEAT_0_FIRST, game_and_tokens
from workers import alert_channels, webhook_delivery
from workers.alert_channels import ChannelFailed

EVIL = "evil.example"
PUBLIC = "93.184.216.34"  #: a public address (nothing is sent to it: connections are recorded)

#: 127.0.0.1 inside IPv6: mapped, compatible, NAT64 (well-known and local-use), 6to4, Teredo
LOOPBACK_IN_IPV6 = {
    "IPv4-mapped": "::ffff:127.0.0.1",
    "IPv4-compatible": "::127.0.0.1",
    "NAT64": "64:ff9b::7f00:1",
    "local-use NAT64": "64:ff9b:1:7f00:1::",
    "6to4": "2002:7f00:1::1",
    "Teredo": "2001:0:4136:e378:8000:63bf:80ff:fffe",  # client 127.0.0.1 (bits inverted)
}


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """``EVIL`` resolves to what the returned dict holds under ``"now"``, an address to itself;
    connections are recorded
    and refused, so none leaves the machine."""
    answer = {"now": PUBLIC}
    connected: list = []

    def scripted(host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        address = host if host != EVIL else answer["now"]  # an address stands for itself
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    def refuse(address, *args, **kwargs):  # type: ignore[no-untyped-def]
        connected.append(address)
        raise ConnectionRefusedError("no connection leaves a test")

    monkeypatch.setattr(socket, "getaddrinfo", scripted)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.delenv("WEBHOOK_ALLOW_HOSTS", raising=False)
    answer["connected"] = connected  # type: ignore[assignment]
    return answer


def _seat(api) -> tuple[str, str]:
    game, tokens = game_and_tokens(api, TWO_HUMANS_SEAT_0_FIRST)
    return game, tokens[0]


def _webhook(api, url: str):
    game, token = _seat(api)
    return api.post(f"/games/{game}/webhooks", token=token, json={"url": url, "events": ["event"]})


def _push(api, url: str):
    token = personal_token(api, "ada@example.com")
    return api.post("/me/push-subscriptions", token=token, json={"endpoint": url, "keys": browser_keys()[1]})


def _discord(api, url: str):
    token = personal_token(api, "ada@example.com")
    return api.patch("/me/alerts", token=token, json={"discord": {"url": url}})


def _slack(api, url: str):
    token = personal_token(api, "ada@example.com")
    return api.patch("/me/alerts", token=token, json={"slack": {"url": url}})


CHANNELS = {"url": _webhook, "endpoint": _push, "discord.url": _discord, "slack.url": _slack}


def _refused(answer, field: str, codes: tuple[str, ...] = ("unsafe_webhook_url",)) -> str:
    """The field's refusal (the schema's URL check may refuse a URL before the address check)."""
    assert answer.status_code == 422, answer.json
    assert answer.json["code"] in codes and field in answer.json["errors"], answer.json
    return answer.json["errors"][field][0]


@pytest.mark.parametrize("form", sorted(LOOPBACK_IN_IPV6))
@pytest.mark.parametrize("field", sorted(CHANNELS))
def test_a_name_resolving_to_loopback_inside_ipv6_is_refused(api, dns, field, form):
    dns["now"] = LOOPBACK_IN_IPV6[form]
    detail = _refused(CHANNELS[field](api, f"https://{EVIL}/hook"), field)
    assert EVIL in detail
    assert dns["connected"] == []


@pytest.mark.parametrize("form", sorted(LOOPBACK_IN_IPV6))
def test_loopback_inside_ipv6_written_as_the_urls_host_is_refused(api, dns, form):
    _refused(
        _webhook(api, f"https://[{LOOPBACK_IN_IPV6[form]}]/hook"), "url", ("unsafe_webhook_url", "invalid_request")
    )


def test_a_public_address_inside_ipv6_is_still_allowed(api, dns):
    dns["now"] = "64:ff9b::5db8:d822"  # NAT64 of 93.184.216.34
    assert _webhook(api, f"https://{EVIL}/hook").status_code == 201


@pytest.mark.parametrize("field", sorted(CHANNELS))
@pytest.mark.parametrize("port", [22, 6379, 8443, 80])
def test_a_port_other_than_the_webs_is_refused(api, dns, field, port):
    detail = _refused(CHANNELS[field](api, f"https://{EVIL}:{port}/hook"), field)
    assert f"port {port}" in detail


def test_http_takes_port_80_only(api, dns):
    assert _webhook(api, f"http://{EVIL}/hook").status_code == 201
    assert _webhook(api, f"http://{EVIL}:80/hook").status_code == 201
    _refused(_webhook(api, f"http://{EVIL}:443/hook"), "url")
    _refused(_webhook(api, f"http://{EVIL}:8080/hook"), "url")


@pytest.mark.parametrize("url", ["https://evil.example:99999/", "https://evil.example:x/", "https://[::1/"])
def test_a_url_that_does_not_parse_is_refused_not_a_500(api, dns, url):
    _refused(_webhook(api, url), "url", ("unsafe_webhook_url", "invalid_request"))


def test_a_name_re_pointed_at_loopback_after_its_check_gets_no_delivery(api, dns):
    """DNS rebinding: public when the webhook was made, loopback when a delivery is due."""
    game, token = _seat(api)
    made = api.post(f"/games/{game}/webhooks", token=token, json={"url": f"https://{EVIL}/hook", "events": ["event"]})
    assert made.status_code == 201
    version = api.get(f"/games/{game}", token=token).json["version"]
    assert api.post(f"/games/{game}/commands", token=token, json={"type": "end_turn", "expected_version": version})
    client = api.app.extensions["bluemoon"].store.client
    payloads = client.hgetall(keys.outbox(keys.shard(game))[0])
    name, payload = next((n.decode(), p.decode()) for n, p in payloads.items() if n.startswith(f"wh:{game}:".encode()))
    dns["now"] = "::ffff:127.0.0.1"
    assert webhook_delivery.attempt(client, Outbox(client), name, payload) == "retrying"
    log = api.get(f"/games/{game}/webhooks/{made.json['id']}/deliveries", token=token).json["deliveries"]
    assert log[0]["error"].startswith("refused: ") and "127.0.0.1" in log[0]["error"]
    assert dns["connected"] == []  # the re-pointed name was never connected to


def test_the_unwrapping_finds_the_ipv4_each_form_carries():
    for form, address in LOOPBACK_IN_IPV6.items():
        if form == "local-use NAT64":
            assert "local-use NAT64" in (why_not_public(address) or "")
            continue
        assert ipaddress.IPv4Address("127.0.0.1") in embedded_ipv4(ipaddress.IPv6Address(address)), form
        assert why_not_public(address), form
    assert embedded_ipv4(ipaddress.IPv6Address("2606:4700::1111")) == []
    assert why_not_public("2606:4700::1111") is None and why_not_public(PUBLIC) is None


@pytest.mark.parametrize("channel", ["discord.url", "slack.url", "endpoint"])
def test_a_channel_re_pointed_at_loopback_after_its_check_is_not_sent_to(api, dns, channel):
    """DNS rebinding on the alert channels: public when saved, loopback inside IPv6 at the send."""
    url = f"https://{EVIL}/hook"
    assert CHANNELS[channel](api, url).status_code in (200, 201)
    dns["now"] = "64:ff9b::7f00:1"
    with pytest.raises(ChannelFailed) as failed:
        if channel == "endpoint":
            vapid = Vapid02()
            vapid.generate_keys()
            alert_channels.push({"endpoint": url, "keys": browser_keys()[1]}, {}, vapid, "mailto:ops@example.com")
        else:
            alert_channels.post_json(channel, url, {"text": "your turn"})
    assert failed.value.error.startswith("refused: ") and "127.0.0.1" in failed.value.error
    assert dns["connected"] == []
