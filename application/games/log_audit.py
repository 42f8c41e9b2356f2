"""Audit a published log (``GET /games/{id}/log``'s document): the API's ``/audit`` and the
``bluemoon-audit`` command run exactly this."""

from __future__ import annotations

from typing import Any

from application.games.codec import command_from_json
from domain.audit import Check, Move, audit, explicit_parts
from events.serialization import decode


def moves(events: list[dict[str, Any]]) -> list[Move]:
    """The log's events grouped by the command that caused them (``meta.command``, recorded
    with each event, and ``meta.version``, the version it was decided against); the opening
    events, which no command caused, are the setup."""
    found: list[Move] = []
    key: object = None
    for doc in events:
        meta = doc.get("meta") or {}
        this = (
            ("command", meta.get("version"), str(meta.get("command"))) if "command" in meta else ("none", doc["actor"])
        )
        event = decode(doc["type"], doc["data"])
        if this == key and found:
            last = found[-1]
            found[-1] = Move(last.command, (*last.events, event), last.first, last.version)
            continue
        key = this
        found.append(Move(_command(meta), (event,), doc["seq"], _version(meta)))
    return found


def _version(meta: dict[str, Any]) -> int | None:
    version = meta.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else None


def _command(meta: dict[str, Any]) -> Any:
    try:
        return command_from_json(meta["command"], int(meta["seat"]))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # no command, or not one the rules know: that move fails the judging


def _setup(explicit: tuple[str, ...]) -> str:
    if "scenario" in explicit:
        return "scenario: the position was given, not drawn"
    return f"explicit, not drawn ({', '.join(explicit)})" if explicit else "drawn from the seed"


def audit_log(log: dict[str, Any]) -> dict[str, Any]:
    """``{"verified", "setup", "checks"}`` for a published log."""
    try:
        events = [decode(e["type"], e["data"]) for e in log["events"]]
        grouped = moves(log["events"])
    except (KeyError, TypeError, ValueError) as error:
        return {
            "verified": False,
            "setup": "unknown",
            "checks": [{"name": "readable", "ok": False, "detail": f"the log cannot be read: {error}"}],
        }
    try:
        checks = audit(events, grouped, log_seed=log.get("seed"))
    except Exception as error:
        return {
            "verified": False,
            "setup": "unknown",
            "checks": [{"name": "checkable", "ok": False, "detail": f"the log cannot be checked: {error!r}"}],
        }
    gap = next((i + 1 for i, e in enumerate(log["events"]) if e.get("seq") != i + 1), None)
    detail = "events numbered 1 to n" if gap is None else f"event {gap}: numbered out of order"
    checks.insert(0, Check("numbered", gap is None, detail))
    explicit = explicit_parts(events)
    return {
        "verified": all(c.ok for c in checks),
        "setup": _setup(explicit),
        "checks": [c.__dict__ for c in checks],
    }
