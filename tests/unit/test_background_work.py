"""The table of background work (application/background/work.py) is the one place a kind is
named: its job is a function in ``workers/``, its prefix its own, the worker listens on the
queues it names, and a kind added to it alone (tests/support/background_work.py) is written,
claimed, leased and handed on by code that never heard of it.
tests/integration/test_background_work.py runs such a kind on a real RQ worker."""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import fakeredis
import pytest

import application.reactions
import cli.bluemoon_worker as bluemoon_worker
import events.outbox
from application.background.handoff import CallbackHandoff
from application.background.work import DELIVERIES, QUEUES, REVIEWS, TURNS, WORK, Kind
from application.games.game_service import SeatSpec
from application.wiring import build
from domain import Options
from domain.commands import EndTurn
from events import keys
from tests.support.background_work import TOY_LEASE_MS, add_toy_kind, toy_reaction

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def toy_kind(monkeypatch):
    return add_toy_kind(monkeypatch)


def test_every_kinds_job_is_a_function_in_workers_that_the_worker_imports():
    for kind in WORK:
        module, _, function = kind.job.rpartition(".")
        assert module.startswith("workers.") and callable(getattr(importlib.import_module(module), function)), kind
    assert {module.__name__ for module in bluemoon_worker.JOBS} == {k.job.rpartition(".")[0] for k in WORK}


def test_every_kind_has_a_prefix_of_its_own_and_only_the_turn_none():
    prefixes = [kind.prefix for kind in WORK]
    assert len(set(prefixes)) == len(prefixes) and [k.name for k in WORK if not k.prefix] == ["turn"]
    assert all(p.endswith(":") and p.count(":") == 1 for p in prefixes if p)
    with pytest.raises(ValueError):
        Kind("clash", "a:b:", "workers.x.y", TURNS, 1, 1, True)


def test_the_worker_listens_on_exactly_the_queues_the_table_names():
    assert (
        bluemoon_worker.KINDS
        == tuple(q for q in QUEUES if q in {k.queue for k in WORK})
        == (TURNS, DELIVERIES, REVIEWS)
    )
    assert bluemoon_worker.kinds("deliveries,turns") == [TURNS, DELIVERIES]


def test_no_module_but_the_table_spells_a_prefix_or_a_job():
    """The six places a kind was once named: each would spell its prefix (``"wh:"``) or its
    job (``"workers.webhook_delivery.deliver"``) again."""
    prefixes = tuple(kind.prefix for kind in WORK if kind.prefix)
    spelled = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}"
        for package in ("domain", "events", "application", "service", "workers", "cli")
        for path in (ROOT / package).rglob("*.py")
        if path != ROOT / "application" / "background" / "work.py"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and (node.value.startswith(prefixes) or node.value.startswith("workers."))
    ]
    assert spelled == []


def test_a_kind_added_to_the_table_is_written_claimed_under_its_lease_and_handed_on(toy_kind, monkeypatch):
    """No other file names the toy kind: the append writes its entry (its reaction), the
    appending process leaves it to the dispatcher (not at once), whose claim leases it for the
    toy's own lease and hands it to the function registered under its name."""
    clock = [events.outbox.now_ms()]
    monkeypatch.setattr(events.outbox, "now_ms", lambda: clock[0])
    handed: list = []
    client = fakeredis.FakeRedis()
    service = build(client=client, handoff=CallbackHandoff(lambda ticket: None, toy=handed.append)).service
    created = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
    name = f"ty:{created.game}"
    assert handed == [] and service.store.outbox_entry(name) is not None  # left to a dispatcher
    assert service.dispatch() == 1
    assert [(c.name, json.loads(c.payload)["version"], c.tries) for c in handed] == [(name, created.version, 1)]
    assert client.zscore(keys.outbox_of(name)[1], name) == clock[0] + TOY_LEASE_MS
    clock[0] += TOY_LEASE_MS + 1  # its job died: the toy's lease, not the turn's 10 s, runs out
    assert service.dispatch() == 1 and handed[-1].tries == 2
    service.submit(created.game, EndTurn(0), expected=created.version, key="end")
    clock[0] += 1
    assert service.dispatch() == 1 and json.loads(handed[-1].payload)["version"] > created.version


def test_an_entry_of_a_kind_the_table_lacks_is_refused_before_anything_is_written(monkeypatch):
    """A reaction whose kind was never registered would leave work no one runs: the append
    is refused and the game stays where it was."""
    service = build(client=fakeredis.FakeRedis(), handoff=CallbackHandoff(lambda ticket: None)).service
    created = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
    monkeypatch.setattr(application.reactions, "REACTIONS", (*application.reactions.REACTIONS, toy_reaction))
    with pytest.raises(KeyError, match="ty:"):
        service.submit(created.game, EndTurn(0), expected=created.version, key="end")
    assert service.state(created.game).version == created.version
    assert service.store.outbox_entry(f"ty:{created.game}") is None
