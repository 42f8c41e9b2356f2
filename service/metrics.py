"""``GET /metrics``: the service's numbers in Prometheus' text format, for the operator's
Prometheus only (METRICS_TOKEN as a bearer token; unset, the route is not served), and the
counting of every request by operation and status.

Not an operation of openapi.yaml: the API is for players' clients and bots, and its document
(and its version) says what they may rely on; this is the operator's, documented in
docs/operations.md beside the dashboard and alert rules it feeds (docs/grafana-dashboard.json,
docs/prometheus-alerts.yml)."""

from __future__ import annotations

import hmac
import time
from typing import Any

from flask import Flask, Response, current_app, g, request

from application.archive.lag import archive_lag_reading
from application.background.rq_handoff import queue_names
from application.refusals import NotFound, Unauthorized
from application.settings import METRICS_TOKEN
from application.telemetry.exposition import CONTENT_TYPE, scrape
from application.telemetry.metrics import REQUEST_SECONDS, REQUESTS
from application.telemetry.readings import Readings, outbox_reading, queue_reading
from application.wiring import Components

PATH = "/metrics"


def operation() -> str:
    """The request's operation: its operationId in openapi.yaml (service/operation.py), a
    plain route's endpoint, or ``unmatched``: a bounded set of names, never the raw path."""
    rule = request.url_rule
    if rule is None:
        return "unmatched"
    view = current_app.view_functions.get(rule.endpoint)
    return str(getattr(view, "operation_id", rule.endpoint))


def install(app: Flask, components: Components, queue_client: Any) -> None:
    readings = Readings(
        {
            "outbox": outbox_reading(components.client),
            "queues": queue_reading(queue_client, queue_names()),
            "archive": archive_lag_reading(components.client),
        }
    )
    app.extensions["metrics_readings"] = readings

    @app.before_request
    def _started() -> None:
        g.metrics_started = time.perf_counter()

    @app.after_request
    def _count(response: Response) -> Response:
        name = operation()
        REQUESTS.labels(name, str(response.status_code)).inc()
        if "metrics_started" in g:
            REQUEST_SECONDS.labels(name).observe(time.perf_counter() - g.metrics_started)
        return response

    @app.get(PATH)
    def metrics() -> Response:
        token = METRICS_TOKEN.read()
        if not token:
            raise NotFound("/metrics is served only where METRICS_TOKEN is set")
        sent = request.headers.get("Authorization", "")
        if not hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
            raise Unauthorized("/metrics takes the operator's bearer token (METRICS_TOKEN)")
        return Response(scrape(readings), mimetype=CONTENT_TYPE)
