"""The service itself: this document, its changelog, the rulings, the building catalogue, health, and the
play-by-web pages. Two blueprints: ``meta`` is part of the rate-limited API; ``pages`` holds
the static documents and pages, which are not limited."""

from __future__ import annotations

import functools
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import swagger_ui
import yaml
from flask import Blueprint, Response, current_app, send_from_directory

from domain.catalogue import BUILDINGS

from ..deprecation import CHANGELOG_PATH
from ..operation import PROBLEM, Answer, Operation, Reply
from ..problems import unavailable
from ..schemas.meta import Catalogue, Health
from ..web_pages import web_page

meta = Blueprint("meta", __name__)
pages = Blueprint("pages", __name__)
ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(__file__).resolve().parents[1]
WEB = PACKAGE / "web"
SWAGGER_UI = Path(swagger_ui.__file__).parent / "static"  #: Swagger UI 5's own files, as the package installs them
HTML = {"text/html": {"schema": {"type": "string"}}}
A_DAY = "public, max-age=86400"


@functools.cache
def _catalogue() -> dict[str, Any]:
    """The building catalogue as served: built once, it never changes while the process runs."""
    buildings = [
        {
            "building": b.id,
            "name": b.name,
            "spaces": [{"colour": s.colour.value if s.colour else "any", "value": s.value} for s in b.spaces],
            "majority": asdict(b.majority),
            "construction": asdict(b.construction),
            "neighbourhood": asdict(b.neighbourhood),
            "expansion": b.expansion,
            "starting": b.starting,
        }
        for b in BUILDINGS.values()
    ]
    return {"buildings": buildings}


@Operation(
    meta,
    "get",
    "/catalogue",
    id="catalogue",
    tag="service",
    summary="Every building's spaces and rewards (static: cacheable for a day).",
    responses={
        200: Reply(
            "The building catalogue",
            Catalogue,
            headers={"Cache-Control": {"schema": {"type": "string"}, "example": A_DAY}},
        )
    },
)
def catalogue() -> Answer:
    """Every building's spaces and rewards (R14): a client needs them to weigh where to build."""
    return _catalogue(), {"Cache-Control": A_DAY}


@Operation(
    meta,
    "get",
    "/healthz",
    id="health",
    tag="service",
    summary="The process is up.",
    responses={200: Reply("OK", Health)},
)
def healthz() -> Answer:
    return {"status": "ok"}


@Operation(
    meta,
    "get",
    "/readyz",
    id="ready",
    tag="service",
    summary="Redis is reachable; `redis` says whether every node is configured to keep games, as it is now.",
    responses={200: Reply("Ready", Health)},
    problems=(503,),
    rate_limited=False,
)
def readyz() -> Answer:
    """Ready when everything the process needs answers (service/readiness.py: the game store and
    the job queue's Redis); reports whether the store keeps games and which shard lacks replicas
    (checked again at most every 5 s: LiveCheck). A shard short of replicas refuses only its own
    writes, so it does not make the process unready."""
    failing = current_app.extensions["readiness"].failing()
    if failing:
        return unavailable(f"unreachable: {', '.join(failing)}")
    return {"status": "ready", "redis": current_app.extensions["redis_check"]()}


@Operation(
    pages,
    "get",
    "/openapi.yaml",
    id="openapi",
    tag="service",
    summary="This document.",
    responses={
        200: Reply(
            "OpenAPI 3.1",
            {"application/yaml": {"schema": {"type": "object", "description": "This document as YAML."}}},
            headers={
                "ETag": {
                    "description": "The document's version: send it in If-None-Match.",
                    "schema": {"type": "string"},
                }
            },
        ),
        304: Reply("Not modified since the If-None-Match ETag."),
    },
)
def openapi() -> Answer:
    return send_from_directory(ROOT, "openapi.yaml", mimetype="application/yaml")


@Operation(
    pages,
    "get",
    "/openapi.json",
    id="openapiJson",
    tag="service",
    summary="This document, as JSON.",
    responses={200: Reply("OpenAPI 3.1", {"application/json": {"schema": {"type": "object"}}})},
)
def openapi_json() -> Answer:
    """The same document as JSON, for tools that want it so."""
    if "openapi_json" not in current_app.extensions:  # libyaml's safe loader: 0.5 s, not 2.2 s (11,500 lines)
        document = yaml.load((ROOT / "openapi.yaml").read_text(), Loader=yaml.CSafeLoader)
        current_app.extensions["openapi_json"] = json.dumps(document)
    return Response(current_app.extensions["openapi_json"], mimetype="application/json")


