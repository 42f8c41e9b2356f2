"""A Web Push message goes to the address the endpoint's check approved: a name re-pointed
between the check and the send (DNS rebinding) does not move it, and a push service's redirect
is not followed. A local push service; the name's resolution is scripted."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import pytest
from py_vapid import Vapid02

from tests.api.test_alerts import browser_keys
from tests.integration.test_alert_channels import PushService
from workers import alert_channels
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


def _send(service: PushService) -> int:
    port = urlsplit(service.endpoint).port
    endpoint = f"http://{NAME}:{port}{urlsplit(service.endpoint).path}"
    vapid = Vapid02()
    vapid.generate_keys()
    _, keys = browser_keys()
    return alert_channels.push({"endpoint": endpoint, "keys": keys}, {"game": "g"}, vapid, "mailto:ops@example.com")


def test_the_push_goes_to_the_address_checked_though_the_name_moved_since(resolver: list[str]) -> None:
    service = PushService(201)
    status = _send(service)
    assert status == 201 and len(service.received) == 1
    assert service.received[0]["headers"]["host"].startswith(NAME)  # the name travels, the address is pinned
    # the fault happened: only the check resolved the name, so a second lookup would have moved the send
    assert resolver == ["127.0.0.1"]


def test_a_redirect_from_the_push_service_is_not_followed(resolver: list[str]) -> None:
    elsewhere = PushService(201)
    service = PushService(307)
    service.location = elsewhere.endpoint
    with pytest.raises(ChannelFailed):
        _send(service)
    assert len(service.received) == 1 and elsewhere.received == []
