"""Every channel's message goes to the address its URL's check approved: a name re-pointed
between the check and the send (DNS rebinding) does not move a webhook delivery, a Discord or
Slack post, or a Web Push message; and a redirect is not followed. A local receiver; the name's
resolution is scripted."""

from __future__ import annotations

import socket
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest
from py_vapid import Vapid02

from application.outbound.webhooks import check_url
from tests.support.alerts import PushService, browser_keys
from workers import alert_channels, webhook_delivery
from workers.alert_channels import ChannelFailed

NAME = "push.bluemoon.test"


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``NAME`` resolves to 127.0.0.1 once (the check), then to the addresses this list holds
    (127.0.0.2: nothing listens there); other names resolve as usual. Records each answer."""
    real = socket.getaddrinfo
    answers: list[str] = []

    def scripted(host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host != NAME:
            return real(host, port, *args, **kwargs)
        answers.append("127.0.0.1" if not answers else "127.0.0.2")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers[-1], port))]

    monkeypatch.setattr(socket, "getaddrinfo", scripted)
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", NAME)  # a local name may be checked at all
    return answers


def _url(service: PushService) -> str:
    return f"http://{NAME}:{urlsplit(service.endpoint).port}{urlsplit(service.endpoint).path}"


def _push(service: PushService) -> int:
    vapid = Vapid02()
    vapid.generate_keys()
    _, keys = browser_keys()
    return alert_channels.push(
        {"endpoint": _url(service), "keys": keys}, {"game": "g"}, vapid, "mailto:ops@example.com"
    )


def _webhook(service: PushService) -> int:
    """As workers/webhook_delivery.attempt sends: the URL checked, then posted to its target."""
    status = webhook_delivery.post(check_url(_url(service)), "{}", {"Content-Type": "application/json"})
    if status >= 300:
        raise ChannelFailed(f"answered {status}")
    return status


def _discord(service: PushService) -> int:
    return alert_channels.post_json("discord.url", _url(service), {"content": "your turn"})


def _slack(service: PushService) -> int:
    return alert_channels.post_json("slack.url", _url(service), {"text": "your turn"})


CHANNELS: dict[str, Callable[[PushService], int]] = {
    "push": _push,
    "webhook": _webhook,
    "discord": _discord,
    "slack": _slack,
}


@pytest.mark.parametrize("channel", sorted(CHANNELS))
def test_the_message_goes_to_the_address_checked_though_the_name_moved_since(resolver: list[str], channel) -> None:
    service = PushService(201)
    status = CHANNELS[channel](service)
    assert status == 201 and len(service.received) == 1
    assert service.received[0]["headers"]["host"].startswith(NAME)  # the name travels, the address is pinned
    # the fault happened: only the check resolved the name, so a second lookup would have moved the send
    assert resolver == ["127.0.0.1"]


@pytest.mark.parametrize("channel", sorted(CHANNELS))
def test_a_redirect_is_not_followed(resolver: list[str], channel) -> None:
    elsewhere = PushService(201)
    service = PushService(307)
    service.location = elsewhere.endpoint
    with pytest.raises(ChannelFailed):
        CHANNELS[channel](service)
    assert len(service.received) == 1 and elsewhere.received == []
