"""The host network's lock (tests/support/host_network.py): the containers' test waits for the
browser tests running, and no browser test starts while it waits or runs."""

from __future__ import annotations

import threading

from tests.support import host_network as lock


def _enter(alone: bool, entered: threading.Event, leave: threading.Event) -> threading.Thread:
    def hold() -> None:
        with lock.host_network(alone):
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    return thread


def test_the_containers_test_waits_for_the_running_browser_tests_and_holds_off_new_ones(tmp_path, monkeypatch):
    monkeypatch.setattr(lock, "_LOCKS", tmp_path)  # not the machine's: a suite may be running beside
    browsing, browsed = threading.Event(), threading.Event()
    _enter(False, browsing, browsed)
    assert browsing.wait(5)
    other, other_done = threading.Event(), threading.Event()
    _enter(False, other, other_done)
    assert other.wait(5), "browser tests share the network"
    building, built = threading.Event(), threading.Event()
    _enter(True, building, built)
    assert not building.wait(0.3), "the containers' test waits while browser tests run"
    late, late_done = threading.Event(), threading.Event()
    _enter(False, late, late_done)
    assert not late.wait(0.3), "no browser test starts while the containers' test waits"
    browsed.set()
    other_done.set()
    assert building.wait(5), "the running browser tests over, the containers' test runs"
    assert not late.wait(0.3), "and no browser test starts while it runs"
    built.set()
    assert late.wait(5)
    late_done.set()
