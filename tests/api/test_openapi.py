"""openapi.yaml is generated from the schemas, committed, current, served, and enforced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openapi_core.validation.response.exceptions import InvalidData
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Response

from cli.write_openapi import document

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_openapi_yaml_is_current():
    assert (ROOT / "openapi.yaml").read_text() == document(), "run: python -m cli.write_openapi"


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


def test_the_building_catalogue_is_served_as_data_a_client_can_weigh_moves_with(api):
    from domain.catalogue import BUILDINGS

    answer = api.get("/catalogue")
    assert answer.status_code == 200 and "max-age=86400" in answer.headers["Cache-Control"]
    listed = {b["building"]: b for b in answer.json["buildings"]}
    assert list(listed) == list(BUILDINGS) and len(listed) == 24
    mill = listed["mill"]
    spec = BUILDINGS["mill"]
    assert mill["name"] == spec.name and [(s["colour"], s["value"]) for s in mill["spaces"]] == [("red", 4), ("red", 3)]
    assert (mill["majority"]["crystals"], mill["construction"]["cards"]) == (
        spec.majority.crystals,
        spec.construction.cards,
    )
    assert listed["royal_palace"]["spaces"][0]["colour"] == "any" and listed["royal_palace"]["starting"] is True
    assert listed["theatre"]["expansion"] is True and listed["mill"]["expansion"] is False


def test_the_document_is_served_as_json_too_and_is_openapi_3_1_with_webhooks(api):
    import yaml

    doc = api.http.get("/openapi.json").get_json()
    assert doc == yaml.safe_load((ROOT / "openapi.yaml").read_text())
    assert doc["openapi"].startswith("3.1") and set(doc["webhooks"]) == {
        "turn.started",
        "turn.deadline_near",
        "game.ended",
        "event",
        "chat.message",
        "webhook.test",
    }


def test_every_schema_an_operation_or_a_webhook_names_is_a_component_made_from_its_class():
    """The components are derived from the document (service/openapi.py), not listed by hand:
    each schema an operation takes or answers with, the problem and the webhooks' message is a
    component under its class name, with that class's fields, and every reference finds one."""
    from service.openapi import described, referred_to
    from service.routes import OPERATIONS
    from service.schemas.common import Problem
    from service.schemas.webhooks import WebhookMessage

    document, webhooks = described()
    components = document["components"]["schemas"]
    named = [operation.body for operation in OPERATIONS]
    named += [reply.body for operation in OPERATIONS for reply in operation.responses.values()]
    for schema in {s for s in named if isinstance(s, type)} | {Problem, WebhookMessage}:
        fields = {field.data_key or name for name, field in schema().fields.items()}
        assert set(components.get(schema.__name__, {}).get("properties", {"missing"})) == fields, schema.__name__
    assert set(referred_to(document, webhooks)) <= set(components)


# -- a typed contract (what generated clients rely on) ----------------------------------------


def _written():
    import yaml

    return yaml.safe_load((ROOT / "openapi.yaml").read_text())


def _document():
    """openapi.yaml as a reader takes it in: the pages among the paths, every header, parameter,
    problem response and example it refers to under ``components`` written in place (the
    schemas stay referred to), so that the checks below see each operation whole."""
    from tests.api.client import api_and_pages

    document = api_and_pages()
    components = document["components"]

    def whole(node):
        if isinstance(node, list):
            return [whole(v) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref", "")
        if ref.startswith("#/components/") and not ref.startswith("#/components/schemas/"):
            _, _, kind, name = ref.split("/")
            return whole(components[kind][name])
        found = {k: whole(v) for k, v in node.items()}
        if "examples" in found and "schema" in found:  # a media type's one example, as `example`
            (example,) = found.pop("examples").values()
            found["example"] = example["value"]
        return found

    document["paths"] = whole(document["paths"])
    return document


def test_the_command_body_is_a_oneof_discriminated_on_type_with_each_commands_own_fields():
    from service.schemas.play import COMMAND_FIELDS

    schemas = _document()["components"]["schemas"]
    command = schemas["Command"]
    assert command["discriminator"]["propertyName"] == "type"
    assert set(command["discriminator"]["mapping"]) == set(COMMAND_FIELDS)
    for name, ref in command["discriminator"]["mapping"].items():
        variant = schemas[ref.rsplit("/", 1)[1]]
        assert variant["properties"]["type"] == {"type": "string", "const": name}
        assert set(variant["properties"]) == {"type", "expected_version", *COMMAND_FIELDS[name]}
        assert set(variant["required"]) == {"type", *(f for f, req in COMMAND_FIELDS[name].items() if req)}
        assert variant["additionalProperties"] is False
    assert _document()["paths"]["/games/{game}/commands"]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ] == {"$ref": "#/components/schemas/Command"}


