"""Finished games move from the real Redis to the archive (application/archive/moves.py) and
every read answers byte for byte as before; the move is done once, and the game's keys leave Redis."""

from __future__ import annotations

import json
import uuid
from datetime import datetime

import pytest
import redis
import sqlalchemy as sa

from application.archive.moves import Mover
from application.background.handoff import CallbackHandoff
from events import keys
from events.archive import Archive
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.archive import moved, work_done
from tests.support.lobby import account_of, auth, people, played_out_from_the_lobby
from tests.support.scenarios import ended_by_one_offering, scenario_game
from tests.support.workers import Workers, wait_until
from workers.rating_jobs import rate_now


@pytest.fixture
def api(redis_url):
    client = redis.Redis.from_url(redis_url)
    box: list = []
    made = CheckedClient(create_app({"REDIS_CLIENT": client, "HANDOFF": CallbackHandoff(box.append), "RATE_LIMIT": 0}))
    made.tickets = box
    yield made
    client.close()


def _rated_game_played_out(api) -> tuple[str, list[str]]:
    """Two people and a greedy bot from the lobby, played to the end (the people end their turns,
    the bot builds), and rated by its job: the game and the people's tokens."""
    ada, bo = people(api, f"ada-{uuid.uuid4().hex[:8]}", f"bo-{uuid.uuid4().hex[:8]}")
    game, ratings = played_out_from_the_lobby(api, ada, bo)
    components = api.app.extensions["bluemoon"]
    rate_now(components.service, components.ratings, ratings[0].name, ratings[0].payload)
    return game, [ada, bo]


def _answers(api, game: str, people_: list[str], seats: list[str]) -> dict[str, object]:
    """Every read of a finished game: its status, body and ETag, as JSON text."""
    version = api.get(f"/games/{game}").json["version"]
    reads = [
        (f"/games/{game}", {}),
        *((f"/games/{game}", {"token": token}) for token in seats),
        *((f"/games/{game}", {"headers": auth(token)}) for token in people_),
        (f"/games/{game}/events", {}),
        (f"/games/{game}/events?after=3", {}),
        (f"/games/{game}/log", {}),
        (f"/games/{game}/audit", {}),
        (f"/games/{game}/versions/1", {}),
        (f"/games/{game}/versions/{version // 2}", {}),
        (f"/games/{game}/versions/{version}", {}),
        (f"/games/{game}/rematch", {}),
        (f"/games/{game}/legal", {"token": seats[0]} if seats else {"headers": auth(people_[0])}),
        ("/games?status=finished&limit=100", {}),
        ("/games?limit=100", {}),
        *((f"/games?token={token}", {}) for token in seats),
        *(("/me/games", {"headers": auth(token)}) for token in people_),
        *(("/me/rating", {"headers": auth(token)}) for token in people_),
        *((f"/players/{account_of(api, token)}/rating", {}) for token in people_),
    ]
    found = {}
    for path, options in reads:
        answer = api.get(path, **options)
        found[f"{path} {sorted(options)}"] = (
            answer.status_code,
            json.dumps(answer.json, sort_keys=True),
            answer.headers.get("ETag"),
        )
    return found


def _keys_of(client, game: str) -> list[str]:
    """The service's keys that name ``game`` (not RQ's records of the jobs that moved it)."""
    return sorted(k.decode() for k in client.scan_iter(match=f"*{game}*", count=1000) if not k.startswith(b"rq:"))


@pytest.mark.slow
def test_a_finished_game_answers_every_read_the_same_from_the_archive(api):
    """Slow (about 5 s): a whole rated game is played through the API, and every read is made twice."""
    rated, people_ = _rated_game_played_out(api)
    scenario, tokens = ended_by_one_offering(api)
    components = api.app.extensions["bluemoon"]
    before = {game: _answers(api, game, *held) for game, held in ((rated, (people_, [])), (scenario, ([], tokens)))}
    assert components.client.hget(keys.outbox_of(f"ar:{rated}")[0], f"ar:{rated}") is not None  # asked for at the end
    assert components.mover.move(rated) == "waiting"  # its people's news are still to be written
    assert _keys_of(components.client, rated) != [] and not components.mover.archive.has(rated)
    for game in (rated, scenario):
        work_done(components, game)
        assert components.mover.move(game) == "moved"
        assert components.mover.move(game) == "moved"  # again: nothing doubled, nothing lost
        assert _keys_of(components.client, game) == []
        assert components.client.hget(keys.outbox_of(f"ar:{game}")[0], f"ar:{game}") is None
        held = [keys.token(digest) for digest in components.mover.archive.parts(game)["tokens"]]
        assert held == [] or components.client.exists(*held) == 0  # the archive answers for the seats' tokens
    assert len(components.mover.archive.parts(scenario)["tokens"]) == 2
    after = {game: _answers(api, game, *held) for game, held in ((rated, (people_, [])), (scenario, ([], tokens)))}
    for game in (rated, scenario):
        assert [k for k in before[game] if before[game][k] != after[game][k]] == []
    assert components.mover.archive.version(rated) == json.loads(before[rated][f"/games/{rated} []"][1])["version"]


@pytest.mark.slow
def _own(answers: dict) -> dict:
    """The game's own reads: not the lists of games (``/games?...``), which a real worker moving the
    run's other finished games meanwhile changes; the lists are compared in the test above."""
    return {path: answer for path, answer in answers.items() if not path.startswith("/games?")}


