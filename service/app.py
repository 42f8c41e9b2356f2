"""The Flask application factory."""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, g, request
from werkzeug.exceptions import RequestURITooLarge

from application import settings
from application.background.rq_handoff import RQHandoff
from application.redis_checks import LiveCheck, check_at_boot
from application.refusals import NotFound
from application.telemetry import request_ids
from application.telemetry.error_reports import start_reporting
from application.telemetry.json_logs import json_handler
from application.wiring import build, connect, queue_url, store_url

from . import (
    browser_policy,
    http_extras,
    live,
    metrics,
    oauth_server,
    play_socket,
    problems,
    quotas,
    ratelimit,
    sessions,
)
from .readiness import Readiness
from .routes import api, pages

MAX_URL = 2048  #: longer URLs get 414 (gunicorn passes them: limit_request_line = 0)
GAME_ID = re.compile(r"[0-9a-f]{32}")  #: the ids GameService.create makes
DEFAULTS: dict[str, Any] = {
    "MAX_CONTENT_LENGTH": 64 * 1024,  # commands are small; anything bigger is refused (413)
    "RATE_LIMIT": settings.RATE_LIMIT.default,  # 0 turns rate limits and quotas off (service/ratelimit.py, quotas.py)
    "TRUSTED_PROXIES": settings.TRUSTED_PROXIES.read(),  # proxies whose X-Forwarded-For is believed
    "REDIS_URL": None,
    "REDIS_CLIENT": None,  # a client to use instead (fakeredis in unit tests)
    "HANDOFF": None,  # where the outbox's work goes instead of RQ (tests: application.background.handoff.CallbackHandoff)
    "MAX_WAIT": live.MAX_WAIT,  # the longest long poll, seconds
    "SSE_SECONDS": live.SSE_SECONDS,  # an SSE response's lifetime (BLUEMOON_SSE_SECONDS)
    "SSE_KEEPALIVE": live.SSE_KEEPALIVE,  # seconds between keep-alive comments (BLUEMOON_SSE_KEEPALIVE)
}


class App(Flask):
    """The service's Flask app: its views and hooks are plain functions (gevent, not asyncio),
    so they are called as they are, without Flask asking each time, for every hook of every
    request, whether it is a coroutine function."""

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        return func


def _logging(app: Flask) -> None:
    app.logger.handlers[:] = [json_handler()]
    app.logger.setLevel(logging.INFO)
    app.logger.propagate = False

    @app.before_request
    def _start() -> None:
        incoming = request.headers.get("X-Request-ID", "")
        g.request_id = incoming if 0 < len(incoming) <= 100 else secrets.token_hex(16)
        g.started = time.perf_counter()
        g.request_id_bound = request_ids.bind(g.request_id)  # the work this request causes carries it

    @app.after_request
    def _log(response: Response) -> Response:
        response.headers["X-Request-ID"] = g.get("request_id", "")
        fields = {
            "request_id": g.get("request_id"),
            "method": request.method,
            "path": request.path,
            "status": response.status_code,
            "ms": round((time.perf_counter() - g.get("started", time.perf_counter())) * 1000, 2),
        }
        app.logger.info("request", extra={"fields": fields})
        return response

    @app.teardown_request
    def _unbind(error: BaseException | None) -> None:
        if "request_id_bound" in g:
            request_ids.unbind(g.pop("request_id_bound"))


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = App(__name__)
    app.config.update(DEFAULTS)
    app.config["RATE_LIMIT"] = settings.RATE_LIMIT.read()  # 0 turns the limit off
    app.config["SSE_SECONDS"] = settings.BLUEMOON_SSE_SECONDS.read()
    app.config["SSE_KEEPALIVE"] = settings.BLUEMOON_SSE_KEEPALIVE.read()
    app.config.update(config or {})
    url, client = app.config["REDIS_URL"], app.config["REDIS_CLIENT"]
    queue_client = client
    if client is None:
        url = url or store_url()
        client = connect(url)
        queue_client = client if queue_url() == url else connect(queue_url())
    components = build(url, client=client, handoff=app.config["HANDOFF"] or RQHandoff(queue_client))
    app.extensions["bluemoon"] = components
    app.extensions["readiness"] = Readiness({"the game store": client.ping, "the job queue's Redis": queue_client.ping})
    if app.config["REDIS_CLIENT"] is None:  # a real Redis: refuse one that may lose games
        replicas = components.store.replicas
        first = check_at_boot(components.url, replicas)
        app.extensions["redis_check"] = LiveCheck(components.client, replicas, first)
    else:
        app.extensions["redis_check"] = lambda: {"status": "unknown", "detail": "a client given by the caller (tests)"}
    start_reporting()
    _logging(app)
    metrics.install(app, components, queue_client)
    problems.register(app)
    play_socket.install(app)  # a browser's token as a WebSocket subprotocol, before the limits read it
    ratelimit.install(app, api, components.client)
    quotas.install(app, components.client)
    app.register_blueprint(api)
    http_extras.install(app)
    sessions.install(app)
    browser_policy.install(app)
    oauth_server.install(app)
    app.register_blueprint(pages)

    @app.before_request
    def _sane_url() -> None:
        """Refuse what can name no game before any work: an over-long URL (414) or a game id
        that is not one the service makes (404, without asking Redis or remembering it)."""
        if len(request.full_path) > MAX_URL:
            raise RequestURITooLarge(f"the URL has {len(request.full_path)} characters; at most {MAX_URL} are read")
        game = (request.view_args or {}).get("game")
        if game is not None and not GAME_ID.fullmatch(game):
            raise NotFound("no such game: a game id is 32 lowercase hexadecimal characters")

    return app
