"""Bots, deliveries and reviews never share a worker where the service is deployed: the Procfile
and ``bluemoon`` each start a turn worker, a delivery worker and a review worker."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.bluemoon import commands
from cli.bluemoon_worker import kinds

ROOT = Path(__file__).resolve().parents[2]


def test_the_procfile_starts_a_turn_worker_and_a_delivery_worker():
    lines = dict(line.split(": ", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line.strip())
    assert lines["worker"] == "bluemoon-worker --queues turns"
    assert lines["deliveries"] == "bluemoon-worker --queues deliveries"
    assert lines["reviews"] == "bluemoon-worker --queues reviews"  # a review's CPU never delays a bot's reply


def test_bluemoon_starts_each_kind_of_worker_apart():
    started = {child.name: child.argv[child.argv.index("--queues") + 1] for child in commands(8000, 2, 1)[1:]}
    assert started == {"worker-1": "turns", "deliveries-1": "deliveries", "reviews-1": "reviews"}


def test_queues_are_chosen_by_kind_turns_first():
    assert kinds("deliveries,turns") == ["turns", "deliveries"] and kinds("deliveries") == ["deliveries"]
    assert kinds("reviews,turns") == ["turns", "reviews"]
    with pytest.raises(Exception, match="choose from turns, deliveries, reviews"):
        kinds("bots")
