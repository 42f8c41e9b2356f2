"""Sending one alert on one channel: SMTP mail, Web Push (pywebpush: RFC 8291 encryption and
VAPID signatures), and a Discord or Slack incoming webhook. Each returns None when the message
was accepted, or raises ``ChannelFailed`` saying why (``gone``: the address will never work
again, so a push subscription answered 404 or 410 is dropped)."""

from __future__ import annotations

import http.client
import json
import socket
from email import policy
from email.message import EmailMessage
from typing import Any

import requests
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.util.connection import create_connection

from application.accounts.shown_text import shown
from application.accounts.sign_in_mail import send
from application.alerts.channel_settings import check_channel_url
from application.outbound.limits import ANSWER_TIMEOUT, CONNECT_TIMEOUT
from application.outbound.webhooks import Target
from application.refusals import ServiceError
from application.settings import MAIL_FROM
from workers.webhook_delivery import post, system_trust

TIMEOUT = (
    CONNECT_TIMEOUT,
    ANSWER_TIMEOUT,
)  #: a push service's seconds to connect, and to answer (Discord and Slack: webhook_delivery.post's)
PUSH_TTL = 24 * 3600  #: a push message waits this long at the push service for an offline device


#: Headers up to RFC 5322's 998 characters stay one line: the default policy would fold a long
#: List-Unsubscribe into encoded words, which mail programs cannot use as a link.
HEADERS_AS_THEY_ARE = policy.default.clone(max_line_length=998)


class ChannelFailed(Exception):
    def __init__(self, error: str, gone: bool = False, status: int | None = None) -> None:
        super().__init__(error)
        self.error, self.gone, self.status = error, gone, status


def mail(to: str, subject: str, text_body: str, html_body: str, message_id: str, unsubscribe: str) -> None:
    """One mail with a plain-text and an HTML part and one-click unsubscribe (RFC 8058)."""
    message = EmailMessage(policy=HEADERS_AS_THEY_ARE)
    message["From"] = MAIL_FROM.read()
    message["To"] = to
    message["Subject"] = shown(subject)  # a name in it may predate the name check: no line break
    message["Message-ID"] = f"<{message_id}@bluemoon>"  # the same on a retry: a receiver may drop the copy
    message["List-Unsubscribe"] = f"<{unsubscribe}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(text_body)
    message.add_alternative(html_body, subtype="html")
    try:
        send(message)
    except OSError as error:
        raise ChannelFailed(f"{type(error).__name__}: {error}") from None


def post_json(field: str, url: str, body: dict[str, Any]) -> int:
    """POST a JSON message to a channel's incoming webhook (checked again now: DNS may have moved)."""
    try:
        status = post(
            check_channel_url(field, url),
            json.dumps(body),
            {"Content-Type": "application/json", "User-Agent": "bluemoon-alerts"},
        )
    except ServiceError as refused:
        raise ChannelFailed(f"refused: {refused.detail}", gone=True) from None
    except (OSError, http.client.HTTPException) as failed:
        raise ChannelFailed(f"{type(failed).__name__}: {failed}") from None
    if not 200 <= status < 300:
        raise ChannelFailed(f"answered {status}", gone=status in (404, 410), status=status)
    return status


def push(subscription: dict[str, Any], body: dict[str, Any], key: Vapid02, contact: str) -> int:
    """Encrypt ``body`` for the subscription and send it to its push service, signed with VAPID."""
    try:
        with pinned_session(check_channel_url("endpoint", subscription["endpoint"])) as session:
            response = webpush(
                {"endpoint": subscription["endpoint"], "keys": subscription["keys"]},
                data=json.dumps(body),
                vapid_private_key=key,
                vapid_claims={"sub": contact},
                timeout=TIMEOUT,
                ttl=PUSH_TTL,
                requests_session=session,
            )
    except ServiceError as refused:
        raise ChannelFailed(f"refused: {refused.detail}", gone=True) from None
    except WebPushException as failed:
        status = failed.response.status_code if failed.response is not None else None
        raise ChannelFailed(
            f"answered {status}" if status else str(failed), gone=status in (404, 410), status=status
        ) from None
    except OSError as failed:  # requests' errors (connection, timeout, a redirect) are OSErrors
        raise ChannelFailed(f"{type(failed).__name__}: {failed}") from None
    return int(getattr(response, "status_code", 201))


def pinned_session(target: Target) -> requests.Session:
    """A session that connects only to the address ``check_url`` approved, whatever the name
    resolves to a moment later (DNS rebinding), and follows no redirect (a push service's
    redirect could name any address). TLS still checks the certificate against the URL's host,
    trusting the authorities Discord and Slack posts trust (``_SystemTrust``)."""
    adapter = _SystemTrust(max_retries=0)
    adapter.poolmanager.pool_classes_by_scheme = {
        "http": type("PinnedPool", (HTTPConnectionPool,), {"ConnectionCls": _pinned(HTTPConnection, target.address)}),
        "https": type(
            "PinnedTLSPool", (HTTPSConnectionPool,), {"ConnectionCls": _pinned(HTTPSConnection, target.address)}
        ),
    }
    session = requests.Session()
    session.trust_env = False  # no proxy from the environment: it would connect in our stead
    session.max_redirects = 0
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class _SystemTrust(HTTPAdapter):
    """Checks certificates against the system's authorities and ``SSL_CERT_FILE``'s (as
    ``ssl.create_default_context`` loads them, like the Discord and Slack posts), not requests'
    own bundle (certifi), which knows no private CA an operator names."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs, ssl_context=system_trust())

    def cert_verify(self, conn: Any, url: str, verify: Any, cert: Any) -> None:
        conn.cert_reqs = "CERT_REQUIRED"  # always: the context's authorities, never certifi's path


def _pinned(connection: type[HTTPConnection], address: str) -> type[HTTPConnection]:
    class Pinned(connection):  # type: ignore[valid-type,misc]
        def _new_conn(self) -> socket.socket:
            """urllib3's own, but to ``address``: its host stays the URL's (Host header, SNI)."""
            return create_connection(
                (address, self.port),
                self.timeout,
                source_address=self.source_address,
                socket_options=self.socket_options,
            )

    return Pinned
