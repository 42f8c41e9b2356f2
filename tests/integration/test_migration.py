"""`bluemoon-migrate` on the real Redis: games in mid-play, written by the previous release
(key layout 1), move to layout 2 with their streams identical (entry ids and fields); the dry
run changes nothing, a second run changes nothing, an interrupted run resumes without moving a
key twice, and play resumes, bots included, on real workers."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import uuid

import pytest

from application.background.rq_handoff import RQHandoff
from application.games.game_service import SeatSpec
from application.outbound.webhooks import Webhooks
from application.wiring import build
from cli.bluemoon_migrate import LEGACY_OUTBOX, LEGACY_TOKENS, legacy_key, main, new_key
from domain import Options, legal_commands
from domain.commands import EndTurn
from events import keys
from events.embedded import EmbeddedRedis
from events.projection import entry
from events.store import WrongExpectedVersion
from tests.support.workers import Workers, assert_each_bot_command_applied_once_at_its_version, wait_until

HOOK_URL = "http://127.0.0.1:9/hooks"  # never called: its deliveries are deadline warnings an hour away


@pytest.fixture
def queue_name():
    return f"test-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def client(real_redis):
    return real_redis


@pytest.fixture
def service(client, queue_name, monkeypatch):
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "127.0.0.1")
    return build(client=client, handoff=RQHandoff(client, queue=queue_name)).service


@pytest.fixture
def workers(redis_url, queue_name):
    w = Workers(redis_url, queue_name)
    yield w
    w.stop_all()


class Games:
    """Games in mid-play, made through the application as the previous release would have."""

    def __init__(self, service) -> None:
        self.service = service
        self.bots: list[str] = []  #: seat 1 a greedy bot whose turn is due (an outbox entry)
        self.humans: list[str] = []  #: two humans who played a few commands
        self.hooked: list[str] = []  #: two humans with a turn deadline and webhooks
        self.played: dict[str, tuple[str, object]] = {}  #: game -> its last command's key and command

    @property
    def all(self) -> list[str]:
        return self.bots + self.humans + self.hooked

    def play(self, game: str, rng: random.Random, commands: int, end_turn: bool = False) -> None:
        """Humans (seat 0, or both seats) play random legal commands, the last an end of turn
        if asked; stops at a bot's turn."""
        for n in range(commands):
            state = self.service.state(game)
            seat = state.turn.seat
            if state.finished or self.service.seats(game)[seat]["kind"] != "human":
                return
            command = EndTurn(seat) if end_turn and n == commands - 1 else rng.choice(list(legal_commands(state, seat)))
            key = f"{game}-{n}"
            self.service.submit(game, command, expected=state.version, key=key)
            self.played[game] = (key, command)

    def make(self, count: int) -> Games:
        """A quarter bot games (half started by the bot, half after a human's turn), half human
        games (one in eight of them long enough for a snapshot), a quarter with a deadline and webhooks."""
        humans, bot = [SeatSpec("human"), SeatSpec("human")], [SeatSpec("human"), SeatSpec("bot", level="greedy")]
        for i in range(count):
            rng = random.Random(i)
            if i % 4 == 0:
                game = self.service.create(Options(2), bot, first_player=1 if i % 8 == 0 else 0).game
                self.play(game, rng, 3, end_turn=True)
                self.bots.append(game)
            elif i % 4 in (1, 3):
                game = self.service.create(Options(2), humans).game
                self.play(game, rng, 60 if i % 16 == 3 else rng.randint(2, 8))
                self.humans.append(game)
            else:
                game = self.service.create(Options(2), humans, turn_deadline=3600).game
                hooks = Webhooks(self.service.store)
                for seat in (0, 1):
                    hook = hooks.create(game, seat, HOOK_URL, ["turn.deadline_near", "game.ended"])
                    # a delivery attempt, as the workers log it
                    self.service.client.lpush(keys.webhook_log(game, hook["id"]), '{"outcome": "delivered"}')
                self.play(game, rng, rng.randint(1, 4), end_turn=True)  # the next turn: a deadline warning
                self.hooked.append(game)
        return self