def test_a_worker_killed_between_the_archives_commit_and_redis_letting_go_loses_and_doubles_nothing(
    api, redis_url, tmp_path, monkeypatch
):
    """Slow (about 15 s): a real worker moves the game and pauses after the archive's commit
    (ARCHIVE_PAUSE_MS); it is SIGKILLed there, with its horse. The game is then in the archive once
    and still in Redis, and reads the same; a new worker takes the move again once the lease runs out
    (10 s), and the game leaves Redis, still once in the archive."""
    monkeypatch.setenv("ARCHIVE_AFTER_SECONDS", "0")  # the move is due when the game ends
    game, tokens = ended_by_one_offering(api)
    components = api.app.extensions["bluemoon"]
    archive = components.mover.archive
    before = _own(_answers(api, game, [], tokens))
    queue = f"archive-{uuid.uuid4().hex[:8]}"
    workers = Workers(redis_url, queue, logs=tmp_path)
    try:
        pausing = workers.start(ARCHIVE_PAUSE_MS="60000")
        wait_until(lambda: archive.has(game), 30, "the archive's commit")
        workers.kill_with_horse(pausing)
        assert archive.events(game) != [] and len(archive.events(game)) == archive.version(game)
        assert components.client.exists(keys.meta(game), keys.stream(game)) == 2  # Redis has not let go
        assert _own(_answers(api, game, [], tokens)) == before
        workers.start()
        wait_until(lambda: _keys_of(components.client, game) == [], 40, "the move taken again, to its end")
    finally:
        workers.stop_all()
    assert _own(_answers(api, game, [], tokens)) == before
    with archive.engine.connect() as connection:  # one row of the game, one row per event
        rows = connection.execute(sa.text("SELECT count(*) FROM archived_games WHERE game = :g"), {"g": game}).scalar()
        events = connection.execute(
            sa.text("SELECT count(*) FROM archived_events WHERE game = :g"), {"g": game}
        ).scalar()
    assert rows == 1 and events == json.loads(before[f"/games/{game} []"][1])["version"]


def test_a_game_in_play_is_not_moved_and_an_unreachable_archive_loses_nothing(api, tmp_path):
    """A move asked for a game that has not ended leaves it; a move whose archive write fails
    (the database went away) raises before Redis lets go, and the game plays and reads on."""
    game, tokens = scenario_game(
        api, figures=["courtyard", "courtyard"], obelisk=[0, 0, 0, 0, 0], crystals=[20, 0], dragons=[], markers=[]
    )
    components = api.app.extensions["bluemoon"]
    assert components.mover.move(game) == "not finished"
    assert components.mover.archive.has(game) is False
    finished, finished_tokens = ended_by_one_offering(api)
    before = _answers(api, finished, [], finished_tokens)
    broken = Archive(f"sqlite:///{tmp_path / 'gone.sqlite3'}")
    (tmp_path / "gone.sqlite3").unlink()
    (tmp_path / "gone.sqlite3").mkdir()  # the file replaced by a folder: no write can succeed
    broken.engine.dispose()
    with pytest.raises(sa.exc.SQLAlchemyError):
        Mover(components.client, broken, components.service.outbox).move(finished)
    assert _answers(api, finished, [], finished_tokens) == before
    assert components.client.exists(keys.meta(finished), keys.stream(finished)) == 2


def test_games_that_ended_before_moves_existed_are_asked_for_once(api):
    """``Mover.backfill`` writes the entry the game's last append would have written, due
    ARCHIVE_AFTER_SECONDS after its last event; run again, it asks for nothing more."""
    game, _ = ended_by_one_offering(api)
    components = api.app.extensions["bluemoon"]
    name = f"ar:{game}"
    payloads, due_times, _ = keys.outbox_of(name)
    components.client.hdel(payloads, name)  # as if it had ended before this release
    components.client.zrem(due_times, name)
    assert components.mover.backfill() >= 1
    ended = datetime.fromisoformat(components.service.index.get(game)["updated"].replace("Z", "+00:00"))
    assert components.client.zscore(due_times, name) == int(ended.timestamp() * 1000) + 7 * 24 * 3600 * 1000
    assert components.mover.backfill() == 0


def test_on_postgresql_a_moved_game_answers_the_same(redis_url, postgres_url, monkeypatch):
    """Production's archive: the move and every read of the moved game through PostgreSQL."""
    monkeypatch.setenv("ARCHIVE_URL", postgres_url)
    client = redis.Redis.from_url(redis_url)
    api = CheckedClient(
        create_app({"REDIS_CLIENT": client, "HANDOFF": CallbackHandoff(lambda _: None), "RATE_LIMIT": 0})
    )
    components = api.app.extensions["bluemoon"]
    assert components.mover.archive.engine.dialect.name == "postgresql"
    game, tokens = ended_by_one_offering(api)
    before = _answers(api, game, [], tokens)
    assert components.mover.move(game) == "moved" and _keys_of(client, game) == []
    assert _answers(api, game, [], tokens) == before
    client.close()


def test_a_moved_games_chat_stays_with_it(api):
    """The archive does not hold chat: a finished game's rooms stay in Redis when the game moves
    (chat is kept with the game after its end), and its seats still read them."""
    game, tokens = ended_by_one_offering(api)
    said = api.post(f"/games/{game}/chat/seats", token=tokens[0], json={"text": "gg, well played"})
    assert said.status_code == 201, said.json
    moved(api.app.extensions["bluemoon"], game)
    read = api.get(f"/games/{game}/chat/seats", token=tokens[1])
    assert read.status_code == 200 and [m["text"] for m in read.json["messages"]] == ["gg, well played"]
