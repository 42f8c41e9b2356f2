"""The lobby's index is sharded like the games: a page merges every shard's newest entries.

On a cluster its pages equal those of one Redis, entry for entry, and reading a page reads only
the summaries it shows. The games here are dated 1990, and pages start after 1991, so the games
other tests leave in the shared servers (created today) never show up in them."""

from __future__ import annotations

import dataclasses
import threading
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import redis
from redis.cluster import RedisCluster

from domain import Options, fold, new_game
from domain.state import EndReason, Result
from events import keys
from events.embedded import EmbeddedRedis
from events.projection import GameIndex, entry

EPOCH = datetime(1990, 1, 1, tzinfo=UTC)
START = f"{round(datetime(1991, 1, 1, tzinfo=UTC).timestamp() * 1000):013d}:z"  #: newer than every game here
OPENING = fold(new_game(Options(2), seed=b"index"))


def _games(count: int) -> list[tuple[str, str, bool]]:
    """(game, created, finished): three games a millisecond, so that ties are broken by id."""
    return [(uuid.uuid4().hex, (EPOCH + timedelta(milliseconds=i // 3)).isoformat(), i % 4 == 0) for i in range(count)]


def _record(index: GameIndex, games: list[tuple[str, str, bool]]) -> None:
    for game, created, finished in games:
        index.record(game, OPENING, created)
        if finished:  # a game that ends leaves the active list for the finished one
            ended = dataclasses.replace(OPENING, result=Result(EndReason.OFFERINGS, (0,)), version=OPENING.version + 9)
            index.record(game, ended, created)


def _walk(index: GameIndex, status: str | None, limit: int) -> list[list[str]]:
    pages, after = [], START
    while after is not None:
        page = index.page(status, limit, after)
        pages.append([summary["game"] for summary in page.games])
        after = page.next
    return pages


@pytest.fixture
def one_node(tmp_path):
    server = EmbeddedRedis(tmp_path / "one", persist=False)
    client = redis.Redis(port=server.port)
    yield client
    client.close()
    server.stop()


@pytest.mark.parametrize("status", [None, "active", "finished"])
def test_pages_on_a_cluster_equal_those_of_one_redis_newest_first(cluster_urls, one_node, status):
    games = _games(200)
    cluster = RedisCluster.from_url(cluster_urls[0])
    cluster.flushall(target_nodes=RedisCluster.PRIMARIES)  # the session's cluster: no 1990 games of another run
    on_cluster, on_one = GameIndex(cluster), GameIndex(one_node)
    _record(on_cluster, games)
    _record(on_one, games)
    wanted = sorted(
        (entry(g, created) for g, created, finished in games if status is None or finished == (status == "finished")),
        reverse=True,
    )
    pages = _walk(on_cluster, status, 7)
    assert pages == _walk(on_one, status, 7)
    assert [g for page in pages for g in page] == [name.split(":")[1] for name in wanted]
    assert all(len(page) == 7 for page in pages[:-1]) and 0 < len(pages[-1]) <= 7
    statuses = {on_cluster.get(g)["status"] for page in pages for g in page}
    assert statuses == ({"active", "finished"} if status is None else {status})
    cluster.close()


def test_a_page_reads_only_the_summaries_it_shows(one_node):
    """Seen from the server (MONITOR): one bounded range of each shard's listing, then the
    summaries of the page's games and no others."""
    index = GameIndex(one_node)
    _record(index, _games(300))
    seen: list[list[str]] = []
    monitoring = threading.Event()

    def watch() -> None:
        with one_node.monitor() as monitor:
            monitoring.set()
            for command in monitor.listen():
                words = command["command"].split()
                if words[:2] == ["ECHO", "done"]:
                    return
                seen.append(words)

    watcher = threading.Thread(target=watch)
    watcher.start()
    monitoring.wait(5)
    page = index.page("active", 10, START)
    one_node.echo("done")
    watcher.join(5)
    ranges = [w for w in seen if w[0] == "ZREVRANGEBYLEX"]
    summaries = [w for w in seen if w[0] == "HMGET"]
    assert len(page.games) == 10
    assert len(ranges) == keys.SHARDS and all(w[-2:] == ["0", "11"] for w in ranges)  # LIMIT 0 11
    assert sorted(g for w in summaries for g in w[2:]) == sorted(summary["game"] for summary in page.games)
    assert {w[0] for w in seen} <= {"ZREVRANGEBYLEX", "HMGET", "HELLO", "CLIENT"}, (
        seen
    )  # and a new connection's greeting
