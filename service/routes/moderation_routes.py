"""Reports and moderation: a signed-in person reports a chat message or a person; moderators
(application/moderation/moderators.py) list the open reports with their context, close them,
hide messages, suspend accounts and let them back, and read the log of every such action.

The moderators' operations are the page's session's (scope ``account``): the role acts on other
people, and a personal access token (a long-lived secret pasted into programs) never holds it.
Anyone else is refused 403 (``not_a_moderator``; a token: ``session_required``)."""

from __future__ import annotations

from flask import Blueprint, Response

from application.accounts.scopes import ACCOUNT, PLAY, READ
from application.moderation.actions import ModeratorActions
from application.moderation.log import ModerationLog
from application.moderation.moderators import Moderators
from application.moderation.reports import Reports

from ..operation import PERSON, SESSION_ONLY, Answer, Body, Operation, Reply
from ..requests import components, person, session_person
from ..schemas.moderation import (
    CloseReport,
    FiledReport,
    HideRequest,
    LiftRequest,
    LogPage,
    LogQuery,
    MySuspension,
    Report,
    ReportedMessage,
    ReportPage,
    ReportRequest,
    ReportsQuery,
    SuspendRequest,
    Suspension,
)
from ..web_pages import web_page
from .meta_routes import HTML, pages

moderation = Blueprint("moderation", __name__)

MODERATORS_ONLY = (
    "For moderators, on the page's session (scope `account`): anyone else is refused 403 `not_a_moderator`, a "
    "personal access token 403 `session_required`, a suspended moderator 403 `account_suspended`. Recorded in the "
    "moderation log."
)


def _log() -> ModerationLog:
    return ModerationLog(components().store)


def _reports() -> Reports:
    return Reports(components().store, components().accounts, _log())


def _moderator() -> str:
    """The moderator calling: the page's session of an account that holds the role, or 403. A
    suspended moderator moderates nothing until the suspension ends (403 ``account_suspended``):
    one moderator's suspension of another would mean nothing otherwise."""
    account = session_person()
    Moderators(components().store, components().accounts, _log()).refuse_unless_moderator(account)
    components().suspensions.refuse_if_suspended(account)
    return account


def _actions() -> ModeratorActions:
    return ModeratorActions(components().store, components().accounts, components().suspensions, _log())


@Operation(
    moderation,
    "post",
    "/reports",
    id="fileReport",
    tag="moderation",
    summary="Report a chat message (kept with the messages around it) or a person, with a reason, to the moderators.",
    description="A message you cannot read (another game's seats' room) is 404, as one that does not exist; yourself, "
    "422 `report_of_self`. At most "
    "`QUOTA_REPORTS_PER_ACCOUNT` (10) reports a day (429 `too_many_reports`), one open report per subject (409 "
    "`already_reported`).",
    security=PERSON,
    scope=PLAY,
    body=ReportRequest,
    responses={201: Reply("Filed.", FiledReport)},
    problems=(400, 401, 403, 404, 409, 413, 415, 422, 429),
)
def file_report(body: Body) -> Answer:
    reporter = person()
    subject = {k: body[k] for k in ("account", "game", "room", "message") if k in body}
    filed = _reports().file(reporter, subject, body["reason"], body["text"])
    return {k: filed[k] for k in ("id", "subject", "reason", "text", "at", "status")}


@Operation(
    moderation,
    "get",
    "/me/suspension",
    id="mySuspension",
    tag="moderation",
    summary="Whether a moderator suspended you, until when and why (suspended: no chat, new games or challenges).",
    security=PERSON,
    scope=READ,
    responses={200: Reply("Your suspension, if any.", MySuspension)},
    problems=(401, 403),
)
def my_suspension() -> Answer:
    found = components().suspensions.suspension(person())
    if found is None:
        return {"suspended": False, "until": None, "reason": None}
    return {"suspended": True, "until": found["until"], "reason": found["reason"]}


