"""Bot and deadline jobs on fakeredis with RQ's SimpleWorker: idempotent, and a no-op once
the turn is over."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import fakeredis
import pytest
from rq import Queue, SimpleWorker

from application.background.handoff import CallbackHandoff
from application.background.rq_handoff import RQHandoff
from application.games.command_ids import TURN_JOBS
from application.games.game_service import SeatSpec
from application.wiring import build
from domain import Edition, Options
from domain.commands import EndTurn
from domain.decide import decide_and_apply
from tests.support.workers import assert_each_bot_command_applied_once_at_its_version
from workers.turn_jobs import command_key, play


@pytest.fixture
def rq_env():
    client = fakeredis.FakeRedis()
    queue = Queue("test", connection=client)
    components = build(client=client, handoff=RQHandoff(client, queue="test"))
    return client, queue, components.service


def _worker(queue):
    return SimpleWorker([queue], connection=queue.connection)


def test_a_bot_turn_is_enqueued_and_played_by_a_worker(rq_env):
    client, queue, service = rq_env
    created = service.create(Options(2), [SeatSpec("bot", level="greedy"), SeatSpec("human")], first_player=0)
    assert queue.count == 1 and queue.job_ids == [f"bot-{created.game}-{created.version}-1"]
    _worker(queue).work(burst=True)
    state = service.state(created.game)
    assert state.turn.seat == 1 and state.turn.number == 2
    bot_events = [s for s in service.store.read(created.game) if s.actor == "bot:greedy"]
    assert bot_events and all(json.loads(s.meta)["level"] == "greedy" for s in bot_events)
    assert all(len(json.loads(s.meta)["view"]) == 64 for s in bot_events)


def test_running_the_same_turn_job_twice_moves_once(rq_env):
    client, queue, service = rq_env
    created = service.create(Options(2), [SeatSpec("bot", level="greedy"), SeatSpec("human")], first_player=0)
    _worker(queue).work(burst=True)
    after_first = service.store.version(created.game)
    assert play(service, created.game, 0, 1, "greedy", "bot") == "done"
    assert service.store.version(created.game) == after_first


def test_a_job_for_a_finished_or_superseded_turn_is_a_no_op(rq_env):
    client, queue, service = rq_env
    created = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
    assert queue.count == 0
    assert play(service, created.game, 1, 1, "greedy", "bot") == "done"  # not seat 1's turn
    assert play(service, created.game, 0, 7, "greedy", "bot") == "done"  # not turn 7
    assert service.store.version(created.game) == created.version


def test_a_retried_job_resumes_a_turn_half_played(rq_env):
    import random

    from domain import bots

    client, queue, service = rq_env
    created = service.create(Options(2), [SeatSpec("bot", level="greedy"), SeatSpec("human")], first_player=0)
    queue.empty()
    # the first copy of the job applied one command, then died
    state = service.state(created.game)
    first = bots.choose(state, 0, "greedy", random.Random(f"{created.game}:{state.version}:0"))
    key = command_key(created.game, state.version, 0)
    service.submit(created.game, first, expected=state.version, key=key, actor="bot:greedy", sender=TURN_JOBS)
    play(service, created.game, 0, 1, "greedy", "bot")  # the retry
    play(service, created.game, 0, 1, "greedy", "bot")  # and a duplicate of it
    assert [s.type for s in service.store.read(created.game)].count("TurnEnded") == 1
    assert service.state(created.game).turn.seat == 1
    assert_each_bot_command_applied_once_at_its_version(service, created.game)


@pytest.mark.parametrize("second, level, reason", [("bot", "greedy", "bot"), ("human", "pass", "deadline")])
def test_a_job_whose_key_another_command_holds_plays_its_turn_once_under_the_next(rq_env, second, level, reason):
    """The key of the job's first command held by seat 0's last one, at an earlier version: no
    player can send it now, but a store written when keys were the game's holds such records."""
    client, queue, service = rq_env
    seats = [SeatSpec("human"), SeatSpec(second, level=level if second == "bot" else None)]
    created = service.create(Options(2), seats, first_player=0, turn_deadline=60 if reason == "deadline" else None)
    _, after = decide_and_apply(service.state(created.game), EndTurn(0))
    held = command_key(created.game, after.version, 1)
    service.submit(created.game, EndTurn(0), expected=created.version, key=held, sender=TURN_JOBS)
    assert play(service, created.game, 1, 2, level, reason) == "done"
    assert play(service, created.game, 1, 2, level, reason) == "done"  # a second copy finds the turn over
    stored = service.store.read(created.game)
    assert [s.actor for s in stored if s.type == "TurnEnded"] == ["0", f"{reason}:{level}"]
    assert service.state(created.game).turn.seat == 0
    assert next(s.command for s in stored if s.seq == after.version + 1) == f"bot:{held}/1"


