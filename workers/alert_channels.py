"""Sending one alert on one channel: SMTP mail, Web Push (pywebpush: RFC 8291 encryption and
VAPID signatures), and a Discord or Slack incoming webhook. Each returns None when the message
was accepted, or raises ``ChannelFailed`` saying why (``gone``: the address will never work
again, so a push subscription answered 404 or 410 is dropped)."""

from __future__ import annotations

import http.client
import json
import os
from email import policy
from email.message import EmailMessage
from typing import Any

from py_vapid import Vapid02
from pywebpush import WebPushException, webpush

from application.alert_settings import check_channel_url
from application.mail import send
from application.refusals import ServiceError
from application.webhook_subscriptions import check_url
from workers.webhook_delivery import post

TIMEOUT = 5.0  #: seconds a push service may take to answer
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
    message["From"] = os.environ.get("MAIL_FROM", "Blue Moon City <no-reply@localhost>")
    message["To"] = to
    message["Subject"] = subject
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
        check_channel_url(field, url)
        status = post(
            check_url(url), json.dumps(body), {"Content-Type": "application/json", "User-Agent": "bluemoon-alerts"}
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
        check_channel_url("endpoint", subscription["endpoint"])
        response = webpush(
            {"endpoint": subscription["endpoint"], "keys": subscription["keys"]},
            data=json.dumps(body),
            vapid_private_key=key,
            vapid_claims={"sub": contact},
            timeout=TIMEOUT,
            ttl=PUSH_TTL,
        )
    except ServiceError as refused:
        raise ChannelFailed(f"refused: {refused.detail}", gone=True) from None
    except WebPushException as failed:
        status = failed.response.status_code if failed.response is not None else None
        raise ChannelFailed(
            f"answered {status}" if status else str(failed), gone=status in (404, 410), status=status
        ) from None
    except OSError as failed:  # requests' connection errors and timeouts are OSErrors
        raise ChannelFailed(f"{type(failed).__name__}: {failed}") from None
    return int(getattr(response, "status_code", 201))