@Operation(
    moderation,
    "get",
    "/moderation/reports",
    id="listReports",
    tag="moderation",
    summary="The open reports, oldest first, each with the messages around a reported one as they were when filed.",
    description=MODERATORS_ONLY,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    query=ReportsQuery,
    responses={200: Reply("A page of open reports.", ReportPage)},
    problems=(401, 403, 422),
)
def list_reports(query: Body) -> Answer:
    _moderator()
    found, after = _reports().open_reports(query["limit"], query.get("after"))
    return {"reports": found, "next": after}


@Operation(
    moderation,
    "post",
    "/moderation/reports/{report}/close",
    id="closeReport",
    tag="moderation",
    summary="Close an open report: resolved (acted on) or dismissed; 409 `report_closed` for a closed one.",
    description=MODERATORS_ONLY,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    body=CloseReport,
    responses={200: Reply("The report, closed.", Report)},
    problems=(400, 401, 403, 404, 409, 413, 415, 422),
)
def close_report(report: str, body: Body) -> Answer:
    return _reports().close(report, body["outcome"], _moderator(), body["note"])


@Operation(
    moderation,
    "post",
    "/moderation/hidden-messages",
    id="hideMessage",
    tag="moderation",
    summary="Hide a chat message for everyone: it shows as hidden, without its words (one removed already stays).",
    description=MODERATORS_ONLY,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    body=HideRequest,
    responses={200: Reply("The message as everyone sees it now.", ReportedMessage)},
    problems=(400, 401, 403, 404, 413, 415, 422),
)
def hide_message(body: Body) -> Answer:
    return _actions().hide(_moderator(), body["game"], body["room"], body["message"], body["reason"])


@Operation(
    moderation,
    "put",
    "/moderation/suspensions/{account}",
    id="suspendAccount",
    tag="moderation",
    summary="Suspend an account for a time, with a reason it sees: no chat, new games, joins or challenges; its "
    "running games go on, its turns played at their deadlines.",
    description=MODERATORS_ONLY + " A new suspension replaces the one the account has.",
    security=SESSION_ONLY,
    scope=ACCOUNT,
    body=SuspendRequest,
    responses={200: Reply("The suspension.", Suspension)},
    problems=(400, 401, 403, 404, 413, 415, 422),
)
def suspend_account(account: str, body: Body) -> Answer:
    return _actions().suspend(_moderator(), account, body["seconds"], body["reason"])


@Operation(
    moderation,
    "post",
    "/moderation/suspensions/{account}/lift",
    id="liftSuspension",
    tag="moderation",
    summary="Let a suspended account back at once; 404 for one not suspended.",
    description=MODERATORS_ONLY,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    body=LiftRequest,
    responses={204: Reply("Lifted.")},
    problems=(400, 401, 403, 404, 413, 415, 422),
)
def lift_suspension(account: str, body: Body) -> Answer:
    _actions().lift(_moderator(), account, body["reason"])
    return Response(status=204)


@Operation(
    moderation,
    "get",
    "/moderation/log",
    id="moderationLog",
    tag="moderation",
    summary="Every moderator's action and every grant or revocation of the role, newest first: who, what, when, why.",
    description=MODERATORS_ONLY.replace(" Recorded in the moderation log.", ""),
    security=SESSION_ONLY,
    scope=ACCOUNT,
    query=LogQuery,
    responses={200: Reply("A page of the log.", LogPage)},
    problems=(401, 403, 422),
)
def moderation_log(query: Body) -> Answer:
    _moderator()
    entries, after = _log().read(query["limit"], query.get("before"))
    return {"entries": entries, "next": after}


@Operation(
    pages,
    "get",
    "/moderation",
    id="moderationPage",
    tag="service",
    summary="The moderators' page: the open reports with their context, and buttons to hide, suspend or dismiss.",
    responses={200: Reply("HTML", HTML)},
)
def moderation_page() -> Answer:
    return web_page("moderation.html")