def test_every_event_type_has_its_own_schema_and_the_envelope_is_discriminated():
    from domain import EVENT_TYPES

    schemas = _document()["components"]["schemas"]
    event = schemas["Event"]
    assert event["discriminator"]["propertyName"] == "type" and set(event["discriminator"]["mapping"]) == set(
        EVENT_TYPES
    )
    for name in EVENT_TYPES:
        data = schemas[f"{name}Data"]
        assert set(data["properties"]) == set(EVENT_TYPES[name].__dataclass_fields__)
        assert schemas[f"{name}Event"]["properties"]["data"] == {"$ref": f"#/components/schemas/{name}Data"}


def test_an_event_whose_data_breaks_its_types_schema_is_caught_by_the_contract_check(api):
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    g, token = created["game"], created["seats"][0]["token"]
    page = api.get(f"/games/{g}/events", token=token)
    body = page.get_json()
    dealt = next(e for e in body["events"] if e["type"] == "CardsDealt")
    dealt["data"]["count"] = "three"  # a string where CardsDealtData says integer
    request = EnvironBuilder(path=f"/games/{g}/events", method="GET").get_request()
    with pytest.raises(InvalidData):
        api.check(request, Response(json.dumps(body), mimetype="application/json"))


def _walk(node, path=""):
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from _walk(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}/{i}")


def test_nullable_values_are_spelled_for_generators_one_enum_and_an_optional():
    document = _document()
    for path, node in _walk(document["components"]):
        assert "nullable" not in node, path  # OpenAPI 3.0's spelling
        assert None not in (node.get("enum") or []), path  # a null inside an enum makes three enum classes
        if "anyOf" in node and {"type": "null"} in node["anyOf"]:
            others = [o for o in node["anyOf"] if o != {"type": "null"}]
            assert len(others) == 1 and ("$ref" in others[0] or "enum" in others[0] or "type" in others[0]), path
            assert others[0] != {"type": "object"}, path  # no empty models


def test_every_operation_has_an_id_a_tag_a_summary_examples_and_its_statuses():
    document = _document()
    tags = {t["name"] for t in document["tags"]}
    for route, item in document["paths"].items():
        for method, operation in item.items():
            where = f"{method.upper()} {route}"
            assert operation["operationId"] and operation["summary"], where
            assert len(operation["tags"]) == 1 and operation["tags"][0] in tags, where
            if "requestBody" in operation:
                assert "example" in operation["requestBody"]["content"]["application/json"], where
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path":
                    assert "example" in parameter, where
            ok = [r for status, r in operation["responses"].items() if status.startswith("2") and "content" in r]
            assert all("example" in next(iter(r["content"].values())) for r in ok), where
            statuses = set(operation["responses"])
            assert {"500", "414"} <= statuses, where
            if operation["tags"] != ["service"]:  # everything but the static documents reads Redis
                assert "503" in statuses, where
            assert all("X-Request-ID" in r.get("headers", {}) for r in operation["responses"].values()), where


