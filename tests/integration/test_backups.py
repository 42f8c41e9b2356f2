"""``bluemoon-admin backup`` / ``backup --verify`` / ``restore``: a copy of Redis (every primary)
and of the archive that puts everything back, refuses a damaged or mismatched backup or a target
that holds data with a reason and restores nothing then, and the drill: games played, backed up,
Redis and the archive destroyed, restored, and every game answers and audits as before."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
import redis
import sqlalchemy

from application.admin.redis_snapshots import primaries
from application.background.handoff import CallbackHandoff
from application.games.game_service import SeatSpec
from application.wiring import build, connect
from domain import Options
from events.embedded import EmbeddedRedis
from service.app import create_app
from tests.api.client import CheckedClient
from tests.conftest import start_cluster
from tests.support.admin import admin
from tests.support.archive import forget_opened_archives, moved
from tests.support.postgres import database


def archive_with_rows(path, rows: int = 3) -> str:
    """An SQLite archive holding a table (the archive's own tables, once it lands, are copied the same way)."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE finished_games (game TEXT PRIMARY KEY, log TEXT NOT NULL)")
        db.executemany(
            "INSERT INTO finished_games VALUES (?, ?)", [(f"g{i}", json.dumps({"n": i})) for i in range(rows)]
        )
    db.close()
    return f"sqlite:///{path}"


def rows(path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        found = db.execute("SELECT * FROM finished_games ORDER BY game").fetchall()
    db.close()
    return found


READ = {
    b"string": lambda c, k: c.get(k),
    b"hash": lambda c, k: c.hgetall(k),
    b"list": lambda c, k: c.lrange(k, 0, -1),
    b"set": lambda c, k: c.smembers(k),
    b"zset": lambda c, k: c.zrange(k, 0, -1, withscores=True),
    b"stream": lambda c, k: c.xrange(k),
}


def dumped(client) -> dict[bytes, tuple]:
    """Every key of every primary: its type, contents and whether it expires (a DUMP would do,
    but a large hash's bytes follow its table's layout, which a restore rebuilds)."""
    return {
        key: (node.type(key), READ[node.type(key)](node, key), node.pttl(key) > 0)
        for node in primaries(client)
        for key in node.scan_iter(count=1000)
    }


@pytest.fixture
def servers(tmp_path, monkeypatch):
    """A Redis with data (an append-only file, as production keeps one) and an empty one, each the
    store of nobody else; STORE_URL is set to one of them as each step needs."""
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")
    source = EmbeddedRedis(tmp_path / "source", persist=True)
    target = EmbeddedRedis(tmp_path / "target", persist=False)
    parts = build(url=source.url)
    for i in range(3):
        made = parts.service.create(Options(2 + i), [SeatSpec("human")] * (2 + i))
        parts.client.set(f"expiring-{made.game}", "x", ex=3600)
    yield source, target
    source.stop()
    target.stop()


def test_a_backup_is_verified_and_restored_key_for_key_with_its_archive(servers, tmp_path, monkeypatch, capsys):
    source, target = servers
    archive = archive_with_rows(tmp_path / "archive.sqlite3")
    monkeypatch.setenv("STORE_URL", source.url)
    code, made = admin(capsys, "backup", str(tmp_path / "b"), "--archive", archive)
    assert code == 0 and made["parts"]["redis"]["nodes"][0]["games"] == 3
    assert made["parts"]["archive"]["tables"] == {"finished_games": 3}
    assert admin(capsys, "backup", "--verify", str(tmp_path / "b"))[0] == 0

    monkeypatch.setenv("STORE_URL", target.url)
    restored_archive = tmp_path / "restored" / "archive.sqlite3"
    code, done = admin(capsys, "restore", str(tmp_path / "b"), "--archive", f"sqlite:///{restored_archive}")
    assert code == 0, done
    assert done["redis"]["games"] == 3 and done["archive"]["tables"] == {"finished_games": 3}
    assert dumped(redis.Redis.from_url(target.url)) == dumped(redis.Redis.from_url(source.url))
    assert rows(restored_archive) == rows(tmp_path / "archive.sqlite3")


def test_a_damaged_backup_is_refused_with_what_is_wrong_and_nothing_is_restored(servers, tmp_path, monkeypatch, capsys):
    source, target = servers
    folder = tmp_path / "b"
    monkeypatch.setenv("STORE_URL", source.url)
    admin(capsys, "backup", str(folder), "--archive", archive_with_rows(tmp_path / "archive.sqlite3"))
    snapshot = folder / "redis-0.rdb"
    whole = snapshot.read_bytes()
    snapshot.write_bytes(whole[:-40] + bytes(40))  # the end of the file overwritten
    code, why = admin(capsys, "backup", "--verify", str(folder))
    assert code == 1 and "redis-0.rdb" in why and "damaged" in why

    manifest = json.loads((folder / "manifest.json").read_text())  # damaged, and its manifest made to agree
    from application.admin.redis_snapshots import sha256_of

    manifest["parts"]["redis"]["nodes"][0]["sha256"] = sha256_of(snapshot)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    code, why = admin(capsys, "backup", "--verify", str(folder))
    assert code == 1 and "redis-0.rdb is damaged: [offset" in why, why

    monkeypatch.setenv("STORE_URL", target.url)
    empty_archive = tmp_path / "restored.sqlite3"
    code, why = admin(capsys, "restore", str(folder), "--archive", f"sqlite:///{empty_archive}")
    assert code == 1 and "redis-0.rdb is damaged" in why
    assert redis.Redis.from_url(target.url).dbsize() == 0 and not empty_archive.exists(), "nothing restored"

    snapshot.write_bytes(whole)  # the Redis part whole again; now the archive's copy damaged
    manifest["parts"]["redis"]["nodes"][0]["sha256"] = sha256_of(snapshot)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "archive.sqlite3").write_bytes(b"not a database at all")
    code, why = admin(capsys, "restore", str(folder), "--archive", f"sqlite:///{empty_archive}")
    assert code == 1 and "archive.sqlite3 is not the file the backup wrote" in why
    assert redis.Redis.from_url(target.url).dbsize() == 0, "nothing restored: the archive was checked first"

    (folder / "manifest.json").write_text(json.dumps({**manifest, "parts": {"redis": {"layout": 2}}}))
    assert (
        admin(capsys, "backup", "--verify", str(folder))[1]
        == "manifest.json: its redis part lacks 'nodes' (it was edited, or is of another release)"
    )
    (folder / "manifest.json").write_text("{")
    assert admin(capsys, "backup", "--verify", str(folder))[1].startswith("manifest.json is not readable JSON")
    (folder / "manifest.json").unlink()
    assert "did not finish" in admin(capsys, "backup", "--verify", str(folder))[1]


def test_a_restore_refuses_a_target_with_data_and_a_backup_that_does_not_match(servers, tmp_path, monkeypatch, capsys):
    source, target = servers
    monkeypatch.setenv("STORE_URL", source.url)
    archive = archive_with_rows(tmp_path / "archive.sqlite3")
    admin(capsys, "backup", str(tmp_path / "b"), "--archive", archive)
    code, why = admin(capsys, "backup", str(tmp_path / "b"))
    assert code == 1 and "is not empty" in why, "a backup never writes over another"

    code, why = admin(capsys, "restore", str(tmp_path / "b"), "--archive", f"sqlite:///{tmp_path / 'new.sqlite3'}")
    assert code == 1 and "holds" in why and "keys: restore into an empty one" in why
    code, why = admin(capsys, "restore", str(tmp_path / "b"), "--archive", archive)
    assert "the archive already holds tables (finished_games)" in why

    monkeypatch.setenv("STORE_URL", target.url)
    code, why = admin(capsys, "restore", str(tmp_path / "b"))  # into the service's own archive, which has tables
    assert code == 1 and "the archive already holds tables (archived_events" in why
    monkeypatch.setenv("STORE_URL", target.url.replace("redis://", "rediss://"))
    code, why = admin(capsys, "backup", str(tmp_path / "tls"))
    assert code == 1 and "a snapshot is fetched over redis:// only (for rediss://" in why
    assert redis.Redis.from_url(target.url).dbsize() == 0


# -- the drill --------------------------------------------------------------------------------


def _answers(api: CheckedClient, games: dict[str, list[str]]) -> dict[str, object]:
    """What the API says of every game: the list, each view (public and each seat's), its events,
    its legal commands or, once finished, its log and audit. Read unchecked (``api.http``): the
    answers are compared with themselves; the commands around them are checked."""

    def get(path: str, token: str | None = None) -> object:
        answer = api.http.get(path, headers={"Authorization": f"Bearer {token}"} if token else {})
        assert answer.status_code == 200, (path, answer.status_code)
        return answer.get_json()

    shown: dict[str, object] = {"list": get("/games?limit=100")}
    for game, tokens in games.items():
        view = get(f"/games/{game}")
        finished = view["status"] == "finished"  # type: ignore[index]
        shown[game] = {
            "view": view,
            "seats": [get(f"/games/{game}", t) for t in tokens],
            "events": get(f"/games/{game}/events?after=0"),
            **(
                {"log": get(f"/games/{game}/log"), "audit": get(f"/games/{game}/audit")}
                if finished
                else {"legal": [get(f"/games/{game}/legal", t) for t in tokens]}
            ),
        }
    return shown


def _api(url: str) -> CheckedClient:
    """The API in a process of its own (nothing kept from before), bots played in it."""
    box: list = []
    api = CheckedClient(
        create_app({"REDIS_CLIENT": connect(url), "HANDOFF": CallbackHandoff(box.append), "RATE_LIMIT": 0})
    )
    api.tickets = box
    return api


def _games_played(api: CheckedClient, capsys, bodies: list[dict]) -> dict[str, list[str]]:
    """Games made from ``bodies``, the first played a little (two moves and the end of a turn),
    the others ended as their clocks would have ended them (``bluemoon-admin games end``)."""
    games: dict[str, list[str]] = {}
    for body in bodies:
        made = api.post("/games", json=body).json
        games[made["game"]] = [s["token"] for s in made["seats"] if s.get("token")]
        api.run_workers()
    first = next(iter(games))
    for key in range(3):
        legal = api.get(f"/games/{first}/legal", token=games[first][0]).json
        command = legal["commands"][0] if key < 2 else next(c for c in legal["commands"] if c["type"] == "end_turn")
        played = api.post(
            f"/games/{first}/commands", token=games[first][0], json=command,
            headers={"If-Match": f'"{legal["version"]}"', "Idempotency-Key": f"drill-{key}"},
        )  # fmt: skip
        assert played.status_code == 200, played.json
    for game in list(games)[1:]:
        assert admin(capsys, "games", "end", game)[0] == 0
    api.run_workers()
    return games


def _plays_on(api: CheckedClient, game: str, tokens: list[str]) -> None:
    """The game in play takes a further command from whoever is to move."""
    seat = api.get(f"/games/{game}").json["turn"]["seat"]
    legal = api.get(f"/games/{game}/legal", token=tokens[seat]).json
    played = api.post(
        f"/games/{game}/commands", token=tokens[seat], json=legal["commands"][0],
        headers={"If-Match": f'"{legal["version"]}"', "Idempotency-Key": "after-restore"},
    )  # fmt: skip
    assert played.status_code == 200 and played.json["version"] > legal["version"]


TWO_HUMANS = {"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}
WITH_A_BOT = {"seats": [{"kind": "human"}, {"kind": "bot", "level": "greedy"}], "setup": {"first_player": 1}}


@pytest.mark.slow
def test_drill_games_backed_up_redis_and_archive_destroyed_restored_answer_as_before_and_play_on(
    tmp_path, monkeypatch, capsys
):
    """Slow (about 3 s): a Redis with an append-only file and an archive are filled by real games,
    backed up, destroyed (the server killed, its files deleted, a new empty one started) and
    restored; every game must answer as before, audit, and play on."""
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")
    server = EmbeddedRedis(tmp_path / "redis", persist=True)
    monkeypatch.setenv("STORE_URL", server.url)
    monkeypatch.setenv("QUEUE_URL", server.url)
    archive_file = tmp_path / "var" / "archive.sqlite3"
    archive_file.parent.mkdir()
    monkeypatch.setenv("ARCHIVE_URL", f"sqlite:///{archive_file}")  # the service's own archive
    api = _api(server.url)
    three = {"seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "random"}]}
    games = _games_played(api, capsys, [TWO_HUMANS, WITH_A_BOT, three])
    components = api.app.extensions["bluemoon"]
    moved(components, list(games)[1])  # one finished game archived, one finished in Redis, one in play
    before = _answers(api, games)
    assert sorted(before[g]["view"]["status"] for g in games) == ["active", "finished", "finished"]

    assert admin(capsys, "backup", str(tmp_path / "backup"))[0] == 0
    assert admin(capsys, "backup", "--verify", str(tmp_path / "backup"))[0] == 0
    server.process.kill()  # Redis destroyed: the process, its append-only file, and the archive
    server.process.wait()
    shutil.rmtree(tmp_path / "redis")
    archive_file.unlink()
    forget_opened_archives()
    server = EmbeddedRedis(tmp_path / "redis", port=server.port, persist=True)
    try:
        assert redis.Redis.from_url(server.url).dbsize() == 0
        assert admin(capsys, "restore", str(tmp_path / "backup"))[0] == 0
        forget_opened_archives()
        api = _api(server.url)  # a new process: nothing kept from before
        after = _answers(api, games)
        assert after == before
        assert all(after[g]["audit"]["verified"] for g in list(games)[1:])
        assert api.app.extensions["bluemoon"].mover.archive.has(list(games)[1])  # answered from the archive
        _plays_on(api, next(iter(games)), games[next(iter(games))])
    finally:
        server.stop()


@pytest.mark.slow
def test_drill_on_a_cluster_every_primary_backed_up_flushed_and_restored(tmp_path, redis_url, monkeypatch, capsys):
    """Slow (a cluster of its own, about 6 s): games on a 3-primary cluster, backed up (a snapshot
    of each primary), every primary flushed, restored (each key to its slot's primary): every
    game answers as before and plays on."""
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")
    monkeypatch.setenv("QUEUE_URL", redis_url)
    archive = tmp_path / "archive.sqlite3"  # the cluster's own archive, destroyed with it
    monkeypatch.setenv("ARCHIVE_URL", f"sqlite:///{archive}")
    nodes = start_cluster(tmp_path / "cluster")
    try:
        monkeypatch.setenv("STORE_URL", nodes[0].url)
        api = _api(nodes[0].url)
        games = _games_played(api, capsys, [TWO_HUMANS, TWO_HUMANS, WITH_A_BOT])
        before = _answers(api, games)
        code, made = admin(capsys, "backup", str(tmp_path / "backup"))
        assert code == 0 and len(made["parts"]["redis"]["nodes"]) == 3
        assert sum(node["games"] for node in made["parts"]["redis"]["nodes"]) == len(games)
        for node in nodes:
            redis.Redis.from_url(node.url).flushall()
        archive.unlink()
        forget_opened_archives()
        assert admin(capsys, "restore", str(tmp_path / "backup"))[0] == 0
        forget_opened_archives()
        api = _api(nodes[0].url)  # a new process: nothing kept from before
        assert _answers(api, games) == before
        _plays_on(api, next(iter(games)), games[next(iter(games))])
    finally:
        for node in nodes:
            node.stop()


@pytest.mark.slow
def test_a_postgresql_archive_is_dumped_checked_and_restored_in_one_transaction(
    tmp_path, capsys, monkeypatch, postgres_url
):
    """Slow (a PostgreSQL cluster made by initdb, about 4 s): the archive's production database
    backed up by pg_dump, checked by pg_restore --list, restored into an empty database, refused
    into one with tables, and a damaged dump refused before anything is written."""
    redis_server = EmbeddedRedis(tmp_path / "redis", persist=False)
    monkeypatch.setenv("STORE_URL", redis_server.url)
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")
    try:
        source = database(postgres_url, "backed_up_archive")
        engine = sqlalchemy.create_engine(source)
        with engine.begin() as db:
            db.execute(sqlalchemy.text("CREATE TABLE finished_games (game TEXT PRIMARY KEY, log JSONB NOT NULL)"))
            db.execute(sqlalchemy.text("INSERT INTO finished_games VALUES ('g1', '{\"n\": 1}'), ('g2', '{\"n\": 2}')"))
        engine.dispose()
        code, made = admin(capsys, "backup", str(tmp_path / "b"), "--archive", source)
        assert code == 0 and made["parts"]["archive"]["dialect"] == "postgresql"
        assert admin(capsys, "backup", "--verify", str(tmp_path / "b"))[0] == 0

        code, why = admin(capsys, "restore", str(tmp_path / "b"), "--archive", source)
        assert code == 1 and "the archive already holds tables (finished_games)" in why
        target = database(postgres_url, "restored_archive")
        dump = tmp_path / "b" / "archive.pgdump"
        whole = dump.read_bytes()
        dump.write_bytes(whole[: len(whole) // 2])
        code, why = admin(capsys, "restore", str(tmp_path / "b"), "--archive", target)
        assert code == 1 and "archive.pgdump is not the file the backup wrote" in why
        dump.write_bytes(whole)
        redis.Redis.from_url(redis_server.url).flushall()
        assert admin(capsys, "restore", str(tmp_path / "b"), "--archive", target)[0] == 0
        engine = sqlalchemy.create_engine(target)
        with engine.connect() as db:
            found = db.execute(sqlalchemy.text("SELECT game, log FROM finished_games ORDER BY game")).all()
        engine.dispose()
        assert [tuple(row) for row in found] == [("g1", {"n": 1}), ("g2", {"n": 2})]
    finally:
        redis_server.stop()
