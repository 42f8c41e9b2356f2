"""openapi.yaml is generated from the schemas, committed, current, served, and enforced."""

from __future__ import annotations

from pathlib import Path

import pytest
from openapi_core.validation.response.exceptions import InvalidData
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Response

from service.openapi import render

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_openapi_yaml_is_current():
    assert (ROOT / "openapi.yaml").read_text() == render(), "run: python -m service.openapi"


def test_the_document_and_an_offline_docs_page_are_served(api):
    assert api.get("/openapi.yaml").get_data(as_text=True) == (ROOT / "openapi.yaml").read_text()
    page = api.get("/docs").get_data(as_text=True)
    assert "/docs/assets/swagger-ui-bundle.js" in page and "http" not in page.split("<body>")[1].replace(
        "/openapi.yaml", ""
    )
    assert api.http.get("/docs/assets/swagger-ui-bundle.js").status_code == 200


def test_the_response_checker_rejects_a_response_that_breaks_the_contract(api):
    request = EnvironBuilder(path="/healthz", method="GET").get_request()
    with pytest.raises(InvalidData):
        api.check(request, Response('{"nope": 1}', mimetype="application/json"))


def test_health_and_readiness(api):
    assert api.get("/healthz").json == {"status": "ok"}
    ready = api.get("/readyz").json
    assert ready["status"] == "ready" and ready["redis"]["status"] == "unknown"  # a client given by the test


def test_the_service_serves_the_rulings_and_links_them_from_the_docs(api):
    page = api.http.get("/rulings")
    assert (
        page.status_code == 200
        and page.mimetype == "text/markdown"
        and page.get_data(as_text=True) == (ROOT / "docs" / "rulings.md").read_text()
    )
    assert 'href="/rulings"' in api.get("/docs").get_data(as_text=True)
    assert "/rulings" in api.get("/openapi.yaml").get_data(as_text=True)


def test_the_document_is_served_as_json_too_and_is_openapi_3_1_with_webhooks(api):
    import yaml

    doc = api.http.get("/openapi.json").get_json()
    assert doc == yaml.safe_load((ROOT / "openapi.yaml").read_text())
    assert doc["openapi"].startswith("3.1") and set(doc["webhooks"]) == {
        "turn.started",
        "turn.deadline_near",
        "game.ended",
        "event",
    }
