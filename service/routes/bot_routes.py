"""Bot accounts (application/accounts/bot_accounts.py): a person turns their account into one,
and the scopes its tokens may hold."""

from __future__ import annotations

from flask import Blueprint
from marshmallow import ValidationError

from application.accounts.bot_accounts import BotAccounts, is_bot, rated_among
from application.accounts.scopes import ACCOUNT, BOT, DEFAULT_TOKEN_SCOPES

from ..operation import SESSION_ONLY, SESSION_ONLY_TEXT, Answer, Operation, Reply
from ..requests import accounts, components, session_person
from ..schemas.accounts import Profile

bot_api = Blueprint("bots", __name__)


def token_scopes(account: str, asked: list[str] | None) -> tuple[str, ...]:
    """The scopes a new token of ``account`` holds: those asked for, else the defaults (with
    ``bot`` for a bot account). A person's token may not hold ``bot``: 422 naming ``scopes``."""
    bot = is_bot(accounts().client, account)
    if asked is None:
        return (*DEFAULT_TOKEN_SCOPES, BOT) if bot else DEFAULT_TOKEN_SCOPES
    if BOT in asked and not bot:
        raise ValidationError(
            {"scopes": [f"'{BOT}' is for a bot account's tokens: this account is a person's (POST /me/bot)"]}
        )
    return tuple(asked)


@Operation(
    bot_api,
    "post",
    "/me/bot",
    id="becomeBotAccount",
    tag="accounts",
    summary="Make your account a bot account, for good: its tokens play with the `bot` scope; others see it labelled.",
    description=SESSION_ONLY_TEXT + " 409 `already_bot_account` for a bot account; 409 `played_as_person` for one with "
    "a rated game (or at an open game): a person's rating is not a bot's.",
    security=SESSION_ONLY,
    scope=ACCOUNT,
    responses={200: Reply("Your profile, now a bot account's.", Profile)},
    problems=(401, 403, 404, 409),
)
def become_bot_account() -> Answer:
    account = session_person()
    ratings = components().ratings
    rated = rated_among(accounts().client, accounts().seats(account))
    bots = BotAccounts(accounts().store)
    bots.convert(account, ratings.current(account).games, rated, bots.open_games_of(account))
    return accounts().profile(account)
