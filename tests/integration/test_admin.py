"""``bluemoon-admin`` on a real Redis and on a real Redis Cluster (the store on the cluster, RQ on
the run's Redis, as production splits them): each command does what it says, refuses what it
cannot do with a reason and exit 1, and answers JSON with ``--json``."""

from __future__ import annotations

import hashlib
import json
import uuid

import pytest
import redis
from redis.cluster import RedisCluster
from rq import Queue, SimpleWorker

from application.admin import game_ending
from application.admin.redis_snapshots import primaries
from application.background.rq_handoff import queue_names
from application.background.work import TURNS
from application.chat.messages import ChatMessages
from application.games.game_service import SeatSpec
from application.people.suspensions import AccountSuspended
from application.settings import BLUEMOON_QUEUE
from application.wiring import build
from cli.admin import main
from domain import Options
from events import keys
from events.embedded import EmbeddedRedis
from events.outbox import now_ms
from events.projection import GameIndex
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.admin import admin
from tests.support.archive import moved
from workers.turn_jobs import play


@pytest.fixture(params=["redis", "cluster"])
def store(request, redis_url, monkeypatch, tmp_path):
    """The store's URL: a Redis of the test's own (the index rebuild reads every game there is), or
    the run's cluster; RQ on the run's Redis either way."""
    server = EmbeddedRedis(tmp_path / "redis", persist=False) if request.param == "redis" else None
    url = server.url if server else request.getfixturevalue("cluster_urls")[0]
    monkeypatch.setenv("STORE_URL", url)
    monkeypatch.setenv("QUEUE_URL", redis_url)
    monkeypatch.setenv("BLUEMOON_QUEUE", f"admin-{uuid.uuid4().hex[:8]}")
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")  # the test servers keep nothing on disk
    yield url
    if server:
        server.stop()


@pytest.fixture
def parts(store, request):
    """The application on the store, handing no work on (the outbox keeps it)."""
    built = build(url=store)
    assert isinstance(built.client, RedisCluster) == ("cluster" in request.node.callspec.id)
    return built


def test_overdue_work_is_listed_and_one_entry_requeued_onto_its_queue(parts, redis_url, capsys):
    game = parts.service.create(Options(2), [SeatSpec("bot", level="greedy"), SeatSpec("human")], first_player=0).game
    code, listed = admin(capsys, "work", "list")
    assert code == 0 and game not in [o["name"] for o in listed], "due just now: not overdue yet"
    payloads, due, _ = keys.outbox_of(game)
    parts.client.zadd(due, {game: now_ms() - 60_000})  # no dispatcher took it for a minute
    code, listed = admin(capsys, "work", "list")
    stuck = next(o for o in listed if o["name"] == game)
    assert stuck["kind"] == "turn" and stuck["game"] == game and stuck["late_ms"] >= 60_000

    code, requeued = admin(capsys, "work", "requeue", game)
    assert (code, requeued) == (0, {"entry": game, "handed": 1})
    queue = Queue(_turn_queue(), connection=redis.Redis.from_url(redis_url))
    assert any(game in job_id for job_id in queue.job_ids), "the turn's job is on the turn queue"
    assert game not in [o["name"] for o in admin(capsys, "work", "list")[1]], "claimed: leased again"
    assert admin(capsys, "work", "requeue", "no-such-entry") == (1, "no outbox entry 'no-such-entry'")


def _turn_queue() -> str:
    return queue_names(BLUEMOON_QUEUE.read())[TURNS]


def test_failed_jobs_are_shown_requeued_and_deleted(redis_url, monkeypatch, capsys):
    """RQ's failed jobs live on the queue's Redis, which is never a cluster (RQ cannot run on one):
    one test, whatever holds the store."""
    name = f"admin-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("QUEUE_URL", redis_url)
    connection = redis.Redis.from_url(redis_url)
    queue = Queue(name, connection=connection)
    job = queue.enqueue("operator.truediv", 1, 0, job_id=f"doomed-{name}")
    SimpleWorker([queue], connection=connection).work(burst=True)

    code, failed = admin(capsys, "jobs", "failed", "--queue", name)
    assert code == 0 and [(f["id"], f["queue"], f["job"]) for f in failed] == [(job.id, name, "operator.truediv")]
    assert "ZeroDivisionError" in failed[0]["error"]
    assert admin(capsys, "jobs", "requeue", job.id, "--queue", name) == (0, {"job": job.id, "queue": name})
    assert queue.job_ids == [job.id] and admin(capsys, "jobs", "failed", "--queue", name)[1] == []
    SimpleWorker([queue], connection=connection).work(burst=True)  # fails again
    assert admin(capsys, "jobs", "delete", job.id, "--queue", name) == (0, {"job": job.id, "deleted": True})
    assert admin(capsys, "jobs", "failed", "--queue", name)[1] == [] and not connection.exists(job.key)
    assert admin(capsys, "jobs", "delete", job.id, "--queue", name) == (1, f"no failed job '{job.id}'")


