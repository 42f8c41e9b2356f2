"""The example alert rules (docs/prometheus-alerts.yml) and Grafana dashboard
(docs/grafana-dashboard.json) read only metrics that /metrics serves: each is parsed, and every
``bluemoon_`` metric an expression names is one a scrape of the service declares (a counter's
``_total``, a histogram's ``_bucket``, ``_count`` and ``_sum``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import fakeredis
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from application.background.handoff import CallbackHandoff
from service.app import create_app

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "prometheus-alerts.yml"
DASHBOARD = ROOT / "docs" / "grafana-dashboard.json"
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}
DURATION = re.compile(r"\d+[smhd]")


@pytest.fixture(scope="module")
def served() -> dict[str, str]:
    """Every sample name a scrape of the service can hold, with its metric's name."""
    token = "monitoring-docs"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("METRICS_TOKEN", token)
        app = create_app({"REDIS_CLIENT": fakeredis.FakeRedis(), "HANDOFF": CallbackHandoff(print), "RATE_LIMIT": 0})
        text = app.test_client().get("/metrics", headers={"Authorization": f"Bearer {token}"}).get_data(as_text=True)
    return {
        family.name + suffix: family.name
        for family in text_string_to_metric_families(text)
        if family.name.startswith("bluemoon_") and not family.name.endswith("_created")  # (each counter's start)
        for suffix in SUFFIXES[family.type]
    }


def _named(expression: str) -> set[str]:
    return set(re.findall(r"\bbluemoon_[a-z_]+", expression))


def _rules() -> list[dict]:
    return [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]


def test_the_alert_rules_are_prometheus_rule_groups_each_alert_said_and_timed():
    rules = _rules()
    assert rules and len({rule["alert"] for rule in rules}) == len(rules)
    for rule in rules:
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule["alert"]
        assert rule["expr"].strip() and rule["annotations"]["summary"] and rule["labels"]["severity"], rule["alert"]
        assert "for" not in rule or DURATION.fullmatch(rule["for"]), rule["alert"]
        assert rule["expr"].count("(") == rule["expr"].count(")"), rule["alert"]


def test_every_metric_an_alert_rule_names_is_served(served):
    for rule in _rules():
        assert _named(rule["expr"]) and _named(rule["expr"]) <= set(served), (
            rule["alert"],
            _named(rule["expr"]) - set(served),
        )


def test_every_panel_of_the_dashboard_reads_metrics_that_are_served(served):
    dashboard = json.loads(DASHBOARD.read_text())
    panels = dashboard["panels"]
    assert panels and len({p["id"] for p in panels}) == len(panels)
    shown = set()
    for panel in panels:
        for target in panel["targets"]:
            named = _named(target["expr"])
            assert named and named <= set(served), (panel["title"], named - set(served))
            shown |= {served[name] for name in named}
    assert set(served.values()) - shown == set(), "metrics no panel shows"
