"""What a turn alert says, on each channel: the game, who is to play, the opponents' moves
since the person last played, and the link to their seat's page.

One ``item`` per game (``item_for``) is the channel-neutral content, worded in the person's
language (application/words.py); the functions below put it in the shape each channel
expects: a mail of one or more games (plain text and HTML), a Discord message (``content`` and
an embed), a Slack message (``text`` and blocks), a push payload.
"""

from __future__ import annotations

from html import escape
from typing import Any

from application.accounts.shown_text import for_discord, for_slack, shown
from application.words import say
from domain import Game
from domain.events import (
    ActionUsed,
    BuildingCompleted,
    ContributionMade,
    DragonFlown,
    DragonMoved,
    FigureFlown,
    FigureMoved,
    OfferingMade,
    TurnEnded,
)
from events.serialization import StoredEvent

MAX_MOVES = 12  #: the opponents' moves an alert lists, the latest ones


def _move(event: Any, who: str, language: str) -> str | None:
    """One opponent's move in words, or None for what is not worth a line (draws, turn starts)."""

    def tile(name: str) -> str:
        return say(language, f"tile.{name}")

    match event:
        case FigureMoved(to=to):
            return say(language, "event.FigureMoved", who=who, tile=tile(to))
        case FigureFlown(to=to, card=card):
            return say(language, "event.FigureFlown", who=who, tile=tile(to), card=card)
        case ContributionMade(building=building, space=space, cards=cards):
            return say(
                language,
                "event.ContributionMade",
                who=who,
                tile=tile(building),
                space=space + 1,
                cards=", ".join(cards),
            )
        case BuildingCompleted(building=building):
            return say(language, "event.BuildingCompleted", tile=tile(building))
        case OfferingMade(cost=cost):
            return say(language, "event.OfferingMade", who=who, count=cost)
        case DragonFlown(dragon=dragon, to=to, card=card) | DragonMoved(dragon=dragon, to=to, card=card):
            sent = {"who": who, "dragon": say(language, f"dragon.{dragon}.object"), "card": card}
            if to is None:
                return say(language, "event.DragonSent.outside", **sent)
            return say(language, "event.DragonSent", tile=tile(to), **sent)
        case ActionUsed(building=building, to=to):
            if to is None:
                return say(language, "event.ActionUsed", who=who, building=tile(building))
            return say(language, "event.ActionUsed.to", who=who, building=tile(building), tile=tile(to))
    return None


def last_moves(stored: list[StoredEvent], seat: int, names: list[str], language: str = "en") -> list[str]:
    """The other seats' moves since ``seat`` last ended a turn, oldest first."""
    since = max(
        (i for i, s in enumerate(stored) if isinstance(s.event, TurnEnded) and s.event.seat == seat), default=-1
    )
    moves = []
    for s in stored[since + 1 :]:
        mover = getattr(s.event, "seat", None)
        if mover == seat:
            continue
        line = _move(s.event, names[mover] if mover is not None else "", language)
        if line:
            moves.append(line[:1].upper() + line[1:])
    return moves[-MAX_MOVES:]


def _seat_name(seat: dict[str, Any], language: str) -> str:
    """The seat's name as others see it: one stored before names were checked may hold line
    breaks or bidi controls, which ``shown`` turns into spaces (application/accounts/shown_text.py)."""
    if seat.get("name") and shown(str(seat["name"])):
        return shown(str(seat["name"]))
    if seat["kind"] == "bot":
        return say(language, "lobby.botSeat", level=say(language, f"level.{seat.get('level')}"))
    return say(language, "alert.seat", seat=seat["seat"])


def item_for(
    alert: dict[str, Any],
    state: Game,
    stored: list[StoredEvent],
    seats: list[dict[str, Any]],
    origin: str,
    language: str = "en",
) -> dict[str, Any]:
    """The content of one alert: the game named by its players and options, and its moves."""
    names = [_seat_name(s, language) for s in seats]
    edition = "CMON" if state.options.edition.value == "cmon" else "Kosmos"
    expansion = f" + {say(language, 'alert.expansion')}" if state.options.expansion else ""
    return {
        "game": alert["game"],
        "seat": alert["seat"],
        "turn": alert["turn"],
        "kind": alert["kind"],
        "language": language,
        "title": f"{', '.join(names)} ({edition}{expansion})",
        "player": names[alert["seat"]],
        "moves": last_moves(stored, alert["seat"], names, language),
        "seconds_left": alert.get("seconds_left"),
        "link": f"{origin}/play/{alert['game']}",
    }


CHALLENGE = "challenge.received"  #: a challenge's alert (application/alerts/entries.py challenge_alert)


