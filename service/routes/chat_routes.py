"""Game chat: post a message to a game's room, read a room page by page, delete your own message
(application/chat/rooms.py says who may do what). Live, chat reaches the game's stream and long
poll (service/routes/feed_routes.py, ``chat``) and the seats' webhooks (``chat.message``)."""

from __future__ import annotations

from flask import Blueprint, Response
from marshmallow import fields, validate

from application.accounts.scopes import PLAY, READ
from application.chat.messages import LONGEST_MESSAGE, MOST_MESSAGES
from application.chat.rooms import GameChat, Reader
from application.refusals import Unauthorized
from application.settings import CHAT_MESSAGES_PER_MINUTE

from ..operation import OPTIONAL_AUTH, Answer, Body, Caller, Operation, Parameters, Reply, location
from ..requests import accounts, components, signed_in
from ..retried import Made, Plan, once
from ..schemas.chat import MESSAGE_ID, ChatMessage, ChatPage, ChatRequest
from ..schemas.retries import RetryKey

chat = Blueprint("chat", __name__)

ROOMS_TEXT = (
    "`room` is `seats` (the seats write and read it; nobody else reads it) or `spectators` (anyone "
    "signed in who holds no seat writes; everyone who may watch reads, the seats too)."
)


class ChatPaging(Parameters):
    """A page of a room: ``limit`` messages after the message ``after``."""

    after = fields.String(
        validate=validate.Regexp(MESSAGE_ID, error="must be a message id (0-<n>) from an earlier page"),
        metadata={"description": "A page's `next` (a message id): the messages after it. Without it, from the oldest."},
    )
    limit = fields.Integer(
        load_default=100,
        validate=validate.Range(1, 100, error="must be a whole number from 1 to 100"),
        metadata={"description": "At most this many messages."},
    )


def _chat() -> GameChat:
    c = components()
    return GameChat(c.store, c.relations, c.suspensions)


def _caller(caller: Caller, writing: bool) -> Reader:
    """Who calls, as chat sees them; writing needs a seat or a signed-in account."""
    account = signed_in()
    if writing and caller.seat is None and account is None:
        raise Unauthorized("sign in, or send your seat's token, to write in a game's chat")
    return _chat().reader(caller.seat, account, caller.settings)


@Operation(
    chat,
    "post",
    "/games/{game}/chat/{room}",
    id="postChatMessage",
    tag="chat",
    summary="Write a message in one of the game's chat rooms; kept with the game, after its end too.",
    description=f"{ROOMS_TEXT} At most {LONGEST_MESSAGE} characters of plain text; "
    f"{CHAT_MESSAGES_PER_MINUTE.default} messages a minute per person in one game (429 `chat_rate_limited` with "
    f"Retry-After, setting CHAT_MESSAGES_PER_MINUTE); a room keeps its last {MOST_MESSAGES}. Someone a seat's "
    "account blocks is refused (403 `not_allowed`), and so is a suspended account (403 `account_suspended`).",
    security=OPTIONAL_AUTH,
    scope=PLAY,
    headers=RetryKey,
    body=ChatRequest,
    responses={201: Reply("Posted.", ChatMessage, headers=location("The room (listChatMessages)."))},
    problems=(400, 401, 403, 404, 413, 415, 422),
)
def post_chat_message(game: str, room: str, caller: Caller, body: Body, headers: Body) -> Answer:
    writer = _caller(caller, writing=True)
    name = accounts().display_name(writer.account) if writer.seat is None and writer.account else ""

    def made(plan: Plan) -> Made:
        message = _chat().post(game, room, writer, body["text"], caller.settings, name=name, mark=plan.get("mark", ""))
        return {k: v for k, v in message.items() if k != "game"}, {"Location": f"/games/{game}/chat/{room}"}

    return once("postChatMessage", headers, made, seat_token=True)


@Operation(
    chat,
    "get",
    "/games/{game}/chat/{room}",
    id="listChatMessages",
    tag="chat",
    summary="A page of a chat room, oldest first, after a cursor; removed messages show without their words.",
    description=f"{ROOMS_TEXT} The words of anyone you mute or block are left out.",
    security=OPTIONAL_AUTH,
    scope=READ,
    query=ChatPaging,
    responses={200: Reply("A page of messages.", ChatPage)},
    problems=(403, 404, 422),
)
def list_chat_messages(game: str, room: str, caller: Caller, query: Body) -> Answer:
    return _chat().read(game, room, _caller(caller, writing=False), query.get("after", "-"), query["limit"])


@Operation(
    chat,
    "delete",
    "/games/{game}/chat/{room}/{message}",
    id="deleteChatMessage",
    tag="chat",
    summary="Delete your own message: everyone then sees that it was deleted, without its words.",
    security=OPTIONAL_AUTH,
    scope=PLAY,
    responses={204: Reply("Deleted (or deleted already).")},
    problems=(401, 403, 404),
)
def delete_chat_message(game: str, room: str, message: str, caller: Caller) -> Answer:
    _chat().delete(game, room, message, _caller(caller, writing=True))
    return Response(status=204)
