"""A deprecated operation says so in every answer it declares: ``Deprecation`` (RFC 9745: when it
was deprecated, a structured-field date ``@<seconds since the epoch>``), ``Sunset`` (RFC 8594:
when it may stop answering, an HTTP-date) and ``Link: </changelog>; rel="deprecation"`` (where
the change is explained: CHANGELOG.md, served at /changelog). A client learns of it from the
answers it already reads, not only from openapi.yaml's ``deprecated: true``.

An operation is deprecated in its one declaration (``Operation(..., deprecated=Deprecated(...))``,
service/operation.py); service/openapi.py documents the three headers on its answers, written
once under ``components/headers``. How long a deprecated operation is kept: docs/versioning.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

NOTICE = timedelta(days=180)  #: the least time between a deprecation and its sunset (docs/versioning.md)
CHANGELOG_PATH = "/changelog"  #: where the service serves CHANGELOG.md (service/routes/meta_routes.py)
#: The documented headers, by component name: (header, definition). The dates are each
#: operation's own, so they are in its description; the definitions are shared.
HEADERS: dict[str, tuple[str, dict[str, Any]]] = {
    "Deprecation": (
        "Deprecation",
        {
            "description": "This operation is deprecated (RFC 9745): since when, as a structured-field date, "
            "`@` and seconds since the Unix epoch (`@1795737600`). It still works until its Sunset.",
            "schema": {"type": "string", "pattern": r"^@-?\d+$"},
        },
    ),
    "Sunset": (
        "Sunset",
        {
            "description": "When this deprecated operation may stop answering (RFC 8594), an HTTP-date "
            "(`Sun, 30 May 2027 00:00:00 GMT`).",
            "schema": {"type": "string"},
        },
    ),
    "DeprecationLink": (
        "Link",
        {
            "description": f'Where the deprecation is explained: `<{CHANGELOG_PATH}>; rel="deprecation"; '
            'type="text/markdown"` (the changelog, which names what to use instead).',
            "schema": {"type": "string"},
        },
    ),
}


@dataclass(frozen=True)
class Deprecated:
    """An operation deprecated on ``since`` that keeps answering until ``sunset`` (both UTC, at
    least ``NOTICE`` apart); ``instead`` says what a client should use, in its description."""

    since: datetime
    sunset: datetime
    instead: str

    def __post_init__(self) -> None:
        if self.since.tzinfo is None or self.sunset.tzinfo is None:
            raise ValueError("a deprecation's dates are UTC datetimes")
        if self.sunset - self.since < NOTICE:
            raise ValueError(f"a sunset comes at least {NOTICE.days} days after the deprecation")

    def headers(self) -> dict[str, str]:
        """The three headers, as every declared answer of the operation carries them."""
        return {
            "Deprecation": f"@{int(self.since.timestamp())}",
            "Sunset": format_datetime(self.sunset.astimezone(UTC), usegmt=True),
            "Link": f'<{CHANGELOG_PATH}>; rel="deprecation"; type="text/markdown"',
        }

    def text(self) -> str:
        """What the operation's description says of it."""
        return (
            f"**Deprecated** since {self.since:%Y-%m-%d}; it answers until {self.sunset:%Y-%m-%d} (Sunset), "
            f"then may be removed in a major version. {self.instead}"
        )


def documented(responses: dict[str, dict[str, Any]], declared: set[str]) -> None:
    """Document the three headers on each of ``declared`` (status codes) among ``responses``."""
    for status in declared:
        headers = responses[status].setdefault("headers", {})
        headers.update({header: dict(definition) for header, definition in HEADERS.values()})
