"""What every answer tells a browser it may do with it. Pages (every text/html answer) carry a
Content-Security-Policy that runs only the service's own script files (no inline script or
event handler: an injected ``<script>`` or ``onerror=`` does nothing), loads everything from
the service's own origin, and lets no other site frame them (clickjacking: a framed "Keep
seats" or sign-in button); and a Referrer-Policy that keeps a page's address (a sign-in link's
token is in ``/signin``'s) from other sites. Every answer says ``nosniff``, so no JSON or text
answer is ever run as a script or shown as a page.
"""

from __future__ import annotations

from flask import Flask, Response

#: The pages' policy: only files from this origin; images may also be data: URLs (icons, and
#: Swagger UI's in its stylesheet); no plugins, no <base>, forms post only here, no framing.
#: connect-src 'self' lets the play page open its play socket: CSP 3 matches the origin's own
#: ws:/wss: URL to 'self' (Chromium 71+, Firefox, Safari 16+); a browser that refuses it plays over REST.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: Same-origin requests keep the Referer (the session's fallback Origin check reads it); other sites get none.
REFERRER_POLICY = "same-origin"

#: How openapi.yaml documents them on every text/html answer (service/openapi.py).
PAGE_HEADERS = {
    "Content-Security-Policy": {
        "description": f"`{CONTENT_SECURITY_POLICY}`: the page runs only the service's own script files, "
        "loads only from its origin, and no other site may frame it.",
        "schema": {"type": "string"},
    },
    "Referrer-Policy": {
        "description": f"`{REFERRER_POLICY}`: other sites are never told the page's address.",
        "schema": {"type": "string"},
    },
}


def install(app: Flask) -> None:
    app.after_request(_policy)


def _policy(response: Response) -> Response:
    headers = response.headers
    headers["X-Content-Type-Options"] = "nosniff"
    if response.mimetype == "text/html" and response.content_length:  # a page (an empty 204 or 303 is text/html too)
        # (a page may narrow-extend form-action for itself: the OAuth consent page's form redirects to the app)
        headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        headers["Referrer-Policy"] = REFERRER_POLICY
    return response