def test_a_game_is_ended_as_its_clock_would_and_still_audits(store, parts, capsys):
    made = parts.service.create(Options(2), [SeatSpec("human"), SeatSpec("bot", level="random")], first_player=0)
    code, ended = admin(capsys, "games", "end", made.game)
    assert code == 0 and ended["result"]["reason"] in ("stalemate", "offerings", "rebuilt", "draw")
    api = CheckedClient(create_app({"REDIS_URL": store, "RATE_LIMIT": 0}))
    assert api.get(f"/games/{made.game}").json["status"] == "finished"
    audit = api.get(f"/games/{made.game}/audit").json
    assert audit["verified"], audit
    actors = {e["actor"] for e in api.get(f"/games/{made.game}/log").json["events"]}
    assert {"deadline:pass", "bot:random"} <= actors, "the turns show who played them"
    assert GameIndex(parts.client).get(made.game)["ended"] == "admin", "the index says an operator ended it"
    assert admin(capsys, "games", "end", made.game)[1]["turns_played"] == 0, "an ended game stays as it is"
    assert admin(capsys, "games", "end", "no-such-game") == (1, "no game no-such-game")

    name = f"ar:{made.game}"  # as if it had ended before the archive existed: no move asked for
    payloads, due_times, _ = keys.outbox_of(name)
    parts.client.hdel(payloads, name)
    parts.client.zrem(due_times, name)
    code, asked = admin(capsys, "games", "archive-backfill")
    assert code == 0 and asked["asked"] >= 1 and parts.client.zscore(due_times, name) is not None


def _keys_naming(client, game: str) -> list[bytes]:
    return [k for node in primaries(client) for k in node.scan_iter(match=f"*{game}*", count=1000)]


def test_a_game_is_deleted_with_every_key_that_names_it(parts, capsys):
    made = parts.service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
    other = parts.service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
    token = made.seats[0]["token"]
    ChatMessages(parts.store).add(made.game, "seats", "someone", 0, "hello")
    ChatMessages(parts.store).remove(made.game, "0-1", "hidden", "a moderator")
    assert _keys_naming(parts.client, made.game) and parts.client.exists(keys.token(_digest(token)))
    assert admin(capsys, "games", "delete", made.game) == (0, {"game": made.game, "deleted": True})
    assert _keys_naming(parts.client, made.game) == [] and not parts.client.exists(keys.token(_digest(token)))
    assert GameIndex(parts.client).get(made.game) is None and GameIndex(parts.client).get(other.game) is not None
    assert parts.service.state(other.game).version == other.version, "another game is untouched"
    assert admin(capsys, "games", "delete", made.game) == (1, f"no game {made.game}")


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def test_the_game_index_is_rebuilt_from_the_streams(parts, capsys):
    games = [parts.service.create(Options(2), [SeatSpec("human"), SeatSpec("human")]).game for _ in range(3)]
    index = GameIndex(parts.client)
    before = index.summaries(games)
    for shard in {keys.shard(g) for g in games}:
        parts.client.delete(keys.index_summaries(shard), *[])
        for listing in keys.LISTINGS:
            parts.client.delete(keys.index_listing(shard, listing))
    assert index.summaries(games) == {}
    code, rebuilt = admin(capsys, "games", "rebuild-index")
    assert code == 0 and rebuilt["indexed"] >= 3 and not set(games) & set(rebuilt["broken"])
    # each summary as the service wrote it, but ``updated``: the append's clock, a moment after its events' own
    assert _but_updated(index.summaries(games)) == _but_updated(before)
    assert {g["game"] for g in index.page(limit=10_000).games} >= set(games)


