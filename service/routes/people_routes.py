"""People: a player's profile (``/players/{player}``: JSON, or the page for a browser), the
friends list, mutes and blocks, what a person allows, and private notes (application/people/).

Changing whom you follow, mute or block, what you allow and your notes is the ``account`` scope
(the page's session: personal settings, as the profile's name is); reading them is ``read``."""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Response, after_this_request, request
from marshmallow import fields
from marshmallow.validate import Range

from application.accounts.scopes import ACCOUNT, READ
from application.people.friends import MOST_ON_A_PAGE, PAGE, Friends
from application.people.notes import Notes
from application.people.played import names_of
from application.people.profiles import Profiles
from application.people.relations import Relations
from application.refusals import NotFound

from ..operation import (
    OPTIONAL_PERSON,
    PERSON,
    SESSION_ONLY,
    SESSION_ONLY_TEXT,
    Answer,
    Body,
    Operation,
    Parameters,
    Reply,
)
from ..requests import accounts, components, person, service, signed_in
from ..schemas.people import FriendList, Note, NoteChange, PeopleList, PlayerProfile, Privacy, PrivacyChange
from ..web_pages import web_page

people_api = Blueprint("people_api", __name__)
DONE = {204: Reply("Done (doing it again changes nothing).")}


def prefers_page() -> bool:
    """Whether the request is a browser's asking for a page: it prefers text/html to JSON (a
    client that sends no Accept, or */*, gets JSON)."""
    return request.accept_mimetypes.best_match(["application/json", "text/html"]) == "text/html"


@Operation(
    people_api,
    "get",
    "/players/{player}",
    id="getPlayer",
    tag="people",
    summary="A player's profile: name, rating and its history, recent games, counts, followers, friends if public.",
    description="JSON by default. A browser's request that prefers `text/html` (its `Accept`) gets the profile page "
    "at the same address instead (listed under `x-pages` as `playerPage`). Never an email.",
    security=OPTIONAL_PERSON,
    scope=READ,
    responses={200: Reply("The profile.", PlayerProfile)},
    problems=(404,),
)
def get_player(player: str) -> Answer:
    after_this_request(_varies)
    if prefers_page():
        return web_page("player.html")
    return _profiles().profile(player, signed_in())


def _varies(response: Response) -> Response:
    """One address, two representations: a cache keeps each apart by the request's Accept."""
    response.vary.add("Accept")
    return response


def _profiles() -> Profiles:
    c = components()
    return Profiles(c.accounts, c.ratings, c.relations, c.service.index)


def _existing(account: str) -> str:
    if not accounts().exists(account):
        raise NotFound(f"no account {account}")
    return account


# -- follow, mute, block ----------------------------------------------------------------------


def _relation(method: str, verb: str, path: str, name: str, change: Callable[[str, str], None], summary: str) -> None:
    """One PUT (an unknown account: 404) or DELETE of a relation to ``{account}``: 204, the
    same when repeated."""

    def changed(account: str) -> Answer:
        me = person()
        change(me, _existing(account) if method == "put" else account)
        return Response(status=204)

    changed.__name__ = name
    Operation(
        people_api,
        method,
        path,
        id=verb,
        tag="people",
        summary=summary,
        description=SESSION_ONLY_TEXT,
        security=SESSION_ONLY,
        scope=ACCOUNT,
        responses=DONE,
        problems=(400, 401, 403, 404, 409) if method == "put" else (401, 403),
    )(changed)


def _relations() -> Relations:
    return components().relations


_relation(
    "put",
    "followPerson",
    "/me/follows/{account}",
    "follow_person",
    lambda me, other: _relations().follow(me, other),
    "Follow a person: they are on your friends list (at most 1,000); 403 not_allowed when they do not allow it.",
)
_relation(
    "delete",
    "unfollowPerson",
    "/me/follows/{account}",
    "unfollow_person",
    lambda me, o: _relations().unfollow(me, o),
    "Unfollow.",
)
_relation(
    "put",
    "mutePerson",
    "/me/mutes/{account}",
    "mute_person",
    lambda me, other: _relations().mute(me, other),
    "Mute a person: their words are hidden from you in every game (at most 1,000 muted).",
)
_relation(
    "delete",
    "unmutePerson",
    "/me/mutes/{account}",
    "unmute_person",
    lambda me, o: _relations().unmute(me, o),
    "Unmute.",
)
_relation(
    "put",
    "blockPerson",
    "/me/blocks/{account}",
    "block_person",
    lambda me, other: _relations().block(me, other),
    "Block a person: they cannot follow or challenge you nor join your open games (they are not told why); "
    "it ends their following of you (at most 1,000 blocked).",
)
_relation(
    "delete",
    "unblockPerson",
    "/me/blocks/{account}",
    "unblock_person",
    lambda me, o: _relations().unblock(me, o),
    "Unblock.",
)


