"""Sign-in links by email: through SMTP when ``SMTP_URL`` is set (``smtp://host:port``, or
``smtps://`` for TLS from the start; ``user:password@`` when the server wants a login), from
``MAIL_FROM``. Without SMTP settings (the embedded default) the link is written to the server's
log, and the sign-in answer says so."""

from __future__ import annotations

import logging
import smtplib
import socket
import ssl
from email.message import EmailMessage
from typing import Any
from urllib.parse import unquote, urlsplit

from application.outbound.limits import CONNECT_TIMEOUT, MAIL_TIMEOUT
from application.settings import MAIL_FROM, SMTP_URL
from application.words import say

log = logging.getLogger("bluemoon.mail")


class _SMTP(smtplib.SMTP):
    """SMTP that gives up connecting after CONNECT_TIMEOUT (each later step has MAIL_TIMEOUT)."""

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        sock = socket.create_connection((host, port), CONNECT_TIMEOUT, self.source_address)
        sock.settimeout(timeout)
        return sock


class _SMTPS(smtplib.SMTP_SSL, _SMTP):
    """The same with TLS from the start (SMTP_SSL wraps the socket _SMTP connected)."""


def delivery() -> str:
    """How links travel here: ``email``, or ``server log`` without SMTP settings."""
    return "email" if SMTP_URL.read() else "server log"


def send_sign_in_link(email: str, link: str, language: str = "en") -> None:
    """Send the link (worded in ``language``), or log it when there is no SMTP server to send it
    through. A failed send is logged, not raised: the person's answer is the same either way
    (no enumeration)."""
    url = SMTP_URL.read()
    if not url:
        log.warning("sign-in link for %s (no SMTP_URL set, so it is logged here): %s", email, link)
        return
    message = EmailMessage()
    message["From"] = MAIL_FROM.read()
    message["To"] = email
    message["Subject"] = say(language, "signin.subject")
    message.set_content(say(language, "signin.mail", link=link))
    try:
        send(message)
    except OSError as error:  # smtplib's errors are OSErrors too
        log.error("the sign-in link for %s could not be sent through %s: %s", email, urlsplit(url).hostname, error)


def send(message: EmailMessage) -> None:
    """Send through SMTP_URL; raises OSError (smtplib's errors included) when it cannot. Without
    SMTP settings the message is written to the log."""
    url = SMTP_URL.read()
    if not url:
        log.warning("mail to %s (no SMTP_URL set, so it is logged here): %s", message["To"], message["Subject"])
        return
    parts = urlsplit(url)
    secure = parts.scheme == "smtps"
    smtp_class = _SMTPS if secure else _SMTP
    # smtps checks the server's certificate as every channel does (smtplib's default checks none)
    tls: dict[str, Any] = {"context": ssl.create_default_context()} if secure else {}
    with smtp_class(
        parts.hostname or "localhost", parts.port or (465 if secure else 25), timeout=MAIL_TIMEOUT, **tls
    ) as smtp:
        if parts.username:
            smtp.login(unquote(parts.username), unquote(parts.password or ""))
        smtp.send_message(message)
