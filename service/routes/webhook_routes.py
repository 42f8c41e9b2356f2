"""Webhooks: a seat asks to be told by a signed POST when its turn begins (and more), lists and
stops its webhooks, and reads their delivery attempts."""

from __future__ import annotations

from flask import Blueprint, Response

from application.accounts.scopes import WEBHOOKS
from application.outbound.webhooks import Webhooks, new_id, new_secret

from ..operation import AUTH, Answer, Body, Caller, Operation, Reply, location
from ..requests import service
from ..retried import Made, Plan, once
from ..schemas.retries import DeliverySent, RetryKey
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
    scope=WEBHOOKS,
    headers=RetryKey,
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
def create_webhook(game: str, caller: Caller, body: Body, headers: Body) -> Answer:
    seat = caller.seat
    assert seat is not None

    def made(plan: Plan) -> Made:
        hook = _hooks().create(game, seat, body["url"], body["events"], plan["hook"], plan["secret"], body["chat"])
        return hook, {"Location": f"/games/{game}/webhooks/{hook['id']}"}

    return once("createWebhook", headers, made, lambda: {"hook": new_id(), "secret": new_secret()}, seat_token=True)


@Operation(
    webhooks,
    "get",
    "/games/{game}/webhooks",
    id="listWebhooks",
    tag="webhooks",
    summary="Your seat's webhooks (without their secrets).",
    security=AUTH,
    scope=WEBHOOKS,
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
    scope=WEBHOOKS,
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
    scope=WEBHOOKS,
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
    scope=WEBHOOKS,
    responses={200: Reply("Attempts, newest first.", DeliveryLog)},
    problems=(401, 403, 404),
)
def webhook_deliveries(game: str, hook: str, caller: Caller) -> Answer:
    return {"deliveries": _hooks().log(game, caller.seat, hook)}  # type: ignore[arg-type]


@Operation(
    webhooks,
    "post",
    "/games/{game}/webhooks/{hook}/test",
    id="testWebhook",
    tag="webhooks",
    summary="Send a test delivery (`webhook.test`) to one of your seat's webhooks now.",
    description="Sent as every delivery is: signed with the webhook's secret, its address checked again, "
    "with the same timeouts, retries and budgets, and listed in the delivery log under the `delivery` answered. "
    'Its body is `{"type": "webhook.test", "game", "version" (the game\'s now), "seat", '
    '"data": {"webhook": <id>}}`. A disabled webhook is refused (409 `webhook_disabled`): enable it first.',
    security=AUTH,
    scope=WEBHOOKS,
    responses={202: Reply("On its way (within a fraction of a second, by the delivery workers).", DeliverySent)},
    problems=(401, 403, 404, 409),
)
def test_webhook(game: str, hook: str, caller: Caller) -> Answer:
    version = service().store.version(game)
    return _hooks().test(game, caller.seat, hook, version)  # type: ignore[arg-type]


@Operation(
    webhooks,
    "post",
    "/games/{game}/webhooks/{hook}/deliveries/{delivery}/redeliver",
    id="redeliverWebhookDelivery",
    tag="webhooks",
    summary="Send one delivery of the webhook's log again now: the same message and `webhook-id`, signed anew.",
    description="Any delivery among the log's last 50 attempts, delivered or failed, goes again through the "
    "delivery path (signature, address check, timeouts, retries, budgets); the receiver knows it by its "
    "`webhook-id`. One still being retried is sent now, its tries starting again. A disabled webhook is refused (409 "
    "`webhook_disabled`): enable it first; so is a chat message's (409 `not_redelivered`: it may have been "
    "deleted since).",
    security=AUTH,
    scope=WEBHOOKS,
    responses={202: Reply("On its way.", DeliverySent)},
    problems=(401, 403, 404, 409),
)
def redeliver(game: str, hook: str, delivery: str, caller: Caller) -> Answer:
    return _hooks().redeliver(game, caller.seat, hook, delivery)  # type: ignore[arg-type]


@Operation(
    webhooks,
    "post",
    "/games/{game}/webhooks/{hook}/enable",
    id="enableWebhook",
    tag="webhooks",
    summary="Enable a webhook again (disabled after failures or timeouts): its counts in a row start again at 0.",
    description="Deliveries of events from now on are sent again; those the game had while it was disabled were "
    "not made (redeliver a failed one from the log). Enabling an enabled webhook changes nothing.",
    security=AUTH,
    scope=WEBHOOKS,
    responses={200: Reply("Enabled.", Webhook)},
    problems=(401, 403, 404),
)
def enable_webhook(game: str, hook: str, caller: Caller) -> Answer:
    return _hooks().enable(game, caller.seat, hook)  # type: ignore[arg-type]
