"""The application's own refusals (not the rules': those are domain/errors.py), each mapped once to an
RFC 9457 problem response by service/problems.py."""

from __future__ import annotations


class ServiceError(Exception):
    status = 400
    code = "bad_request"
    title = "Bad request"

    def __init__(self, detail: str, **extra: object) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class NotFound(ServiceError):
    status, code, title = 404, "not_found", "Not found"


class Unauthorized(ServiceError):
    status, code, title = 401, "unauthorized", "Say who you are: a token or a session is required"


class Forbidden(ServiceError):
    status, code, title = 403, "forbidden", "This token may not do that"


class SeatTaken(ServiceError):
    status, code, title = 409, "seat_taken", "The seat is not open"


class GameOver(ServiceError):
    status, code, title = 409, "game_over", "The game has ended"


class NotFinished(ServiceError):
    status, code, title = 409, "not_finished", "The game has not ended"


class PreconditionRequired(ServiceError):
    status, code, title = 428, "precondition_required", "State the version you played against"
