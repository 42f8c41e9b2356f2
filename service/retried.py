"""A create's view made safe to retry by its Idempotency-Key (application/retries.py): whose key it
is (the caller's credential), and the first answer given again, headers and all."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from flask import current_app, request
from marshmallow import ValidationError

from application.games.game_service import digest
from application.retries import ANONYMOUS, ANONYMOUS_KEY_LENGTH, Retries, Retry

from .operation import IDEMPOTENCY_KEY, Body
from .requests import signed_in, tokens

Plan = dict[str, Any]
#: What a create's view answers: its body and headers (a tuple, so that it can be kept and given again).
Made = tuple[Body, dict[str, str]]


def retries() -> Retries:
    return Retries(current_app.extensions["bluemoon"].service.store)


def credential(seat_token: bool = False, invite: str | None = None) -> str:
    """Whose key it is: the person (by a session or a personal access token: the same account), else
    the seat token sent (``seat_token``: the operation checked it is one of the game's), else the
    invite a join is made with, else nobody (ANONYMOUS)."""
    account = signed_in()
    if account is not None:
        return f"account:{account}"
    sent = tokens()
    if seat_token and sent:
        return f"seat-token:{digest(sent[0])}"
    return f"invite:{digest(invite)}" if invite else ANONYMOUS


def once(
    operation: str,
    headers: Body,
    make: Callable[[Plan], Made],
    fresh: Callable[[], Plan] = dict,
    before: Callable[[], None] | None = None,
    seat_token: bool = False,
    invite: str | None = None,
) -> Made:
    """``make(plan)``'s answer, made once per Idempotency-Key of the caller's: with no key, as it
    always was (a fresh plan); with one, the first answer again, else ``before()`` (a quota's count)
    and ``make`` from the key's one plan (``fresh()`` for the first request), whose answer is kept.
    ``seat_token`` and ``invite``: what else proves who calls (see ``credential``)."""
    key = headers.get("idempotency_key")
    if key is None:
        if before is not None:
            before()
        return make(fresh())
    scope = credential(seat_token, invite)
    if scope == ANONYMOUS and len(key) < ANONYMOUS_KEY_LENGTH:
        raise ValidationError(
            {
                IDEMPOTENCY_KEY: [
                    f"without a credential the key is the only proof that the answer is yours: send at least "
                    f"{ANONYMOUS_KEY_LENGTH} random characters (a UUID), or sign in"
                ]
            }
        )
    retry = Retry.of(operation, request.path, scope, key, _sent())
    kept = retries()
    found = kept.answered(retry)
    if found is not None:
        return found[0], found[1]
    if before is not None:
        before()
    plan = kept.plan(retry, lambda: {**fresh(), "mark": retry.mark})
    body, sent_headers = make(plan)
    first = kept.answer(retry, plan, [body, sent_headers])
    return first[0], first[1]


def _sent() -> Any:
    """The request's JSON body as sent (None without one), to tell a retry from another request."""
    raw = request.get_data(cache=True)
    try:
        return json.loads(raw) if raw else None
    except ValueError:  # a body the operation takes none of, and ignores: its bytes as they are
        return raw.decode(errors="replace")
