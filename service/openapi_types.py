"""The typed parts of openapi.yaml that client generators need and marshmallow cannot say.

- Commands: one schema per command type and a ``oneOf`` discriminated on ``type``, derived from
  the ``Command`` schema and ``COMMAND_FIELDS`` (the same table that validates requests).
- Events: one payload schema per event type, derived from the domain's dataclasses, and an
  envelope ``oneOf`` discriminated on ``type``.
- A person's news: one envelope per type (``PersonEvent``), each with its ``data`` schema
  (service/schemas/person_stream.py) and an example recorded from the real API.
- Enums: the card, tile, building and colour lists become named components, and a nullable one
  is spelled ``anyOf: [$ref, {type: 'null'}]``, so a generator makes one enum and an optional.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
import typing
from typing import Any

from domain import EVENT_TYPES
from domain.catalogue import BUILDINGS
from domain.commands import COMMAND_FIELDS as FIELD_RULES

from .schemas.common import CARD_IDS, COLOURS, LEVELS, TILES
from .schemas.feeds import EventMeta
from .schemas.person_stream import PERSON_EVENT_DATA
from .schemas.play import COMMAND_FIELDS

REF = "#/components/schemas/"

#: Enumerations worth a name: an inline enum with exactly these values becomes a $ref.
NAMED_ENUMS: dict[str, list[Any]] = {
    "CardId": CARD_IDS,
    "Tile": TILES,
    "Building": sorted(BUILDINGS),
    "Colour": COLOURS,
    "BotLevel": LEVELS,
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF + name}


def _title(command: str) -> str:
    return "".join(part.title() for part in command.split("_")) + "Command"


def name_enums(document: dict[str, Any]) -> None:
    """Spell enums for generators, in place: one matching a named list becomes a reference, and
    a nullable one ``anyOf: [enum or $ref, {type: 'null'}]`` (one class and an optional)."""
    schemas = document["components"]["schemas"]
    for name, values in NAMED_ENUMS.items():
        schemas[name] = {"type": "string", "enum": list(values)}
    named = {tuple(sorted(v)): name for name, v in NAMED_ENUMS.items()}

    def spelled(node: dict[str, Any]) -> dict[str, Any]:
        values = [v for v in node["enum"] if v is not None]
        kinds = node.get("type", "string")
        kinds = [kinds] if isinstance(kinds, str) else kinds
        nullable = None in node["enum"] or "null" in kinds
        rest = {k: v for k, v in node.items() if k not in ("enum", "type")}
        name = named.get(tuple(sorted(values)))
        enum = _ref(name) if name else {"type": next(k for k in kinds if k != "null"), "enum": values}
        if nullable:
            return {"anyOf": [enum, {"type": "null"}], **rest}
        if name is None:
            return node
        return {"allOf": [enum], **rest} if rest else enum

    def visit(node: Any) -> Any:
        if isinstance(node, list):
            return [visit(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "enum" in node:
            return spelled(node)
        return {k: visit(v) for k, v in node.items()}

    for name in list(schemas):
        if name not in NAMED_ENUMS:
            schemas[name] = {k: visit(v) for k, v in schemas[name].items()}  # a top-level enum keeps its own


def command_variants(document: dict[str, Any]) -> None:
    """Split the flat ``Command`` into one schema per type and a discriminated ``oneOf``."""
    schemas = document["components"]["schemas"]
    flat = schemas.pop("Command")
    request = schemas.pop("CommandRequest")
    expected = request["properties"]["expected_version"]
    mapping = {}
    for command, fields in COMMAND_FIELDS.items():
        name = _title(command)
        properties: dict[str, Any] = {"type": {"type": "string", "const": command}}
        properties.update(
            {
                field: flat["properties"][field]
                if FIELD_RULES[command][field].nullable
                else _not_null(flat["properties"][field])
                for field in fields
            }
        )
        properties["expected_version"] = {  # no default: generators would make it required
            **{k: v for k, v in expected.items() if k != "default"},
            "description": "Only when posting: the version you played against (or send If-Match). "
            "Never in /legal's list.",
        }
        schemas[name] = {
            "type": "object",
            "properties": properties,
            "required": ["type", *(f for f, required in fields.items() if required)],
            "additionalProperties": False,
        }
        mapping[command] = REF + name
    schemas["Command"] = {
        "description": flat.get("description", ""),
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    _replace_refs(document, REF + "CommandRequest", REF + "Command")


def _not_null(schema: dict[str, Any]) -> dict[str, Any]:
    """A shared field's schema in a command that takes no null for it (``move``'s ``to``)."""
    kept = dict(schema)
    if isinstance(kept.get("type"), list):
        types_kept = [t for t in kept["type"] if t != "null"]
        kept["type"] = types_kept[0] if len(types_kept) == 1 else types_kept
    if "enum" in kept:
        kept["enum"] = [v for v in kept["enum"] if v is not None]
    return kept


def _replace_refs(node: Any, old: str, new: str) -> None:
    if isinstance(node, dict):
        if node.get("$ref") == old:
            node["$ref"] = new
        for value in node.values():
            _replace_refs(value, old, new)
    elif isinstance(node, list):
        for value in node:
            _replace_refs(value, old, new)


def _json_schema(hint: Any) -> dict[str, Any]:
    """The JSON Schema of an event field's type: primitives, ``X | None`` and tuples."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        inner = _json_schema(options[0])
        if isinstance(inner.get("type"), str) and "items" not in inner and "prefixItems" not in inner:
            return {"type": [inner["type"], "null"]}
        return {"anyOf": [inner, {"type": "null"}]}
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _json_schema(args[0])}
        return {
            "type": "array",
            "prefixItems": [_json_schema(a) for a in args],
            "minItems": len(args),
            "maxItems": len(args),
        }
    return {int: {"type": "integer"}, str: {"type": "string"}, bool: {"type": "boolean"}}[hint]