def test_the_examples_are_real_answers_that_match_their_schemas():
    """The recorded examples validate against their own schemas (3.1 = JSON Schema 2020-12)."""
    import jsonschema

    document = _document()
    checked = 0
    for item in document["paths"].values():
        for operation in item.values():
            for response in operation["responses"].values():
                for media, content in (response.get("content") or {}).items():
                    if "example" not in content or "json" not in media:
                        continue
                    schema = {**content["schema"], "components": document["components"]}
                    jsonschema.Draft202012Validator(schema).validate(content["example"])
                    checked += 1
    assert checked >= 25


def test_each_problem_example_is_its_own_operations_and_has_its_responses_status():
    """A problem's example stands under the status it was answered with, on the operation that
    answered it, and nowhere else (the responses once shared one content object, so every
    problem of every operation showed the last operation's 422)."""
    document = _document()
    examples = []
    for path, item in document["paths"].items():
        for operation in item.values():
            for status, response in operation["responses"].items():
                content = (response.get("content") or {}).get("application/problem+json") or {}
                if "example" in content:
                    assert content["example"]["status"] == int(status), (path, operation["operationId"], status)
                    examples.append(content["example"])
    assert len(examples) >= 10
    assert len({json.dumps(e, sort_keys=True) for e in examples}) == len(examples), "an example is shared"


def test_429_is_documented_where_the_rate_limits_apply_and_only_there():
    """The limits count the API's requests (service/ratelimit.py), never the pages' or the probes'."""
    from service.routes import OPERATIONS, pages

    document = _document()
    for operation in OPERATIONS:
        responses = document["paths"][operation.path][operation.method]["responses"]
        limited = operation.blueprint is not pages and operation.rate_limited and operation.problems is not None
        assert ("429" in responses) == limited, operation.id


def test_every_route_of_the_app_is_in_the_document_and_every_path_is_a_route(api):
    """The document lists the declared operations (service/operation.py): a route added without a
    declaration, or a declaration whose route is lost, breaks this (assets are left undocumented, and
    so is the operator's /metrics: service/metrics.py says why)."""
    import re

    from service.metrics import PATH as METRICS

    routes = set()
    for rule in api.app.url_map.iter_rules():
        if rule.endpoint == "static" or rule.rule.startswith(("/docs/assets", "/web/")) or rule.rule == METRICS:
            continue
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
        routes |= {(path, m.lower()) for m in rule.methods - {"HEAD", "OPTIONS"}}
    documented = {(path, method) for path, item in _document()["paths"].items() for method in item}
    assert routes == documented


# -- the document reads in an afternoon: shared parts written once, pages apart ------------------


def _operations(document):
    """(where, operation) for the API's operations and the pages'."""
    for part in ("paths", "x-pages"):
        for path, item in document[part].items():
            for method, operation in item.items():
                yield f"{method.upper()} {path}", operation


