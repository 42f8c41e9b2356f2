"""Turn alerts: a person's channels, quiet hours, muted games and push subscriptions, what was
sent, and the unsubscribe link a mail carries (application/alerts/channel_settings.py; the deliveries
are workers/alert_jobs.py's)."""

from __future__ import annotations

from html import escape

from flask import Blueprint, Response
from marshmallow import fields, validate

from application.accounts.scopes import ALERTS
from application.alerts.channel_settings import AlertSettings
from application.alerts.vapid import public_key, vapid_key
from application.refusals import Forbidden, NotFound
from application.words import LANGUAGES

from ..operation import PERSON, Answer, Body, Operation, Parameters, Reply
from ..requests import components, person, service
from ..schemas.alerts import (
    AlertChanges,
    AlertLog,
    AlertSettingsDoc,
    PushSubscriptionRequest,
    PushSubscriptionShown,
    VacationRequest,
    VacationStatus,
    settings_doc,
)
from ..server_pages import page_language, server_page, words
from .meta_routes import HTML, pages

alert_api = Blueprint("alerts", __name__)


def alerts() -> AlertSettings:
    return components().alerts


def _doc(account: str) -> Body:
    settings = alerts()
    key = public_key(vapid_key(components().client))
    return settings_doc(settings.get(account), settings.muted(account), settings.subscriptions(account), key)


@Operation(
    alert_api,
    "get",
    "/me/alerts",
    id="getAlertSettings",
    tag="alerts",
    summary="Your turn alerts: channels, quiet hours, muted games, push subscriptions, and the VAPID key to subscribe with.",
    security=PERSON,
    scope=ALERTS,
    responses={200: Reply("Your alert settings.", AlertSettingsDoc)},
    problems=(401, 404),
)
def get_alert_settings() -> Answer:
    return _doc(person())


@Operation(
    alert_api,
    "patch",
    "/me/alerts",
    id="changeAlertSettings",
    tag="alerts",
    summary="Change some alert settings; those left out keep their value, null turns a channel or quiet hours off.",
    description="A Discord or Slack address must be https and public (the same checks as webhooks): "
    "a private, loopback or metadata address is refused with `unsafe_webhook_url` naming the field.",
    security=PERSON,
    scope=ALERTS,
    body=AlertChanges,
    responses={200: Reply("Your alert settings.", AlertSettingsDoc)},
    problems=(400, 401, 403, 404, 413, 415, 422),
)
def change_alert_settings(body: Body) -> Answer:
    account = person()
    components().accounts.profile(account)  # 404 for a deleted account
    alerts().put(account, body)
    return _doc(account)


@Operation(
    alert_api,
    "post",
    "/me/push-subscriptions",
    id="subscribePush",
    tag="alerts",
    summary="Keep a browser's push subscription (PushSubscription.toJSON()); the same endpoint again replaces its keys.",
    security=PERSON,
    scope=ALERTS,
    body=PushSubscriptionRequest,
    responses={201: Reply("Kept.", PushSubscriptionShown)},
    problems=(400, 401, 403, 413, 415, 422),
)
def subscribe_push(body: Body) -> Answer:
    made = alerts().subscribe(person(), body["endpoint"], body["keys"]["p256dh"], body["keys"]["auth"])
    return {k: made[k] for k in ("id", "endpoint", "created")}


@Operation(
    alert_api,
    "delete",
    "/me/push-subscriptions/{subscription}",
    id="unsubscribePush",
    tag="alerts",
    summary="Stop pushing to a browser.",
    security=PERSON,
    scope=ALERTS,
    responses={204: Reply("Dropped.")},
    problems=(401, 403, 404),
)
def unsubscribe_push(subscription: str) -> Answer:
    if not alerts().unsubscribe_push(person(), subscription):
        raise NotFound(f"no push subscription {subscription}")
    return Response(status=204)


@Operation(
    alert_api,
    "put",
    "/me/muted-games/{game}",
    id="muteGame",
    tag="alerts",
    summary="Mute a game of yours: no alert for it until you unmute it.",
    security=PERSON,
    scope=ALERTS,
    responses={204: Reply("Muted.")},
    problems=(401, 403, 404),
)
def mute_game(game: str) -> Answer:
    account = person()
    _own_game(account, game)
    alerts().mute(account, game, True)
    return Response(status=204)


