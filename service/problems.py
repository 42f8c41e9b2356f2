"""RFC 9457 problem responses: every error the API returns, mapped in one place."""

from __future__ import annotations

import os
import traceback
from typing import Any

import redis
from flask import Flask, Response, jsonify, request
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException
from werkzeug.routing import WebsocketMismatch

from application.refusals import ServiceError
from domain import CommandError, IllegalCommand, InvalidCommand
from events.store import IdempotencyConflict, NotReplicated, WrongExpectedVersion

MEDIA_TYPE = "application/problem+json"


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> Response:
    body = {
        "type": f"/problems/{code}",
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
        "instance": request.path,
        **{k: v for k, v in extra.items() if v is not None},
    }
    response = jsonify(body)
    response.status_code = status
    response.mimetype = MEDIA_TYPE
    return response


def _request_field(error: CommandError) -> str | None:
    """The field of the request a refused command names: a command's seat is no field of it (the
    token says whose it is), so a refusal about the seat names none."""
    return None if error.field == "seat" else error.field


RETRY_AFTER = 5  #: seconds a client should wait after a 503


def unavailable(detail: str) -> Response:
    response = problem(503, "unavailable", "Service unavailable", detail)
    response.headers["Retry-After"] = str(RETRY_AFTER)
    return response


#: What a read on a connection closed under it raises inside redis-py (not a RedisError).
CLOSED_UNDER_A_READ = (AttributeError, ValueError, OSError)


def _inside_redis_py(error: BaseException) -> bool:
    """Whether the error was raised by redis-py's own code (its last frame is in the package)."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and f"{os.sep}redis{os.sep}" in frames[-1].filename


def _validation(error: ValidationError) -> Response:
    messages = error.messages if isinstance(error.messages, dict) else {"_schema": error.messages}
    fields = ", ".join(sorted(messages))
    return problem(
        422,
        "invalid_request",
        "The request is malformed",
        f"invalid field(s): {fields}; see 'errors' for what is allowed",
        errors=messages,
    )


def register(app: Flask) -> None:
    @app.errorhandler(WebsocketMismatch)
    def _not_a_websocket(error: WebsocketMismatch) -> Response:
        """A plain request to a WebSocket's URL (werkzeug's routing refuses it): 426, as RFC 9110
        §15.5.22 says, naming the upgrade it needs, rather than a 400 that says nothing."""
        response = problem(
            426,
            "websocket_required",
            "This URL is a WebSocket",
            "open it with Upgrade: websocket and Sec-WebSocket-Protocol: bluemoon.v1 (docs/api.md)",
        )
        response.headers["Upgrade"] = "websocket"
        return response

    @app.errorhandler(ValidationError)
    def _invalid(error: ValidationError) -> Response:
        return _validation(error)

    @app.errorhandler(InvalidCommand)
    def _malformed(error: InvalidCommand) -> Response:
        return problem(422, error.code, "The command is malformed", error.detail, field=_request_field(error))

    @app.errorhandler(IllegalCommand)
    def _illegal(error: IllegalCommand) -> Response:
        return problem(409, error.code, "The rules forbid this command now", error.detail, field=_request_field(error))

    @app.errorhandler(WrongExpectedVersion)
    def _stale(error: WrongExpectedVersion) -> Response:
        status = 412 if request.headers.get("If-Match") else 409
        response = problem(
            status,
            "stale_version",
            "The game has moved on",
            f"you played against version {error.expected}; the game is at {error.current}. "
            "Fetch the game, then decide again.",
            current_version=error.current,
        )
        response.headers["ETag"] = f'"{error.current}"'
        return response

    @app.errorhandler(IdempotencyConflict)
    def _reused_key(error: IdempotencyConflict) -> Response:
        return problem(422, "idempotency_key_reused", "The Idempotency-Key belongs to another command", str(error))

    @app.errorhandler(ServiceError)
    def _service(error: ServiceError) -> Response:
        extra = dict(error.extra)
        retry_after = extra.pop("retry_after", None)  # a header, not a member
        response = problem(error.status, error.code, error.title, error.detail, **extra)
        if retry_after is not None:
            response.headers["Retry-After"] = str(retry_after)
        if error.status == 403 and extra.get("scope"):  # a credential without the scope needed (RFC 6750 3.1)
            response.headers["WWW-Authenticate"] = f'Bearer error="insufficient_scope", scope="{extra["scope"]}"'
        return response

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException) -> Response:
        code = {
            400: "bad_request",
            404: "not_found",
            405: "method_not_allowed",
            413: "too_large",
            414: "uri_too_long",
            415: "unsupported_media_type",
            429: "rate_limited",
        }.get(error.code or 500, "http_error")
        response = problem(error.code or 500, code, error.name, error.description or error.name)
        if error.code == 405 and getattr(error, "valid_methods", None):
            response.headers["Allow"] = ", ".join(error.valid_methods)  # type: ignore[attr-defined]
        if error.code == 429 and getattr(error, "retry_after", None):
            response.headers["Retry-After"] = str(error.retry_after)  # type: ignore[attr-defined]
        return response

    @app.errorhandler(NotReplicated)
    def _unconfirmed(error: NotReplicated) -> Response:
        app.logger.warning("append not confirmed: %s", error)
        return unavailable(
            f"the command is not acknowledged: it is not yet confirmed by a replica ({error}); retry with the "
            "same Idempotency-Key: it is applied once"
        )

    @app.errorhandler(redis.ConnectionError)
    @app.errorhandler(redis.TimeoutError)
    @app.errorhandler(redis.exceptions.ClusterError)  # a cluster without a primary for a slot, mid-failover
    @app.errorhandler(redis.exceptions.TryAgainError)
    @app.errorhandler(redis.exceptions.ReadOnlyError)  # a write reached a primary just demoted to replica
    @app.errorhandler(redis.exceptions.AskError)  # slots still moving after the client's retries
    @app.errorhandler(redis.exceptions.RedisClusterException)
    def _unavailable(error: Exception) -> Response:
        app.logger.warning("Redis unavailable: %s", error)
        return unavailable(
            f"the game store is unreachable ({type(error).__name__}); nothing was changed, retry shortly"
        )

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Response:
        if isinstance(error, CLOSED_UNDER_A_READ) and _inside_redis_py(error):
            # redis-py's cluster client closes a node's connections when it learns of a
            # failover, also one another thread is reading a reply from: that read finds its
            # buffer gone (AttributeError on None), its file closed (ValueError) or its socket
            # closed (OSError: bad file descriptor). The connection was lost mid-read, nothing
            # more: a 503 to retry, as for any lost connection (a retry with the same
            # Idempotency-Key applies a command once).
            app.logger.warning("Redis connection closed mid-read by a failover: %r", error)
            return unavailable("the game store's connection was closed mid-read; nothing was changed, retry shortly")
        app.logger.exception("unhandled error")
        return problem(
            500,
            "internal_error",
            "Internal error",
            "something went wrong on our side; retry with the same Idempotency-Key to learn whether it was applied",
        )
