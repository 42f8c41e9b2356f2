"""A deprecated operation says so (service/deprecation.py): ``deprecated: true`` and its dates in
the document, and ``Deprecation`` (RFC 9745), ``Sunset`` (RFC 8594) and ``Link; rel="deprecation"``
on every answer it declares, the headers written once under ``components/headers``. No operation
of the service is deprecated today, so a test-only one is declared on an app of its own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

import pytest
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Blueprint, Flask, Response

from service import openapi_components
from service.deprecation import HEADERS, NOTICE, Deprecated
from service.openapi import paths, shared_headers
from service.operation import DECLARED, Operation, Reply
from service.schemas.meta import Health

ROOT = Path(__file__).resolve().parents[2]
SINCE = datetime(2026, 11, 27, tzinfo=UTC)
SUNSET = datetime(2027, 5, 30, tzinfo=UTC)


@pytest.fixture
def old_and_new():
    """A deprecated operation (200 with a body, 204 without) and its replacement, on an app of their own."""
    blueprint = Blueprint("versions_example", __name__)
    deprecated = Operation(
        blueprint,
        "get",
        "/old-health",
        id="oldHealth",
        tag="service",
        summary="The old way to ask.",
        responses={200: Reply("OK", Health), 204: Reply("Nothing to say.")},
        deprecated=Deprecated(SINCE, SUNSET, "Use `GET /new-health`."),
    )
    current = Operation(
        blueprint, "get", "/new-health", id="newHealth", tag="service", summary="Ask.", responses={200: Reply("OK")}
    )

    @deprecated
    def old_health() -> object:
        return {"status": "ok"}

    @Operation(
        blueprint,
        "get",
        "/old-health/quiet",
        id="oldQuiet",
        tag="service",
        summary="The old way, quietly.",
        responses={204: Reply("Nothing to say.")},
        deprecated=Deprecated(SINCE, SUNSET, "Use `GET /new-health`."),
    )
    def old_quiet() -> Response:
        return Response(status=204)

    @current
    def new_health() -> object:
        return Response("{}", mimetype="application/json")

    app = Flask(__name__)
    app.register_blueprint(blueprint)
    declared = DECLARED[-3:]
    yield app.test_client(), declared
    for operation in declared:  # the service's own list stays the service's
        DECLARED.remove(operation)


def test_a_deprecated_operation_answers_with_deprecation_sunset_and_a_link_to_the_changelog(old_and_new):
    client, _ = old_and_new
    for path, status in (("/old-health", 200), ("/old-health/quiet", 204)):
        answer = client.get(path)
        assert answer.status_code == status
        assert answer.headers["Deprecation"] == f"@{int(SINCE.timestamp())}" == "@1795737600"  # RFC 9745's date
        assert parsedate_to_datetime(answer.headers["Sunset"]) == SUNSET  # RFC 8594's HTTP-date
        assert answer.headers["Sunset"] == "Sun, 30 May 2027 00:00:00 GMT"
        assert answer.headers["Link"] == '</changelog>; rel="deprecation"; type="text/markdown"'
    assert client.get("/old-health").json == {"status": "ok"}
    current = client.get("/new-health")
    assert current.status_code == 200 and not {"Deprecation", "Sunset", "Link"} & set(current.headers.keys())


def test_the_document_marks_it_deprecated_and_refers_to_the_headers_written_once(old_and_new):
    _, declared = old_and_new
    plugin = MarshmallowPlugin()
    APISpec("example", "1.0.0", "3.1.0", plugins=[plugin])
    assert plugin.converter is not None
    document = {"paths": paths(plugin.converter, declared), "components": {}}
    old = document["paths"]["/old-health"]["get"]
    assert old["deprecated"] is True and "since 2026-11-27" in old["description"] and "2027-05-30" in old["description"]
    assert "Use `GET /new-health`." in old["description"]
    assert "deprecated" not in document["paths"]["/new-health"]["get"]
    openapi_components.share(document, shared_headers())
    references = {
        "Deprecation": {"$ref": "#/components/headers/Deprecation"},
        "Sunset": {"$ref": "#/components/headers/Sunset"},
        "Link": {"$ref": "#/components/headers/DeprecationLink"},
    }
    for operation in (old, document["paths"]["/old-health/quiet"]["get"]):
        for response in operation["responses"].values():
            assert references.items() <= response["headers"].items()
    assert document["components"]["headers"] == {name: definition for name, (_, definition) in HEADERS.items()}


def test_a_deprecation_is_in_utc_and_gives_clients_180_days_before_its_sunset():
    with pytest.raises(ValueError):
        Deprecated(datetime(2026, 11, 27), SUNSET, "naive")
    with pytest.raises(ValueError, match="180 days"):
        Deprecated(SINCE, SINCE + NOTICE - timedelta(seconds=1), "too soon")
    assert Deprecated(SINCE, SINCE + NOTICE, "just enough").sunset == SINCE + NOTICE


def test_the_changelog_the_link_leads_to_is_served(api):
    answer = api.get("/changelog")
    assert answer.status_code == 200 and answer.mimetype == "text/markdown"
    assert answer.get_data(as_text=True) == (ROOT / "CHANGELOG.md").read_text()


def test_a_script_on_another_origin_may_read_the_deprecation_headers(api):
    answer = api.get("/healthz", headers={"Origin": "https://player.example"})
    exposed = {name.strip().lower() for name in answer.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"deprecation", "sunset", "link"} <= exposed