def test_the_deadline_is_an_outbox_entry_that_passes_an_overdue_turn_once_due(rq_env, monkeypatch):
    client, queue, service = rq_env
    created = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0, turn_deadline=60)
    payload, due = service.store.outbox_entry(created.game)
    assert json.loads(payload)["reason"] == "deadline"
    assert 59_000 <= due - datetime.now(UTC).timestamp() * 1000 <= 61_000
    assert service.dispatch() == 0 and queue.count == 0  # not due yet
    import events.outbox

    monkeypatch.setattr(events.outbox, "now_ms", lambda: due + 1)  # the deadline passes
    assert service.dispatch() == 1 and queue.job_ids == [f"deadline-{created.game}-{created.version}-1"]
    _worker(queue).work(burst=True)
    stored = service.store.read(created.game)
    assert [s.actor for s in stored if s.type == "TurnEnded"] == ["deadline:pass"]
    assert service.state(created.game).turn.seat == 1
    # the next human turn has its own deadline, written with the events that started it
    assert json.loads(service.store.outbox_entry(created.game)[0])["version"] == service.store.version(created.game)


def test_a_deadline_after_the_human_has_played_does_nothing(rq_env):
    client, queue, service = rq_env
    created = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0, turn_deadline=60)
    from domain.commands import EndTurn

    service.submit(created.game, EndTurn(0), expected=created.version, key="k")
    version = service.store.version(created.game)
    assert play(service, created.game, 0, 1, "pass", "deadline") == "done"
    assert service.store.version(created.game) == version


def test_a_bot_that_raises_falls_back_to_greedy_logs_it_and_the_turn_ends(rq_env, monkeypatch, caplog):
    import workers.turn_jobs
    from domain import IllegalCommand

    client, queue, service = rq_env
    created = service.create(Options(2), [SeatSpec("bot", level="mcts"), SeatSpec("human")], first_player=0)
    real = workers.turn_jobs.bots.choose

    def broken(state, seat, level, rnd, **kw):
        if level == "mcts":
            raise IllegalCommand("relocated", "a bug inside the search")
        return real(state, seat, level, rnd, **kw)

    monkeypatch.setattr(workers.turn_jobs.bots, "choose", broken)
    assert play(service, created.game, 0, 1, "mcts", "bot") == "done"
    assert service.state(created.game).turn.seat == 1
    actors = {s.actor for s in service.store.read(created.game) if s.actor.startswith("bot:")}
    assert actors == {"bot:greedy"}
    assert any("bot mcts failed" in r.getMessage() for r in caplog.records)


def test_a_turn_claimed_again_and_again_falls_back_to_greedy_then_to_ending_the_turn(monkeypatch):
    import events.outbox

    client = fakeredis.FakeRedis()
    handed = []
    service = build(client=client, handoff=CallbackHandoff(handed.append)).service
    created = service.create(Options(2), [SeatSpec("bot", level="mcts"), SeatSpec("human")], first_player=0)
    clock = [events.outbox.now_ms()]
    monkeypatch.setattr(events.outbox, "now_ms", lambda: clock[0])
    for _ in range(4):  # each job dies: its lease runs out and the turn is claimed again
        clock[0] += events.outbox.LEASE_MS + 1
        assert service.dispatch() == 1
    assert [(t.tries, t.played_as) for t in handed] == [
        (1, "mcts"),
        (2, "mcts"),
        (3, "greedy"),
        (4, "pass"),
        (5, "pass"),
    ]
    assert {t.job_id for t in handed} == {f"bot-{created.game}-{created.version}-{n}" for n in range(1, 6)}


