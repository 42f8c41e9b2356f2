"""Commands and events as the JSON clients send and receive.

A command is ``{"type": "<name>", ...fields}`` without the seat (the seat comes from the
token); ``legal`` returns exactly this form so a client can post a choice back unchanged.
"""

from __future__ import annotations

from typing import Any

import orjson

from domain import COMMAND_TYPES, Command, Event, Game, legal_commands
from domain.commands import Contribute, EndTurn, Recolour, command_document
from domain.decide import MAX_DISCARDS
from events.serialization import StoredEvent, payload


def dumps(doc: Any) -> bytes:
    """JSON as served: orjson writes views and event pages several times faster than json."""
    return orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS)


def command_to_json(command: Command) -> dict[str, Any]:
    return command_document(command)


def command_from_json(doc: dict[str, Any], seat: int) -> Command:
    """Build a domain command from an already validated document."""
    cls = COMMAND_TYPES[doc["type"]]
    fields = {k: v for k, v in doc.items() if k != "type"}
    for name, value in fields.items():
        if isinstance(value, list):
            fields[name] = tuple(value)
    if cls is Contribute:
        fields["hoax"] = tuple(Recolour(h["card"], tuple(h["targets"])) for h in fields.get("hoax", ()))
    return cls(seat=seat, **fields)


def event_to_json(stored: StoredEvent, event: Event) -> dict[str, Any]:
    """A stored event as served: metadata plus the (already redacted) payload."""
    return {
        "seq": stored.seq,
        "type": stored.type,
        "schema": stored.schema,
        "at": stored.at,
        "actor": stored.actor,
        "meta": orjson.loads(stored.meta or "{}"),
        "data": payload(event),
    }


def legal_document(state: Game, seat: int, expand: bool = False) -> dict[str, Any]:
    """``GET /legal``'s body (without the game id): compact unless ``expand``. The Reset is one
    ``end_turn`` discarding nothing plus the cards it may discard, not every combination of
    them (a 40-card hand has hundreds)."""
    found = list(legal_commands(state, seat, take_back=True))
    can_end = any(isinstance(c, EndTurn) for c in found)
    if not expand:
        found = [c for c in found if not (isinstance(c, EndTurn) and c.discards)]
    choice = {"from": sorted(state.players[seat].hand), "at_most": MAX_DISCARDS} if can_end else None
    return {
        "version": state.version,
        "seat": seat,
        "commands": [command_to_json(c) for c in found],
        "end_turn_discards": choice,
    }
