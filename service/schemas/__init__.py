"""Marshmallow schemas: the one source of the API's shapes, one module per feature (``common``
holds what they share). ``openapi.yaml`` is generated from them (service/openapi.py), requests
are validated by them, and every response is dumped through them.

A schema's class name is its component's name in openapi.yaml, and the components are the
schemas the document refers to (``declared`` finds them by name), so no two may share a name."""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil

from marshmallow import Schema


@functools.cache
def declared() -> dict[str, type[Schema]]:
    """Every schema class of this package's modules, by its name."""
    found: dict[str, type[Schema]] = {}
    for module in pkgutil.iter_modules(__path__, f"{__name__}."):
        for name, value in inspect.getmembers(importlib.import_module(module.name), inspect.isclass):
            if issubclass(value, Schema) and value.__module__ == module.name:
                if name in found:
                    raise ValueError(f"two schemas are named {name}: {found[name].__module__} and {module.name}")
                found[name] = value
    return found