@pytest.mark.parametrize("clock_step, renewals", [(0.0, "once"), (1.0, "every command")])
def test_a_job_renews_its_turns_lease_once_a_third_of_it_has_passed(rq_env, monkeypatch, clock_step, renewals):
    """No round trip before every command, yet a slow turn never lets its lease lapse: the
    clock here moves a third of the lease (RENEW_EVERY) per look at it, or not at all."""
    import workers.turn_jobs as turn_jobs

    _, _, service = rq_env
    created = service.create(Options(2), [SeatSpec("human"), SeatSpec("bot", level="greedy")], first_player=0)
    service.submit(created.game, EndTurn(0), expected=created.version, key="human")
    looks = iter(range(1000))
    monkeypatch.setattr(turn_jobs.time, "monotonic", lambda: next(looks) * clock_step * turn_jobs.RENEW_EVERY)
    renewed = []
    monkeypatch.setattr(service.outbox, "renew", lambda name, payload: renewed.append(payload))
    before = service.state(created.game).version
    play(service, created.game, 1, 2, "greedy", "bot", payload="the-ticket")
    commands = len({s.command for s in service.store.read(created.game, after=before)})
    assert commands >= 2  # a move or a contribution, then the end of the turn
    assert len(renewed) == (1 if renewals == "once" else commands)


def test_the_worker_plays_greedy_decisions_of_every_edition_before_it_forks():
    """Each work-horse inherits the worker's memory: warm_up leaves the rules' tables built
    and the bots' code specialised by real decisions, in each edition a horse may meet."""
    from cli.bluemoon_worker import WARM_UP_GAMES, warm_up
    from domain.payment import minimal_payments_sorted

    minimal_payments_sorted.cache_clear()
    assert warm_up(decisions=3) == 3 * len(WARM_UP_GAMES)
    assert minimal_payments_sorted.cache_info().currsize > 0  # greedy priced contributions
    assert {(o.edition, o.expansion) for o in WARM_UP_GAMES} >= {(Edition.CLASSIC, False), (Edition.CMON, True)}


def test_a_bot_turn_loads_the_game_once_then_reads_once_a_command(real_redis, monkeypatch):
    """A horse starts without the game: it loads it once, then one read a command (the state
    caught up, the settings and the command's record in one round trip) and its append; submit
    reads none of them again (it did in three round trips a command)."""
    service = build(client=real_redis).service
    created = service.create(Options(2), [SeatSpec("human"), SeatSpec("bot", level="greedy")], first_player=0)
    service.submit(created.game, EndTurn(0), expected=created.version, key="human")
    service.games.forget(created.game)
    calls: list[str] = []
    for owner, name in [(service, "read"), (service, "settings"), (service.store, "read"), (service.store, "command")]:
        real = getattr(owner, name)
        label = f"{type(owner).__name__}.{name}"
        monkeypatch.setattr(owner, name, lambda *a, real=real, label=label, **k: calls.append(label) or real(*a, **k))
    before = service.store.version(created.game)
    assert play(service, created.game, 1, 2, "greedy", "bot") == "done"
    played = list(calls)
    commands = len({s.command for s in service.store.read(created.game, after=before)})
    assert commands >= 2 and service.state(created.game).turn.seat == 0
    assert played == ["RedisStore.read"] + ["GameService.read"] * commands


def test_the_worker_freezes_its_objects_before_it_forks(monkeypatch):
    """A horse's collections must pass over what it inherited (gc.freeze): touching those
    objects would copy their pages into every horse."""
    import gc

    import cli.bluemoon_worker as worker

    warmed = []
    monkeypatch.setattr(worker, "warm_up", lambda: warmed.append(gc.get_freeze_count()))
    try:
        worker.ready_to_fork()
        assert warmed == [0] and gc.get_freeze_count() > 0  # frozen after the warm-up
    finally:
        gc.unfreeze()