def read(client, key: str):
    """A key's type and whole contents."""
    kind = client.type(key).decode()
    return kind, {
        "stream": lambda: client.xrange(key, "-", "+"),
        "hash": lambda: client.hgetall(key),
        "list": lambda: client.lrange(key, 0, -1),
        "none": lambda: None,
    }[kind]()


def to_layout_1(client, games: list[str]) -> None:
    """Stands for a store written by the previous release: each game's keys renamed to
    ``{game:<id>}:<part>``, its outbox entries moved into the one shared ``{outbox}``, its seat
    tokens into the one ``{index}:tokens`` hash, its lobby summary into the one ``{index}`` slot."""
    mine = set(games)
    for game in games:
        summaries = keys.index_summaries(keys.shard(game))
        doc = json.loads(client.hget(summaries, game))
        client.hset(keys.LEGACY_INDEX_SUMMARY, game, json.dumps(doc))
        client.zadd(keys.LEGACY_INDEX, {game: 1})
        client.hdel(summaries, game)
        for name in keys.LISTINGS:
            client.zrem(keys.index_listing(keys.shard(game), name), entry(game, doc["created"]))
    for raw in list(client.scan_iter(match="token:*", count=1000)):
        owner = client.get(raw)
        if owner.decode().rsplit(":", 1)[0] in mine:
            client.hset(LEGACY_TOKENS, raw.decode().removeprefix("token:"), owner)
            client.delete(raw)
    for raw in list(client.scan_iter(match="*:game:*", count=1000)):
        name = raw.decode()
        game, _, part = name.partition(":game:")[2].partition(":")
        if game in mine and new_key(game, part) == name:
            client.rename(name, legacy_key(game, part))
    for shard in range(keys.SHARDS):
        payloads, due, tries = keys.outbox(shard)
        for raw in client.zrange(due, 0, -1):
            name = raw.decode()
            if keys.owner(name) in mine:
                payload, due_ms, claims = entries_in(client, (payloads, due, tries), [name])[name]
                with client.pipeline() as pipe:
                    pipe.hset(LEGACY_OUTBOX[0], name, payload).zadd(LEGACY_OUTBOX[1], {name: due_ms})
                    if claims is not None:
                        pipe.hset(LEGACY_OUTBOX[2], name, claims)
                    pipe.hdel(payloads, name).zrem(due, name).hdel(tries, name).execute()


def legacy_keys(client, games: list[str]) -> dict[tuple[str, str], object]:
    """Every layout-1 key of these games: (game, part) -> type and contents."""
    mine, found = set(games), {}
    for raw in client.scan_iter(match="{game:*}:*", count=1000):
        game, _, part = raw.decode().removeprefix("{game:").partition("}:")
        if game in mine:
            found[game, part] = read(client, raw.decode())
    return found


def new_keys(client, recorded: dict[tuple[str, str], object]) -> dict[tuple[str, str], object]:
    return {(game, part): read(client, new_key(game, part)) for game, part in recorded}


def entries_in(client, outbox: list[str] | tuple[str, ...], names) -> dict[str, tuple]:
    payloads, due, tries = outbox
    return {n: (client.hget(payloads, n), client.zscore(due, n), client.hget(tries, n)) for n in names}


def legacy_entries(client, games: list[str]) -> dict[str, tuple]:
    mine = set(games)
    names = [n.decode() for n in client.zrange(LEGACY_OUTBOX[1], 0, -1) if keys.owner(n.decode()) in mine]
    return entries_in(client, LEGACY_OUTBOX, names)


def shard_entries(client, names) -> dict[str, tuple]:
    return {n: entries_in(client, keys.outbox_of(n), [n])[n] for n in names}


def no_layout_1_left(client) -> bool:
    return not list(client.scan_iter(match="{game:*}:*", count=1000)) and not client.exists(
        *LEGACY_OUTBOX, LEGACY_TOKENS
    )


def migrate(redis_url: str, capsys, *args: str) -> tuple[int, str]:
    code = main(["--url", redis_url, *args])
    return code, capsys.readouterr().out


