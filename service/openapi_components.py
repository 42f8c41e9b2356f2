"""The parts of openapi.yaml that many operations share, written once under ``components``.

service/openapi.py first writes every operation out in full; this module then keeps the
browser's pages apart (``x-pages``: generators make no client methods for them, the tests still
check the pages' answers) and replaces each shared header, problem response and parameter by a
``$ref`` to its one copy. A problem response that carries a recorded example stays inline: the
example is that operation's own, under the status it was answered with.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

#: Media types only a browser asks for: an operation answering one of them is a page.
PAGE_MEDIA = ("text/html", "text/javascript", "application/manifest+json")
PAGES = "x-pages"  #: where the pages are documented, beside ``paths``
PROBLEM_MEDIA = "application/problem+json"
#: Header parameters shared by name even where only one operation takes them.
SHARED_PARAMETERS = ("X-Request-ID", "Idempotency-Key", "If-Match")
LONG_EXAMPLE = 40  #: an answer's example longer than this many lines is written under components/examples


def pages_apart(document: dict[str, Any]) -> None:
    """Move the page operations from ``paths`` to ``x-pages`` (same shape), which client
    generators and schemathesis ignore."""
    pages: dict[str, dict[str, Any]] = {}
    for path, item in list(document["paths"].items()):
        for method, operation in list(item.items()):
            if any(media in PAGE_MEDIA for r in operation["responses"].values() for media in r.get("content", {})):
                pages.setdefault(path, {})[method] = item.pop(method)
        if not item:
            del document["paths"][path]
    document[PAGES] = pages


def operations(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Every operation, the API's and the pages'."""
    return [op for part in ("paths", PAGES) for item in document.get(part, {}).values() for op in item.values()]


def share(document: dict[str, Any], headers: dict[str, tuple[str, dict[str, Any]]]) -> None:
    """Refer to ``headers`` (component name -> (header name, definition)), to one component per
    distinct problem response and to the shared parameters instead of repeating them."""
    every = operations(document)
    uses = Counter(json.dumps(p, sort_keys=True) for op in every for p in op.get("parameters", []))
    in_path = {p["name"] for op in every for p in op.get("parameters", []) if p["in"] == "path"}
    found: dict[str, dict[str, Any]] = {"parameters": {}, "headers": {}, "responses": {}}
    for operation in every:
        for status, response in operation["responses"].items():
            for header, definition in list(response.get("headers", {}).items()):
                name = next((n for n, shared in headers.items() if shared == (header, definition)), None)
                if name is not None:
                    response["headers"][header] = _add(found["headers"], "headers", name, definition)
            if _shared_problem(response):
                name = _problem_name(status, response)
                operation["responses"][status] = _add(found["responses"], "responses", name, response)
        if "parameters" in operation:
            operation["parameters"] = [
                _add(found["parameters"], "parameters", _parameter_name(p, in_path), p) if _shared(p, uses) else p
                for p in operation["parameters"]
            ]
    document["components"].update(found)


def examples_apart(document: dict[str, Any], lines: Callable[[Any], int]) -> None:
    """Write each long example of an answer under ``components/examples`` (named by its operation),
    so that an operation reads at a glance; ``lines`` counts an example's lines in the document."""
    found: dict[str, Any] = {}
    for operation in operations(document):
        for status, response in operation["responses"].items():
            for content in response.get("content", {}).values():
                if "example" in content and lines(content["example"]) > LONG_EXAMPLE:
                    name = operation["operationId"] if status.startswith("2") else f"{operation['operationId']}{status}"
                    content["examples"] = {name: _add(found, "examples", name, {"value": content.pop("example")})}
    document["components"]["examples"] = found


def _add(part: dict[str, Any], kind: str, name: str, value: dict[str, Any]) -> dict[str, str]:
    """A reference to ``value`` as ``name`` in ``part`` (numbered when another value has the name)."""
    name = next(n for n in (name, *(f"{name}{i}" for i in range(2, 100))) if part.get(n, value) == value)
    part[name] = value
    return {"$ref": f"#/components/{kind}/{name}"}


def _shared_problem(response: dict[str, Any]) -> bool:
    """A problem response without an example of its own."""
    content = response.get("content", {})
    return set(content) == {PROBLEM_MEDIA} and "example" not in content[PROBLEM_MEDIA]


def _problem_name(status: str, response: dict[str, Any]) -> str:
    """``NotFound``; ``NotFoundUnlimited`` where no rate limit applies; ``ConflictWithETag`` where the
    problem names the game's version."""
    name = "".join(word.capitalize() for word in HTTPStatus(int(status)).phrase.replace("-", " ").split())
    headers = response.get("headers", {})
    return name + ("" if "RateLimit-Limit" in headers else "Unlimited") + ("WithETag" if "ETag" in headers else "")


def _shared(parameter: dict[str, Any], uses: Counter[str]) -> bool:
    """A path parameter, a common header, or one that more than one operation takes."""
    if parameter["in"] == "path" or parameter["name"] in SHARED_PARAMETERS:
        return True
    return uses[json.dumps(parameter, sort_keys=True)] > 1


def _parameter_name(parameter: dict[str, Any], in_path: set[str]) -> str:
    """The parameter's name; ``token.query`` for a query parameter named as a path parameter is."""
    name = parameter["name"]
    return f"{name}.query" if parameter["in"] == "query" and name in in_path else name