@Operation(
    alert_api,
    "delete",
    "/me/muted-games/{game}",
    id="unmuteGame",
    tag="alerts",
    summary="Unmute a game.",
    security=PERSON,
    scope=ALERTS,
    responses={204: Reply("Unmuted.")},
    problems=(401, 403, 404),
)
def unmute_game(game: str) -> Answer:
    account = person()
    _own_game(account, game)
    alerts().mute(account, game, False)
    return Response(status=204)


def _own_game(account: str, game: str) -> None:
    service().settings(game)  # 404 for an unknown game
    if components().accounts.seat_in(account, game) is None:
        raise Forbidden(f"you hold no seat in {game}")


@Operation(
    alert_api,
    "get",
    "/me/alerts/deliveries",
    id="alertDeliveries",
    tag="alerts",
    summary="Your alerts' last deliveries, failures and skips on every channel, newest first.",
    security=PERSON,
    scope=ALERTS,
    responses={200: Reply("What was sent.", AlertLog)},
    problems=(401,),
)
def alert_deliveries() -> Answer:
    return {"deliveries": alerts().log(person())}


class UnsubscribeQuery(Parameters):
    token = fields.String(required=True, metadata={"description": "The token of the mail's unsubscribe link."})
    lang = fields.String(
        validate=validate.OneOf(LANGUAGES),
        metadata={"description": "The page's language: the mail's (else the browser's Accept-Language)."},
    )


@Operation(
    pages,
    "get",
    "/alerts/unsubscribe",
    id="unsubscribePage",
    tag="alerts",
    summary="The page a mail's unsubscribe link opens: one button stops the mails, no sign-in needed.",
    query=UnsubscribeQuery,
    responses={200: Reply("HTML", HTML)},
    problems=(422,),
)
def unsubscribe_page(query: Body) -> Answer:
    token = escape(query["token"], quote=True)
    language = page_language()
    form = (
        f'<form method="post" action="/alerts/unsubscribe?token={token}&amp;lang={language}">'
        f"<p>{words(language, 'unsubscribe.question')}</p>"
        f'<button type="submit">{words(language, "unsubscribe.button")}</button></form>'
    )
    return server_page(language, "unsubscribe.title", form)


@Operation(
    pages,
    "post",
    "/alerts/unsubscribe",
    id="unsubscribeOneClick",
    tag="alerts",
    summary="One-click unsubscribe (RFC 8058): a mail program POSTs List-Unsubscribe=One-Click here; so does the page's button.",
    query=UnsubscribeQuery,
    responses={200: Reply("Unsubscribed.", HTML)},
    problems=(404, 422),
    rate_limited=False,
)
def unsubscribe_one_click(query: Body) -> Answer:
    """The body (``List-Unsubscribe=One-Click``) needs no reading: the token decides."""
    alerts().unsubscribe(query["token"])
    language = page_language()
    body = f'<p>{words(language, "unsubscribe.done")}</p><p><a href="/">{words(language, "signin.back")}</a></p>'
    return server_page(language, "unsubscribe.title", body)


@Operation(
    alert_api,
    "get",
    "/me/vacation",
    id="getVacation",
    tag="alerts",
    summary="Your vacation: until when you are away, and the days you have left this year.",
    security=PERSON,
    scope=ALERTS,
    responses={200: Reply("Your vacation.", VacationStatus)},
    problems=(401,),
)
def get_vacation() -> Answer:
    return components().vacations.status(person())


@Operation(
    alert_api,
    "put",
    "/me/vacation",
    id="goAway",
    tag="alerts",
    summary="Go on vacation until a time: every clock of yours pauses, and the other seats see until when.",
    description="Each day begun counts against your days a year (14 unless the service sets otherwise); "
    "a turn of yours that is under way gets its deadline moved by the time away. Asked for while away, it "
    "moves the end of the vacation under way, which keeps its start: its days are charged once, so the same "
    "request repeated changes nothing. A refusal (too few days left) changes nothing either.",
    security=PERSON,
    scope=ALERTS,
    body=VacationRequest,
    responses={200: Reply("Away.", VacationStatus)},
    problems=(400, 401, 403, 413, 415, 422),
)
def go_away(body: Body) -> Answer:
    return components().vacations.go_away(person(), int(body["until"].timestamp() * 1000))


@Operation(
    alert_api,
    "delete",
    "/me/vacation",
    id="comeBack",
    tag="alerts",
    summary="Come back early: the whole days not begun are yours again, and your deadlines move back.",
    security=PERSON,
    scope=ALERTS,
    responses={200: Reply("Back.", VacationStatus)},
    problems=(401, 403),
)
def come_back() -> Answer:
    return components().vacations.come_back(person())