@pytest.mark.slow
def test_two_hundred_games_in_mid_play_move_to_layout_2_unchanged_and_play_resumes_bots_included(
    redis_url, client, service, workers, capsys
):
    """Slow: 200 games, and real workers playing the bots' turns afterwards."""
    games = Games(service).make(200)
    versions = {g: service.store.version(g) for g in games.all}
    to_layout_1(client, games.all)
    recorded, entries = legacy_keys(client, games.all), legacy_entries(client, games.all)
    tokens = client.hgetall(LEGACY_TOKENS)
    summaries = {g.decode(): json.loads(doc) for g, doc in client.hgetall(keys.LEGACY_INDEX_SUMMARY).items()}
    assert set(games.all) <= set(summaries) and all(service.index.get(g) is None for g in games.all)
    assert len(tokens) >= 2 * 150, "every human seat's token is in the one hash"
    streams = {game: fields for (game, part), fields in recorded.items() if part == "events"}
    assert set(streams) == set(games.all) and all(kind == "stream" for kind, _ in streams.values())
    assert {game for game, part in recorded if part == "snapshot"}, "the long games have snapshots"
    assert {part.split(":")[0] for _, part in recorded} == {
        "events", "commands", "snapshot", "meta", "webhooks", "webhook-log"
    }  # fmt: skip
    assert set(games.bots) | set(games.hooked) <= {keys.owner(n) for n in entries}
    assert sum(n.startswith("wh:") for n in entries) == len(games.hooked)
    assert all(entries[game][2] == b"1" for game in games.bots), "each bot turn was claimed once, by the hand-off"

    dry = subprocess.run(
        [sys.executable, "-m", "cli.bluemoon_migrate", "--dry-run", "--url", redis_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dry.returncode == 0, dry.stderr
    assert all(f"game {g}:" in dry.stdout for g in games.all) and all(f"entry {n} " in dry.stdout for n in entries)
    assert f"{legacy_key(games.bots[0], 'events')} -> {keys.stream(games.bots[0])}" in dry.stdout
    assert "nothing changed" in dry.stdout
    assert legacy_keys(client, games.all) == recorded and legacy_entries(client, games.all) == entries

    code, out = migrate(redis_url, capsys)
    assert code == 0, out
    assert f"moved {len(games.all)} games ({len(recorded)} keys), {len(entries)} outbox entries" in out
    assert f"and {len(summaries)} lobby summaries" in out
    assert new_keys(client, recorded) == recorded  # streams: the same entry ids and fields, in order
    for game, stream in streams.items():
        assert client.xrange(keys.stream(game)) == stream[1]
    assert no_layout_1_left(client)
    assert shard_entries(client, entries) == entries
    assert {h: client.get(keys.token(h.decode())) for h in tokens} == tokens  # a key per seat token
    assert {g: service.index.get(g) for g in summaries} == summaries  # each in its shard's index
    assert not client.exists(keys.LEGACY_INDEX, keys.LEGACY_INDEX_SUMMARY)
    listed, after = set(), None
    while True:  # the lobby lists them again
        page = service.index.page(limit=100, after=after)
        listed |= {g["game"] for g in page.games}
        if (after := page.next) is None:
            break
    assert set(summaries) <= listed

    code, out = migrate(redis_url, capsys)
    assert code == 0 and "nothing to move" in out, out
    assert new_keys(client, recorded) == recorded and shard_entries(client, entries) == entries

    going_on = [g for g in games.humans if not service.state(g).finished]  # random play may have ended one
    assert len(going_on) >= 20
    for game in going_on[:20]:
        state = service.state(game)
        assert state.version == versions[game]
        command = next(iter(legal_commands(state, state.turn.seat)))
        outcome = service.submit(game, command, expected=state.version, key=f"{game}-after")
        assert outcome.events[0].seq == versions[game] + 1
        with pytest.raises(WrongExpectedVersion):
            service.submit(game, command, expected=versions[game], key=None)
        if game in games.played:
            key, before = games.played[game]
            assert service.submit(game, before, expected=None, key=key).duplicate  # its command ids moved
    for game in games.hooked:
        _, settings = service.access(game, None)
        assert len(settings["webhooks"]) == 2 and settings["pending_turn"].reason == "deadline"

    workers.start()

    def bots_have_played():
        return all(service.state(g).turn.seat == 0 for g in games.bots)

    wait_until(bots_have_played, 240, "every bot game's turn to be played")
    for game in games.bots:
        assert service.store.version(game) > versions[game]
        actors = [s.actor for s in service.store.read(game) if s.type == "TurnEnded"]
        assert actors.count("bot:greedy") == 1
        assert_each_bot_command_applied_once_at_its_version(service, game)


def test_an_interrupted_migration_resumes_and_moves_each_key_once(redis_url, client, service, capsys):
    games = Games(service).make(16)
    to_layout_1(client, games.all)
    recorded, entries = legacy_keys(client, games.all), legacy_entries(client, games.all)

    code, out = migrate(redis_url, capsys, "--limit", "5")  # stopped after 5 games
    assert code == 0 and "moved 5 games" in out and "outbox entries wait with their games" in out, out
    left = legacy_keys(client, games.all)
    moved = set(games.all) - {game for game, _ in left}
    assert len(moved) == 5
    assert new_keys(client, {k: v for k, v in recorded.items() if k[0] in moved}) == {
        k: v for k, v in recorded.items() if k[0] in moved
    }
    assert set(legacy_entries(client, games.all)) == {n for n in entries if keys.owner(n) not in moved}

    # a run killed inside a game: one game's keys all copied, none deleted; another's first key copied
    first, second = sorted({game for game, _ in left})[:2]
    for game, part in left:
        if game == first or (game == second and part == "events"):
            client.restore(new_key(game, part), 0, client.dump(legacy_key(game, part)))

    code, out = migrate(redis_url, capsys)
    assert code == 0 and f"moved {len(games.all) - 5} games" in out, out
    assert new_keys(client, recorded) == recorded  # nothing doubled: every stream as long as it was
    assert no_layout_1_left(client)
    assert shard_entries(client, entries) == entries

    code, out = migrate(redis_url, capsys)
    assert code == 0 and "nothing to move" in out, out


def test_a_key_that_holds_something_else_under_its_new_name_stops_its_game_untouched(
    redis_url, client, service, capsys
):
    games = Games(service).make(3)  # a bot game, a human game, a game with a deadline
    to_layout_1(client, games.all)
    recorded, entries = legacy_keys(client, games.all), legacy_entries(client, games.all)
    game = games.hooked[0]
    client.hset(keys.meta(game), "stray", "written by someone else")

    code, out = migrate(redis_url, capsys, "--dry-run")
    assert code == 1 and f"NOT MOVED: game {game}: {keys.meta(game)} exists and differs" in out, out
    code, out = migrate(redis_url, capsys)
    assert code == 1 and f"NOT MOVED: game {game}" in out and "moved 2 games" in out, out
    assert legacy_keys(client, [game]) == {k: v for k, v in recorded.items() if k[0] == game}
    assert not client.exists(keys.stream(game)), "nothing of the game was written"
    assert set(legacy_entries(client, games.all)) == {n for n in entries if keys.owner(n) == game}

    client.delete(keys.meta(game))  # the operator looks, and removes the stray key
    code, out = migrate(redis_url, capsys)
    assert code == 0 and "moved 1 game (" in out, out
    assert new_keys(client, recorded) == recorded and shard_entries(client, entries) == entries


def test_the_layout_1_names_are_those_the_previous_release_wrote():
    game = "0123abcd"
    assert [legacy_key(game, part) for part in ("events", "commands", "snapshot", "meta", "webhooks")] == [
        "{game:0123abcd}:events",
        "{game:0123abcd}:commands",
        "{game:0123abcd}:snapshot",
        "{game:0123abcd}:meta",
        "{game:0123abcd}:webhooks",
    ]
    assert legacy_key(game, "webhook-log:wh_1") == "{game:0123abcd}:webhook-log:wh_1"
    assert new_key(game, "webhook-log:wh_1") == keys.webhook_log(game, "wh_1")
    assert LEGACY_OUTBOX == ("{outbox}:payloads", "{outbox}:due", "{outbox}:tries")


def test_a_cluster_connection_is_refused(tmp_path, capsys):
    node = EmbeddedRedis(tmp_path, persist=False, extra=("--cluster-enabled", "yes", "--cluster-config-file", "n.conf"))
    try:
        assert main(["--url", node.url]) == 2
    finally:
        node.stop()
    assert "is a Redis Cluster node" in capsys.readouterr().err
