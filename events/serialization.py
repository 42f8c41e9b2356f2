"""Stored events: JSON with a type tag, a schema version, and upcasters for old versions.

A stored event is a flat record (``Redis stream fields``): ``type``, ``schema``, ``game``,
``seq``, ``at`` (ISO-8601 UTC), ``actor`` (a seat number, ``bot:<level>``, ``deadline:<level>``
or ``system``), ``command`` (the command id that caused it), ``meta`` (JSON about how the
command was chosen) and ``data`` (the payload as JSON). Reading upcasts old payloads step by
step to the current schema, so the domain only ever sees current events.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from domain import EVENT_TYPES, Event
from domain.catalogue import BUILDINGS

#: The current schema version of each event type (1 unless it changed).
SCHEMA: dict[str, int] = dict.fromkeys(EVENT_TYPES, 1)
SCHEMA["ContributionMade"] = 2
SCHEMA["GameCreated"] = 2
SCHEMA["PositionSet"] = 2

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


def _contribution_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v1 had no Hoax recolouring and named no colour for coloured spaces."""
    data = dict(data)
    data.setdefault("hoax", [])
    if data.get("colour") is None:
        space = BUILDINGS[data["building"]].spaces[data["space"]]
        data["colour"] = space.colour.value if space.colour else None
    return data


def _created_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v1 games were created before the rules had versions: they play by rules 1 (no P16)."""
    return {**data, "rules": data.get("rules", 1)}


def _position_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v1 could not state rebuilt buildings: none were, but those whose spaces were all marked."""
    return {**data, "rebuilt": data.get("rebuilt", [])}


#: (type, version) -> a function that turns that version's payload into the next version's.
UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("ContributionMade", 1): _contribution_v1_to_v2,
    ("GameCreated", 1): _created_v1_to_v2,
    ("PositionSet", 1): _position_v1_to_v2,
}


class SchemaError(ValueError):
    """A stored record that cannot be read: unknown type, or a version with no upcaster."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as kept in the store, with its metadata."""

    game: str
    seq: int
    type: str
    schema: int
    at: str
    actor: str
    command: str
    meta: str  #: JSON: how the command was chosen (a bot's level, budget and view hash)
    event: Event


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def payload(event: Event) -> dict[str, Any]:
    """The event's fields as JSON-ready values (tuples become lists)."""
    return {f.name: getattr(event, f.name) for f in dataclasses.fields(event)}


def decode(type_name: str, data: Mapping[str, Any]) -> Event:
    """Build a current event from a current payload."""
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        raise SchemaError(f"unknown event type {type_name!r}")
    return cls(**{k: _tuples(v) for k, v in data.items()})


def upcast(type_name: str, version: int, data: dict[str, Any]) -> dict[str, Any]:
    """Bring a payload from ``version`` to the current schema of its type."""
    current = SCHEMA.get(type_name)
    if current is None:
        raise SchemaError(f"unknown event type {type_name!r}")
    while version < current:
        step = UPCASTERS.get((type_name, version))
        if step is None:
            raise SchemaError(f"no upcaster for {type_name} v{version}")
        data = step(data)
        version += 1
    if version > current:
        raise SchemaError(f"{type_name} v{version} is newer than this code (v{current})")
    return data


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def to_record(
    event: Event, game: str, seq: int, actor: str, command: str, at: str | None = None, meta: str = "{}"
) -> dict[str, str]:
    """The flat record stored for ``event``."""
    name = type(event).__name__
    return {
        "type": name,
        "schema": str(SCHEMA[name]),
        "game": game,
        "seq": str(seq),
        "at": at or now(),
        "actor": actor,
        "command": command,
        "meta": meta,
        "data": orjson.dumps(payload(event)).decode(),
    }


def from_record(record: Mapping[str, str]) -> StoredEvent:
    """Read a stored record, upcasting its payload to the current schema."""
    name = record["type"]
    version = int(record["schema"])
    data = upcast(name, version, orjson.loads(record["data"]))
    return StoredEvent(
        game=record["game"],
        seq=int(record["seq"]),
        type=name,
        schema=SCHEMA[name],
        at=record["at"],
        actor=record["actor"],
        command=record.get("command", ""),
        meta=record.get("meta", "{}"),
        event=decode(name, data),
    )