@Operation(
    pages,
    "get",
    "/rulings",
    id="rulings",
    tag="service",
    summary="The rulings the service plays by, with the building catalogue.",
    responses={200: Reply("Markdown", {"text/markdown": {"schema": {"type": "string"}}})},
)
def rulings() -> Answer:
    """The rulings the service plays by (docs/rulings.md), as Markdown."""
    return send_from_directory(ROOT / "docs", "rulings.md", mimetype="text/markdown")


@Operation(
    pages,
    "get",
    CHANGELOG_PATH,
    id="changelog",
    tag="service",
    summary="What changed in the API, version by version (Keep a Changelog), and what is deprecated.",
    responses={
        200: Reply(
            "Markdown",
            {"text/markdown": {"schema": {"type": "string"}}},
            headers={
                "ETag": {
                    "description": "The changelog's version: send it in If-None-Match to poll for a new one.",
                    "schema": {"type": "string"},
                }
            },
        ),
        304: Reply("Not changed since the If-None-Match ETag."),
    },
)
def changelog() -> Answer:
    """CHANGELOG.md as Markdown: where a deprecated operation's Link (rel="deprecation") leads."""
    return send_from_directory(ROOT, "CHANGELOG.md", mimetype="text/markdown")


@Operation(
    pages,
    "get",
    "/",
    id="lobby",
    tag="service",
    summary="The play-by-web lobby: create a game, share its seats, list your games.",
    responses={200: Reply("HTML", HTML)},
)
def lobby() -> Answer:
    """The play-by-web lobby: plain files that use only the public API."""
    return web_page("index.html")


@Operation(
    pages,
    "get",
    "/ratings",
    id="ratingsPage",
    tag="service",
    summary="The leaderboard page, each bot level's strength, and a player's profile (`#player=…`).",
    responses={200: Reply("HTML", HTML)},
)
def ratings_page() -> Answer:
    return web_page("ratings.html")


@Operation(
    pages,
    "get",
    "/tournaments-page",
    id="tournamentsPage",
    tag="service",
    summary="The tournaments page: the list, one tournament (`#tournament=…`: standings, rounds, games) and a form.",
    responses={200: Reply("HTML", HTML)},
)
def tournaments_page() -> Answer:
    return web_page("tournaments.html")


@Operation(
    pages,
    "get",
    "/play/{game}",
    id="playPage",
    tag="service",
    summary="A seat's page (`#token=…` in the fragment) or a spectator's, built on this API alone.",
    responses={200: Reply("HTML", HTML), 404: Reply("Not a game id the service makes.", PROBLEM)},
)
def play_page(game: str) -> Answer:
    return web_page("play.html")


@Operation(
    pages,
    "get",
    "/sw.js",
    id="serviceWorker",
    tag="service",
    summary="The pages' service worker (scope `/`): shows the turn alerts pushed to a subscribed browser and opens "
    "the game when one is clicked.",
    responses={200: Reply("JavaScript", {"text/javascript": {"schema": {"type": "string"}}})},
)
def service_worker() -> Answer:
    """Served at the root, so that its scope covers every page without a Service-Worker-Allowed header."""
    return _in_hand(send_from_directory(WEB, "sw.js", mimetype="text/javascript"))


@Operation(
    pages,
    "get",
    "/manifest.webmanifest",
    id="webManifest",
    tag="service",
    summary="The web app manifest: the pages installed on a phone's home screen, with their name and icons.",
    responses={200: Reply("Web app manifest", {"application/manifest+json": {"schema": {"type": "object"}}})},
)
def web_manifest() -> Answer:
    return _in_hand(send_from_directory(WEB, "manifest.webmanifest", mimetype="application/manifest+json"))


def _in_hand(asset: Response) -> Response:
    """A file's answer with its body in hand, not a file stream (flask-compress skips streams)."""
    asset.direct_passthrough = False
    asset.set_data(asset.get_data())
    return asset


@pages.get("/web/<path:name>")
def web_assets(name: str) -> Response:
    """The pages' scripts and styles, compressed like the API's answers (a file passed straight
    through would not be) and revalidated by ETag (``no-cache``), so a new release is seen at once."""
    return _in_hand(send_from_directory(WEB, name))


@Operation(
    pages,
    "get",
    "/docs",
    id="docs",
    tag="service",
    summary="Interactive documentation (works offline).",
    responses={200: Reply("HTML", HTML)},
)
def docs() -> Answer:
    return Response((PACKAGE / "docs.html").read_text(), mimetype="text/html")


@pages.get("/docs/assets/<path:name>")
def docs_assets(name: str) -> Response:
    """Swagger UI's files, served from the installed package so /docs works offline."""
    return send_from_directory(SWAGGER_UI, name)
