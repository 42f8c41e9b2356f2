"""Moderation as the tests reach it: a moderator's page (the role given as the operator's
command gives it), chat messages put in a game's room as the chat's store keeps them, and a
person's account id."""

from __future__ import annotations

from application.chat.messages import ChatMessages
from application.moderation.log import ModerationLog
from application.moderation.moderators import Moderators
from tests.api.client import CheckedClient
from tests.support.accounts import page_of


def moderators(api: CheckedClient) -> Moderators:
    components = api.app.extensions["bluemoon"]
    return Moderators(components.store, components.accounts, ModerationLog(components.store))


def moderator_page(api: CheckedClient, email: str) -> tuple[CheckedClient, str]:
    """A browser signed in as ``email``, made a moderator; and its account id."""
    page = page_of(api, email)
    account = page.get("/me").json["account"]
    assert moderators(api).grant(account)
    return page, account


def said(api: CheckedClient, game: str, room: str, author: str, *lines: str) -> list[dict]:
    """Messages ``author`` wrote in ``game``'s ``room``, as the chat keeps them."""
    chat = ChatMessages(api.app.extensions["bluemoon"].store)
    return [chat.add(game, room, author, None, line) for line in lines]
