"""What a turn alert says, on each channel: the game, who is to play, the opponents' moves
since the person last played, and the link to their seat's page.

One ``item`` per game (``item_for``) is the channel-neutral content; the functions below put it
in the shape each channel expects: a mail of one or more games (plain text and HTML), a Discord
message (``content`` and an embed), a Slack message (``text`` and blocks), a push payload.
"""

from __future__ import annotations

from html import escape
from typing import Any

from domain import Game
from domain.catalogue import BUILDINGS
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


def _named(building: str) -> str:
    found = BUILDINGS.get(building)
    return found.name if found else building.replace("_", " ").title()


def _move(event: Any, who: str) -> str | None:
    """One opponent's move in words, or None for what is not worth a line (draws, turn starts)."""
    match event:
        case FigureMoved(to=to) | FigureFlown(to=to):
            return f"{who} went to the {_named(to)}"
        case ContributionMade(building=building, space=space):
            return f"{who} paid space {space + 1} of the {_named(building)}"
        case BuildingCompleted(building=building):
            return f"the {_named(building)} was rebuilt"
        case OfferingMade(cost=cost):
            return f"{who} made an offering at the obelisk ({cost} crystals)"
        case DragonFlown(dragon=dragon) | DragonMoved(dragon=dragon):
            return f"{who} moved the {dragon} dragon"
        case ActionUsed(building=building):
            return f"{who} used the {_named(building)}"
    return None


def last_moves(stored: list[StoredEvent], seat: int, names: list[str]) -> list[str]:
    """The other seats' moves since ``seat`` last ended a turn, oldest first."""
    since = max(
        (i for i, s in enumerate(stored) if isinstance(s.event, TurnEnded) and s.event.seat == seat), default=-1
    )
    moves = []
    for s in stored[since + 1 :]:
        mover = getattr(s.event, "seat", None)
        if mover == seat:
            continue
        line = _move(s.event, names[mover] if mover is not None else "")
        if line:
            moves.append(line)
    return moves[-MAX_MOVES:]


def item_for(
    alert: dict[str, Any], state: Game, stored: list[StoredEvent], seats: list[dict[str, Any]], origin: str
) -> dict[str, Any]:
    """The content of one alert: the game named by its players and options, and its moves."""
    names = [s.get("name") or (f"{s.get('level')} bot" if s["kind"] == "bot" else f"Seat {s['seat']}") for s in seats]
    edition = "CMON" if state.options.edition.value == "cmon" else "Kosmos"
    return {
        "game": alert["game"],
        "seat": alert["seat"],
        "turn": alert["turn"],
        "kind": alert["kind"],
        "title": f"{', '.join(names)} ({edition}{' + expansion' if state.options.expansion else ''})",
        "player": names[alert["seat"]],
        "moves": last_moves(stored, alert["seat"], names),
        "seconds_left": alert.get("seconds_left"),
        "link": f"{origin}/play/{alert['game']}",
    }


def headline(item: dict[str, Any]) -> str:
    if item["kind"] == "turn.deadline_near":
        minutes = max(1, round((item.get("seconds_left") or 0) / 60))
        return f"{item['player']}, your turn in {item['title']} ends in about {minutes} min"
    return f"{item['player']}, it is your turn in {item['title']}"


def mail(items: list[dict[str, Any]], unsubscribe: str) -> tuple[str, str, str]:
    """Subject, plain text and HTML of one mail covering every game in ``items``."""
    subject = (
        f"Your turn in {items[0]['title']}" if len(items) == 1 else f"Your turn in {len(items)} Blue Moon City games"
    )
    text_parts, html_parts = [], []
    for item in items:
        moves = item["moves"] or ["(no moves by the others since your last turn)"]
        text_parts.append("\n".join([headline(item) + ".", *(f"  - {m}" for m in moves), f"Play: {item['link']}", ""]))
        listed = "".join(f"<li>{escape(m)}</li>" for m in moves)
        html_parts.append(
            f"<h2>{escape(headline(item))}</h2><ul>{listed}</ul>"
            f'<p><a href="{escape(item["link"], quote=True)}">Play your turn</a></p>'
        )
    footer = f"Stop these mails: {unsubscribe}\n"
    text_body = "\n".join(text_parts) + "\n" + footer
    html_body = (
        '<!doctype html><html lang="en"><body>'
        + "".join(html_parts)
        + f'<p><small><a href="{escape(unsubscribe, quote=True)}">'
        "Stop these mails</a></small></p></body></html>"
    )
    return subject, text_body, html_body


def discord(item: dict[str, Any]) -> dict[str, Any]:
    """A Discord incoming-webhook message: ``content`` and one embed."""
    return {
        "content": headline(item),
        "allowed_mentions": {"parse": []},
        "embeds": [
            {
                "title": item["title"],
                "url": item["link"],
                "description": "\n".join(item["moves"]) or "No moves by the others since the last turn.",
            }
        ],
    }


def slack(item: dict[str, Any]) -> dict[str, Any]:
    """A Slack incoming-webhook message: ``text`` (the notification) and blocks."""
    moves = "\n".join(f"• {m}" for m in item["moves"]) or "No moves by the others since the last turn."
    return {
        "text": headline(item),
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": f"*{headline(item)}*\n{moves}"}},
            {
                "type": "actions",
                "elements": [{"type": "button", "text": {"type": "plain_text", "text": "Play"}, "url": item["link"]}],
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
        "tag": f"turn-{item['game']}",
    }
