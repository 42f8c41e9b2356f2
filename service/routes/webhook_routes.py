"""Webhooks: a seat asks to be told by a signed POST when its turn begins (and more), lists and
stops its webhooks, and reads their delivery attempts."""

from __future__ import annotations

from flask import Blueprint, Response

from application.outbound.webhooks import Webhooks

from ..operation import AUTH, Answer, Body, Caller, Operation, Reply, location
from ..requests import service
from ..schemas.webhooks import DeliveryLog, Webhook, WebhookCreated, WebhookList, WebhookRequest

webhooks = Blueprint("webhooks", __name__)


def _hooks() -> Webhooks:
    return Webhooks(service().store)


@Operation(
    webhooks,
    "post",
    "/games/{game}/webhooks",
    id="createWebhook",
    tag="webhooks",
    summary="Ask to be told by a signed POST (Standard Webhooks) when your turn begins, and more.",
    description="The response holds the signing `secret`, shown only now. Each delivery is a POST with "
    "`webhook-id`, `webhook-timestamp` and `webhook-signature` headers (see the top-level "
    "`webhooks`); retried with back-off (5 s, 30 s, 2 min, 10 min, 1 h) on a timeout or a "
    "non-2xx answer, with the same `webhook-id`; a webhook whose deliveries fail 5 times in a "
    "row, or whose receiver times out 3 attempts in a row (2 s to connect, 5 s to answer), is "
    "disabled and says why (`disabled_reason`). A game has at most 120 deliveries a minute, and "
    "a signed-in seat's account 300: past that they wait for the next minute (`deferred`).",
    security=AUTH,
    body=WebhookRequest,
    responses={
        201: Reply(
            "Created; keep the secret.",
            WebhookCreated,
            headers=location("The webhook (getWebhook)."),
        )
    },
    problems=(400, 401, 403, 404, 413, 415, 422),
)
def create_webhook(game: str, caller: Caller, body: Body) -> Answer:
    hook = _hooks().create(game, caller.seat, body["url"], body["events"])  # type: ignore[arg-type]
    return hook, {"Location": f"/games/{game}/webhooks/{hook['id']}"}


@Operation(
    webhooks,
    "get",
    "/games/{game}/webhooks",
    id="listWebhooks",
    tag="webhooks",
    summary="Your seat's webhooks (without their secrets).",
    security=AUTH,
    responses={200: Reply("Webhooks.", WebhookList)},
    problems=(401, 403, 404),
)
def list_webhooks(game: str, caller: Caller) -> Answer:
    return {"webhooks": _hooks().of_seat(game, caller.seat)}  # type: ignore[arg-type]


@Operation(
    webhooks,
    "get",
    "/games/{game}/webhooks/{hook}",
    id="getWebhook",
    tag="webhooks",
    summary="One of your seat's webhooks (without its secret): where its Location points.",
    security=AUTH,
    responses={200: Reply("The webhook.", Webhook)},
    problems=(401, 403, 404),
)
def get_webhook(game: str, hook: str, caller: Caller) -> Answer:
    return _hooks().shown(game, caller.seat, hook)  # type: ignore[arg-type]


@Operation(
    webhooks,
    "delete",
    "/games/{game}/webhooks/{hook}",
    id="deleteWebhook",
    tag="webhooks",
    summary="Stop a webhook; its pending deliveries are dropped.",
    security=AUTH,
    responses={204: Reply("Deleted.")},
    problems=(401, 403, 404),
)
def delete_webhook(game: str, hook: str, caller: Caller) -> Answer:
    _hooks().delete(game, caller.seat, hook)  # type: ignore[arg-type]
    return Response(status=204)


@Operation(
    webhooks,
    "get",
    "/games/{game}/webhooks/{hook}/deliveries",
    id="listWebhookDeliveries",
    tag="webhooks",
    summary="The webhook's last delivery attempts: time, status, duration.",
    security=AUTH,
    responses={200: Reply("Attempts, newest first.", DeliveryLog)},
    problems=(401, 403, 404),
)
def webhook_deliveries(game: str, hook: str, caller: Caller) -> Answer:
    return {"deliveries": _hooks().log(game, caller.seat, hook)}  # type: ignore[arg-type]