def challenge_item(alert: dict[str, Any], player: str, origin: str, language: str = "en") -> dict[str, Any]:
    """The content of a challenge's alert, in the shape of a turn's: who challenges, the game
    asked for, and the link to the lobby where it is answered."""
    options = alert["options"]
    edition = "CMON" if options["edition"] == "cmon" else "Kosmos"
    expansion = f" + {say(language, 'alert.expansion')}" if options["expansion"] else ""
    return {
        "game": alert["game"],
        "seat": 0,
        "turn": 0,
        "kind": CHALLENGE,
        "language": language,
        "title": f"{edition}{expansion}",
        "player": shown(player) or player,
        "who": shown(str(alert["by_name"])) or "?",
        "moves": [say(language, "alert.challenge.answer")],
        "seconds_left": None,
        "link": f"{origin}/#challenges",
    }


def _language(item: dict[str, Any]) -> str:
    return str(item.get("language", "en"))  # an item a mail batch kept from before languages: English


def headline(item: dict[str, Any]) -> str:
    if item["kind"] == CHALLENGE:
        return say(
            _language(item), "alert.headline.challenge", player=item["player"], who=item["who"], title=item["title"]
        )
    if item["kind"] == "turn.deadline_near":
        minutes = max(1, round((item.get("seconds_left") or 0) / 60))
        return say(
            _language(item), "alert.headline.deadline", player=item["player"], title=item["title"], minutes=minutes
        )
    return say(_language(item), "alert.headline", player=item["player"], title=item["title"])


def mail(items: list[dict[str, Any]], unsubscribe: str) -> tuple[str, str, str]:
    """Subject, plain text and HTML of one mail covering every game in ``items`` (in the first
    item's language: a batch is one person's)."""
    language = _language(items[0])
    if len(items) == 1 and items[0]["kind"] == CHALLENGE:
        subject = say(language, "alert.subject.challenge", who=items[0]["who"])
    elif len(items) == 1:
        subject = say(language, "alert.subject", title=items[0]["title"])
    else:
        subject = say(language, "alert.subject.games", count=len(items))
    text_parts, html_parts = [], []
    for item in items:
        moves = item["moves"] or [say(language, "alert.noMoves")]
        challenge = item["kind"] == CHALLENGE
        action = say(language, "alert.challenge.open" if challenge else "alert.playYourTurn")
        text_parts.append(
            "\n".join(
                [
                    headline(item) + ".",
                    *(f"  - {m}" for m in moves),
                    f"{say(language, 'alert.challenge.open' if challenge else 'alert.play')}: {item['link']}",
                    "",
                ]
            )
        )
        listed = "".join(f"<li>{escape(m)}</li>" for m in moves)
        html_parts.append(
            f"<h2>{escape(headline(item))}</h2><ul>{listed}</ul>"
            f'<p><a href="{escape(item["link"], quote=True)}">{escape(action)}</a></p>'
        )
    stop = say(language, "alert.stop")
    text_body = "\n".join(text_parts) + "\n" + f"{stop}: {unsubscribe}\n"
    html_body = (
        f'<!doctype html><html lang="{escape(language, quote=True)}"><body>'
        + "".join(html_parts)
        + f'<p><small><a href="{escape(unsubscribe, quote=True)}">{escape(stop)}</a></small></p></body></html>'
    )
    return subject, text_body, html_body


def discord(item: dict[str, Any]) -> dict[str, Any]:
    """A Discord incoming-webhook message: ``content`` and one embed, their markdown escaped so
    that a name shows as typed (no mention, masked link or formatting), and nobody pinged. The
    embed's title is left as it is: Discord renders no markdown there, so a backslash would show."""
    return {
        "content": for_discord(headline(item)),
        "allowed_mentions": {"parse": []},
        "embeds": [
            {
                "title": item["title"],
                "url": item["link"],
                "description": for_discord("\n".join(item["moves"]) or say(_language(item), "alert.noMoves")),
            }
        ],
    }


def slack(item: dict[str, Any]) -> dict[str, Any]:
    """A Slack incoming-webhook message: ``text`` (the notification) and blocks, their text
    escaped so that a name shows as typed (no ``<!channel>``, mention or link)."""
    moves = "\n".join(f"• {for_slack(m)}" for m in item["moves"]) or say(_language(item), "alert.noMoves")
    play = say(_language(item), "alert.play")
    title = for_slack(headline(item))
    return {
        "text": title,
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": f"*{title}*\n{moves}"}},
            {
                "type": "actions",
                "elements": [{"type": "button", "text": {"type": "plain_text", "text": play}, "url": item["link"]}],
            },
        ],
    }


def push(item: dict[str, Any]) -> dict[str, Any]:
    """The payload the page's service worker shows as a notification (service/web/sw.js)."""
    return {
        "title": "Blue Moon City",
        "body": headline(item),
        "url": item["link"],
        "game": item["game"],
        "tag": f"{'challenge' if item['kind'] == CHALLENGE else 'turn'}-{item['game']}",
    }