_NOTE = re.compile(r"^\s+(\w+):.*#:\s*(.+)$")


def _field_notes(cls: type) -> dict[str, str]:
    """The ``#:`` comments on a dataclass's fields, which say what each field means."""
    return {m.group(1): m.group(2) for m in map(_NOTE.match, inspect.getsource(cls).splitlines()) if m}


def event_variants(document: dict[str, Any]) -> None:
    """One payload schema per event type and an ``Event`` envelope discriminated on ``type``."""
    schemas = document["components"]["schemas"]
    envelope = schemas.pop("Event")
    schemas["EventMeta"]["description"] = " ".join((EventMeta.__doc__ or "").split())
    schemas["EventMeta"]["additionalProperties"] = True  # fields a later version adds
    mapping = {}
    for type_name, cls in EVENT_TYPES.items():
        hints = typing.get_type_hints(cls)
        notes = _field_notes(cls)
        properties = {}
        for field in dataclasses.fields(cls):
            properties[field.name] = _json_schema(hints[field.name])
            if field.name in notes:
                properties[field.name]["description"] = notes[field.name]
        data: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "required": [f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING],
        }
        if cls.__doc__ and not cls.__doc__.startswith(type_name + "("):  # not the dataclass's generated one
            data["description"] = " ".join(cls.__doc__.split())
        schemas[type_name + "Data"] = data
        schemas[type_name + "Event"] = {
            "type": "object",
            "properties": {
                **envelope["properties"],
                "type": {"type": "string", "const": type_name},
                "data": _ref(type_name + "Data"),
            },
            "required": envelope["required"],
        }
        mapping[type_name] = REF + type_name + "Event"
    schemas["Event"] = {
        "description": envelope.get("description", "An event, redacted for the caller; `type` says which."),
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }


def person_event_data() -> list[dict[str, str]]:
    """References to each type's ``data`` schema of a person's news, which make them components."""
    return [_ref(schema.__name__) for schema in PERSON_EVENT_DATA.values()]


def person_event_variants(document: dict[str, Any], examples: dict[str, Any]) -> None:
    """``PersonEvent`` as a ``oneOf`` of one envelope per type, discriminated on ``type``, each with
    its ``data`` schema and ``examples`` (type -> an event of that type) as its example."""
    schemas = document["components"]["schemas"]
    envelope = schemas.pop("PersonEvent")
    mapping = {}
    for type_name, data in PERSON_EVENT_DATA.items():
        name = "Person" + "".join(part.title() for part in re.split(r"[._]", type_name)) + "Event"
        schemas[name] = {
            "type": "object",
            "properties": {
                **envelope["properties"],
                "type": {"type": "string", "const": type_name},
                "data": _ref(data.__name__),
            },
            "required": envelope["required"],
            "examples": [examples[type_name]],
        }
        mapping[type_name] = REF + name
    schemas["PersonEvent"] = {
        "description": envelope.get("description", ""),
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