class FriendsPage(Parameters):
    limit = fields.Integer(
        load_default=PAGE,
        validate=Range(1, MOST_ON_A_PAGE, error=f"must be a whole number from 1 to {MOST_ON_A_PAGE}"),
        metadata={"description": "At most this many friends on the page."},
    )
    after = fields.Integer(
        load_default=0,
        validate=Range(0, 1000, error="must be a 'next' value from an earlier page"),
        metadata={"description": "The previous page's `next`."},
    )


@Operation(
    people_api,
    "get",
    "/me/follows",
    id="listFollows",
    tag="people",
    summary="Your friends list: each person you follow, their rating and current games (watch one; whose turn).",
    security=PERSON,
    scope=READ,
    query=FriendsPage,
    responses={200: Reply("Your friends.", FriendList)},
    problems=(401, 422),
)
def list_follows(query: Body) -> Answer:
    c = components()
    return Friends(c.relations, c.ratings, c.service.index).page(person(), query["limit"], query["after"])


def _listed(read: Callable[[str], set[str]]) -> Answer:
    chosen = sorted(read(person()))
    named = names_of(accounts().client, chosen)
    return {"people": [{"player": p, **named[p]} for p in chosen if p in named]}


@Operation(
    people_api,
    "get",
    "/me/mutes",
    id="listMutes",
    tag="people",
    summary="The people you muted.",
    security=PERSON,
    scope=READ,
    responses={200: Reply("Muted.", PeopleList)},
    problems=(401,),
)
def list_mutes() -> Answer:
    return _listed(_relations().muted)


@Operation(
    people_api,
    "get",
    "/me/blocks",
    id="listBlocks",
    tag="people",
    summary="The people you blocked.",
    security=PERSON,
    scope=READ,
    responses={200: Reply("Blocked.", PeopleList)},
    problems=(401,),
)
def list_blocks() -> Answer:
    return _listed(_relations().blocked)


# -- what a person allows ---------------------------------------------------------------------


@Operation(
    people_api,
    "get",
    "/me/privacy",
    id="getPrivacy",
    tag="people",
    summary="Who may challenge you (everyone, people you follow, nobody) and whether your friends list is public.",
    security=PERSON,
    scope=READ,
    responses={200: Reply("What you allow.", Privacy)},
    problems=(401,),
)
def get_privacy() -> Answer:
    return _relations().privacy(person())


@Operation(
    people_api,
    "patch",
    "/me/privacy",
    id="changePrivacy",
    tag="people",
    summary="Change who may challenge you, or whether your friends list is public (fields left out stay).",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    body=PrivacyChange,
    responses={200: Reply("What you allow now.", Privacy)},
    problems=(400, 401, 403, 413, 415, 422),
)
def change_privacy(body: Body) -> Answer:
    return _relations().set_privacy(person(), body.get("challenges"), body.get("friends_public"))


# -- private notes ----------------------------------------------------------------------------


def _subject(subject: str, about: str) -> str:
    """NotFound unless the note's subject exists: an account, or a game."""
    if subject == "player":
        return _existing(about)
    if service().index.get(about) is None:
        raise NotFound(f"no game {about}")
    return about


def _notes(subject: str, param: str) -> None:
    """The PUT, GET and DELETE of the caller's note on a player or a game."""
    path, kind = f"/me/notes/{subject}s/{{{param}}}", subject.capitalize()

    def put(body: Body, **found: str) -> Answer:
        return Notes(components().store).put(person(), subject, _subject(subject, found[param]), body["text"])

    def get(**found: str) -> Answer:
        return Notes(components().store).get(person(), subject, found[param])

    def delete(**found: str) -> Answer:
        Notes(components().store).delete(person(), subject, found[param])
        return Response(status=204)

    for view, name in ((put, "put"), (get, "get"), (delete, "delete")):
        view.__name__ = f"{name}_{subject}_note"
    Operation(
        people_api,
        "put",
        path,
        id=f"put{kind}Note",
        tag="people",
        summary=f"Keep a private note on a {subject} (plain text, at most 2,000 characters): yours alone.",
        description=SESSION_ONLY_TEXT,
        security=SESSION_ONLY,
        scope=ACCOUNT,
        body=NoteChange,
        responses={200: Reply("Kept.", Note)},
        problems=(400, 401, 403, 404, 409, 413, 415, 422),
    )(put)
    Operation(
        people_api,
        "get",
        path,
        id=f"get{kind}Note",
        tag="people",
        summary=f"Your private note on a {subject} (empty when you keep none); no one else reads it.",
        security=PERSON,
        scope=READ,
        responses={200: Reply("Your note.", Note)},
        problems=(401, 404),  # (404: not a game id the service makes)
    )(get)
    Operation(
        people_api,
        "delete",
        path,
        id=f"delete{kind}Note",
        tag="people",
        summary=f"Delete your note on a {subject}.",
        description=SESSION_ONLY_TEXT,
        security=SESSION_ONLY,
        scope=ACCOUNT,
        responses=DONE,
        problems=(401, 403, 404),
    )(delete)


_notes("player", "player")
_notes("game", "game")