def test_shared_headers_problems_and_parameters_are_written_once_under_components_and_referred_to():
    """A shared header, a header written alike in two operations, a problem response without an
    example of its own, a path parameter or a common header parameter written inline again, in the
    API or a page, fails this."""
    document = _written()
    inline = {}  # (header, definition) -> the operations that write it out
    components = document["components"]
    always_shared = {"X-Request-ID", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"}
    assert always_shared <= set(components["headers"]) and len(components["responses"]) >= 10
    shared_headers = list(components["headers"].values())
    common = {"X-Request-ID", "Idempotency-Key", "If-Match"}
    for where, operation in _operations(document):
        for status, response in operation["responses"].items():
            if "$ref" in response:
                assert response["$ref"].startswith("#/components/responses/"), (where, status)
                continue
            for name, header in (response.get("headers") or {}).items():
                if "$ref" not in header:
                    assert name not in always_shared and header not in shared_headers, (where, status, name)
                    inline.setdefault(json.dumps([name, header], sort_keys=True), set()).add(where)
            problem = (response.get("content") or {}).get("application/problem+json")
            assert problem is None or "example" in problem, (where, status)  # else it is a shared problem
        for parameter in operation.get("parameters", []):
            if "$ref" not in parameter:  # one operation's own, as If-None-Match or a filter
                assert parameter["in"] != "path" and parameter["name"] not in common, (where, parameter["name"])
                assert parameter not in components["parameters"].values(), (where, parameter["name"])
    for response in components["responses"].values():
        assert all("$ref" in header for header in response["headers"].values())
    assert not {header: places for header, places in inline.items() if len(places) > 1}, "share it in components"


def test_the_document_grows_with_its_operations_only_and_no_operation_is_longer_than_150():
    """A budget per operation, not a fixed total: the document may grow as operations arrive (issue
    38 adds about thirty), but each costs at most 115 lines on average, components included, and
    none more than 150. Short lists are flow style, shared shapes are components: an operation
    that needs more is saying too much, or repeating what a component should say once."""
    lines = (ROOT / "openapi.yaml").read_text().splitlines()
    lengths, current = {}, None
    for number, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if indent <= 4 and line.strip() and not line.lstrip().startswith("- "):
            current = None
        if indent == 4 and line.strip() in {f"{m}:" for m in ("get", "post", "put", "patch", "delete")}:
            current = number
        if current is not None:
            lengths[current] = lengths.get(current, 0) + 1
    assert len(lengths) > 70 and max(lengths.values()) <= 150, max(lengths.values())
    assert len(lines) <= 115 * len(lengths), (len(lines), len(lengths))


def test_the_pages_are_kept_apart_from_the_api_and_the_server_is_the_one_serving_the_document():
    """Client generators and schemathesis read ``paths``: the browser's pages (HTML, the service
    worker, the manifest) are under ``x-pages`` instead, which they skip."""
    document = _written()
    assert document["servers"] == [{"url": "/", "description": "The service that serves this document."}]
    pages = {path for path, item in document["x-pages"].items()}
    assert {"/", "/play/{game}", "/sw.js", "/docs", "/signin", "/manifest.webmanifest"} <= pages
    for where, operation in _operations({"paths": document["paths"], "x-pages": {}}):
        for response in operation["responses"].values():
            assert not {"text/html", "text/javascript"} & set(response.get("content") or {}), where


def test_a_page_of_events_names_its_cursor_next_as_the_lists_do_and_keeps_next_after_deprecated(api):
    """One name for a cursor: every page's is ``next``, passed back as ``after``; the event page's
    older ``next_after`` is still sent, the same value, marked deprecated, so no client breaks."""
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    g, token = created["game"], created["seats"][0]["token"]
    first = api.get(f"/games/{g}/events?after=0", token=token).json
    later = api.get(f"/games/{g}/events?after={first['next']}", token=token).json
    assert first["events"] and first["next"] == first["next_after"] == first["events"][-1]["seq"]
    assert later["events"] == [] and later["next"] == later["next_after"] == first["next"]
    schemas = _written()["components"]["schemas"]
    assert "next" in schemas["EventPage"]["required"] and schemas["EventPage"]["properties"]["next_after"]["deprecated"]
    assert all("next" in schemas[name]["properties"] for name in ("GameList", "EventPage"))


def test_a_deadline_pass_is_within_the_contract_of_an_events_meta(api):
    """An overdue turn played by ``deadline_level: pass`` is recorded with ``level: pass`` (as
    workers/turn_jobs.py writes it); the contract once allowed only the bot levels there, so a
    page of events after a missed deadline broke it (found by schemathesis)."""
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    g, token = created["game"], created["seats"][0]["token"]
    body = api.get(f"/games/{g}/events", token=token).get_json()
    body["events"][-1]["meta"] = {"reason": "deadline", "level": "pass", "budget": 0.0, "seed": "1", "view": "ab"}
    request = EnvironBuilder(path=f"/games/{g}/events", method="GET").get_request()
    api.check(request, Response(json.dumps(body), mimetype="application/json"))