def test_the_rebuilt_index_gives_older_games_their_places_and_ending_in_redis_and_in_the_archive(parts, capsys):
    """Summaries written before ``places`` and ``ended`` existed, of a finished game in Redis and of
    an archived one: ``games rebuild-index`` completes both from the games' events."""
    games = []
    for _ in range(2):
        made = parts.service.create(Options(2), [SeatSpec("human"), SeatSpec("bot", level="random")], first_player=0)
        game_ending.end(parts.service, made.game, play)  # the human seat passes: a stalemate ends it
        games.append(made.game)
    kept, archived = games
    index = GameIndex(parts.client, parts.mover.archive)
    complete = index.summaries(games)
    assert {doc["ended"] for doc in complete.values()} == {"admin"}
    assert all(sorted(doc["places"]) in ([1, 1], [1, 2]) for doc in complete.values())
    older = {game: {k: v for k, v in doc.items() if k not in ("places", "ended")} for game, doc in complete.items()}
    for game in games:  # as a service before these fields wrote them
        parts.client.hset(keys.index_summaries(keys.shard(game)), game, json.dumps(older[game]))
    moved(parts, archived)
    assert index.get(archived) == complete[archived], "the move archives a summary completed from the events"
    parts.mover.archive.resummarise(archived, json.dumps(older[archived]))  # as archived before these fields
    assert _but_updated(index.summaries(games)) == _but_updated(older)
    code, rebuilt = admin(capsys, "games", "rebuild-index")
    assert code == 0 and rebuilt["archived_completed"] >= 1
    assert _but_updated(index.summaries(games)) == _but_updated(complete)
    assert admin(capsys, "games", "rebuild-index")[1]["archived_completed"] == 0, "a complete summary stays as it is"


def _but_updated(summaries: dict) -> dict:
    return {game: {k: v for k, v in doc.items() if k != "updated"} for game, doc in summaries.items()}


def test_an_account_is_suspended_and_restored(parts, capsys):
    account = f"acct-{uuid.uuid4().hex[:8]}"
    parts.accounts.create_without_email(account, "Suspended Sam")
    code, shown = admin(capsys, "people", "suspend", account, "--days", "2", "--reason", "spam in chat")
    assert code == 0 and shown["reason"] == "spam in chat" and shown["by"] == "operator"
    assert shown["until"] > now_ms() + 47 * 3600 * 1000
    with pytest.raises(AccountSuspended):
        parts.suspensions.refuse_if_suspended(account)
    assert admin(capsys, "people", "restore", account) == (0, {"account": account, "lifted": True})
    parts.suspensions.refuse_if_suspended(account)
    assert admin(capsys, "people", "restore", account) == (0, {"account": account, "lifted": False})
    assert main(["people", "restore", account]) == 0  # without --json: words for people
    assert capsys.readouterr().out == f"{account}: was not suspended\n"
    code, why = admin(capsys, "people", "suspend", account, "--days", "400", "--reason", "x")
    assert code == 1 and "--days" in why and "31536000" in why and parts.suspensions.suspension(account) is None
    assert admin(capsys, "people", "suspend", "nobody-x", "--days", "1", "--reason", "x") == (1, "no account nobody-x")


def test_a_persons_export_holds_everything_about_them_and_no_secret(parts, capsys, monkeypatch):
    ann, bob = (f"acct-{uuid.uuid4().hex[:8]}" for _ in range(2))
    parts.accounts.create_without_email(ann, "Export Ann")
    parts.accounts.create_without_email(bob, "Export Bob")
    made = parts.service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
    parts.accounts.add_seat(ann, made.game, 0)
    secret = parts.accounts.create_token(ann, "my script").token
    parts.relations.follow(ann, bob)
    parts.relations.block(ann, f"acct-{uuid.uuid4().hex[:8]}")
    hook = "https://127.0.0.1/api/webhooks/1/very-secret-part"  # no DNS here: a local host, allowed
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "127.0.0.1")
    parts.alerts.put(ann, {"discord": {"url": hook}})
    ChatMessages(parts.store).add(made.game, "seats", ann, 0, "good luck!")
    ChatMessages(parts.store).add(made.game, "seats", bob, 1, "you too")
    parts.suspensions.suspend(ann, 60, "cooling off", "operator")

    code, found = admin(capsys, "people", "export", ann)
    assert code == 0 and found["account"]["display_name"] == "Export Ann"
    assert [t["name"] for t in found["account"]["tokens"]] == ["my script"]
    assert [(g["game"], g["seat"]) for g in found["games"]] == [(made.game, 0)]
    assert found["games"][0]["summary"]["game"] == made.game
    assert found["relations"]["following"] == [bob] and len(found["relations"]["blocked"]) == 1
    assert found["relations"]["suspension"]["reason"] == "cooling off"
    assert found["alerts"]["settings"]["discord"]["url"] == "127.0.0.1"
    assert [m["text"] for m in found["chat"]] == ["good luck!"], "the person's own words only"
    assert set(found) >= {"ratings", "apps", "news"}
    printed = str(found)
    for secret_text in (secret, _digest(secret), "very-secret-part"):
        assert secret_text not in printed
    assert admin(capsys, "people", "export", "nobody-y") == (1, "no account nobody-y")
