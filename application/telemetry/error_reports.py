"""Unhandled errors reported to Sentry when SENTRY_DSN is set: a request's (sentry-sdk's Flask
integration; the app's own handler of unexpected errors logs them with ``logger.exception``,
which sentry-sdk's default logging integration reports) and a job's (its RQ integration), each
tagged with the request id whose work it was (request_ids), as the log lines are. Without
SENTRY_DSN nothing is started."""

from __future__ import annotations

from typing import Any

from application.settings import SENTRY_DSN

from . import request_ids


def _tagged(event: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any]:
    request_id = request_ids.current()
    if request_id is not None:
        event.setdefault("tags", {})[request_ids.FIELD] = request_id
    return event


def start_reporting() -> bool:
    """Report this process's unhandled errors, if SENTRY_DSN says where; whether it does."""
    dsn = SENTRY_DSN.read()
    if not dsn:
        return False
    import sentry_sdk  # only where it reports: its integrations patch Flask and RQ as they load
    from sentry_sdk.integrations.flask import FlaskIntegration
    from sentry_sdk.integrations.rq import RqIntegration

    sentry_sdk.init(
        dsn=dsn,
        integrations=[FlaskIntegration(), RqIntegration()],
        auto_enabling_integrations=False,  # these two, not whatever else happens to be installed
        before_send=_tagged,  # type: ignore[arg-type]
        send_default_pii=False,  # no client addresses, cookies or tokens leave the service
    )
    return True
