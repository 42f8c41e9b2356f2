"""Where people reach the service, from configuration alone: ``PUBLIC_URL``'s origin, else the
service's own loopback origin (``http://localhost:<port>``, or ``127.0.0.1`` / ``[::1]`` on the
port the server listens on, when the request was addressed to one of them).

Sign-in and device-code links, the passkeys' relying party, the session cookie's name and
``Secure`` flag, and the origin that signing-in and cookie-authenticated requests must come from
are all taken from here, never from a request's Host header: a request sent with
``Host: evil.example`` must not make the service mail a victim a valid link to evil.example.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import request

from application.settings import PUBLIC_URL

LOOPBACK = ("localhost", "127.0.0.1", "[::1]")  #: the hosts a local run answers for, localhost first
COOKIE = "bm_session"  #: the page's session cookie on http (a local run)
HOST_COOKIE = "__Host-bm_session"  #: on https: a sibling subdomain cannot set or shadow a __Host- cookie


def public_origin() -> str | None:
    """The origin people reach the service at (``PUBLIC_URL``), when it is configured."""
    return origin_of(PUBLIC_URL.read())


def origin_of(url: str | None) -> str | None:
    """``scheme://host[:port]`` of ``url``, lower-cased; None for anything that has no origin."""
    if not url:
        return None
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.scheme and parts.netloc else None


def own_origin() -> str:
    """The service's own origin: ``PUBLIC_URL``'s; without it, the loopback origin of the port
    the server listens on (the WSGI server's ``SERVER_PORT``, its socket's, not the Host
    header's): the one the request was addressed to when that is a loopback name, else
    ``http://localhost:<port>``."""
    configured = public_origin()
    if configured:
        return configured
    port = str(request.environ.get("SERVER_PORT") or "80")
    suffix = "" if port == "80" else f":{port}"
    asked = request.host.lower()
    host = next((name for name in LOOPBACK if asked == name + suffix), LOOPBACK[0])
    return f"http://{host}{suffix}"


def secure() -> bool:
    """Whether people reach the service over https (``PUBLIC_URL``): the cookie is then Secure."""
    return (public_origin() or "").startswith("https://")


def session_cookie() -> str:
    """The session cookie's name: ``__Host-``-prefixed on https (Secure, Path=/, no Domain)."""
    return HOST_COOKIE if secure() else COOKIE
