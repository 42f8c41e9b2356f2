"""The live feed on a real Redis Cluster: a web process's watchers hear of another process's
appends by sharded pub/sub (one connection per primary, however many games are watched) and
read the events from the streams, every event once and in order, also after their
subscriptions were cut."""

from __future__ import annotations

import threading

import pytest
import redis

from application.background.handoff import CallbackHandoff
from events import cluster_feed, keys
from service.app import create_app
from tests.api.client import CheckedClient


@pytest.fixture
def two_processes(cluster_urls, monkeypatch):
    """Two apps on the cluster, each with its own feed, as two web processes would be."""
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")  # the test cluster keeps nothing on disk
    # no periodic catch-up: what the watchers hear comes by pub/sub, or by the catch-up after an error
    monkeypatch.setattr(cluster_feed, "CATCH_UP_EVERY", 3600.0)
    apps = [
        create_app({"REDIS_URL": cluster_urls[0], "RATE_LIMIT": 0, "HANDOFF": CallbackHandoff(lambda t: None)})
        for _ in range(2)
    ]
    return [CheckedClient(app) for app in apps]


def _games_on_every_primary(api, client, each: int) -> list[tuple[str, list[str]]]:
    """``each`` new games on each of the three primaries."""
    by_primary: dict[int, list[tuple[str, list[str]]]] = {}
    while len(by_primary) < 3 or min(len(g) for g in by_primary.values()) < each:
        assert sum(len(g) for g in by_primary.values()) < 30 * each, "the games do not spread over the primaries"
        created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).get_json()
        owner = client.get_node_from_key(keys.stream(created["game"])).port
        by_primary.setdefault(owner, []).append((created["game"], [s["token"] for s in created["seats"]]))
    return [game for games in by_primary.values() for game in games[:each]]


def _end_turn(api, game: str, tokens: list[str]) -> None:
    view = api.get(f"/games/{game}").get_json()
    seat = view["turn"]["seat"]
    played = api.post(
        f"/games/{game}/commands",
        json={"type": "end_turn", "discards": [], "expected_version": view["version"]},
        headers={"Authorization": f"Bearer {tokens[seat]}"},
    )
    assert played.status_code == 200, played.get_json()


def _long_polls(api, games, versions) -> tuple[list[threading.Thread], dict[str, list[dict]]]:
    heard: dict[str, list[dict]] = {}

    def poll(game: str) -> None:
        page = api.get(f"/games/{game}/events?after={versions[game]}&wait=10").get_json()
        heard[game] = page["events"]

    threads = [threading.Thread(target=poll, args=(game,)) for game, _ in games]
    for t in threads:
        t.start()
    return threads, heard


def _all_subscribed(cluster_urls, games) -> bool:
    """Whether every game's live channel has a subscriber (on the primary that owns it)."""
    channels = [keys.live(game) for game, _ in games]
    heard: dict[str, int] = dict.fromkeys(channels, 0)
    for url in cluster_urls:
        node = redis.Redis.from_url(url)
        reply = node.execute_command("PUBSUB", "SHARDNUMSUB", *channels)
        node.close()
        pairs = reply.items() if isinstance(reply, dict) else zip(reply[::2], reply[1::2])
        for channel, count in pairs:
            name = channel.decode() if isinstance(channel, bytes) else channel
            heard[name] += int(count)
    return all(heard.values())


def _until(condition, what: str) -> None:
    for _ in range(100):
        if condition():
            return
        threading.Event().wait(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _until_subscribed(cluster_urls, games) -> None:
    _until(lambda: _all_subscribed(cluster_urls, games), "the watcher to subscribe to every game")


def _subscribers(cluster_urls) -> list[int]:
    """Per primary: how many connections hold shard subscriptions."""
    counts = []
    for url in cluster_urls:
        node = redis.Redis.from_url(url)
        counts.append(sum(1 for c in node.client_list() if int(c.get("ssub", 0)) > 0))
        node.close()
    return counts


def _watching(two_processes, cluster_urls, each: int):
    """Games on every primary (``each`` per primary) made by one process, long-polled by the
    other, whose reader has subscribed to all of them."""
    writer, watcher = two_processes
    service = writer.app.extensions["bluemoon"].service
    games = _games_on_every_primary(writer, service.client, each)
    versions = {game: service.state(game).version for game, _ in games}
    threads, heard = _long_polls(watcher, games, versions)
    _until_subscribed(cluster_urls, games)
    return writer, games, versions, threads, heard


def test_watchers_on_one_process_hear_every_event_of_another_once_in_order(two_processes, cluster_urls):
    writer, games, versions, threads, heard = _watching(two_processes, cluster_urls, 4)
    assert _subscribers(cluster_urls) == [1, 1, 1]  # one connection per primary for all the games
    for game, tokens in games:
        _end_turn(writer, game, tokens)
    for t in threads:
        t.join(15)
    for game, _ in games:
        seqs = [e["seq"] for e in heard[game]]
        assert seqs and seqs == list(range(versions[game] + 1, versions[game] + 1 + len(seqs)))
        assert heard[game][0]["type"] == "TurnEnded" or any(e["type"] == "TurnEnded" for e in heard[game])


def test_a_watcher_whose_subscriptions_were_cut_still_hears_every_event(two_processes, cluster_urls):
    writer, games, versions, threads, heard = _watching(two_processes, cluster_urls, 2)
    _until(lambda: min(_subscribers(cluster_urls)) >= 1, "a subscribed connection on every primary")
    killed = []
    for url in cluster_urls:  # the subscriptions are cut (a failover, a network blip)
        node = redis.Redis.from_url(url)
        ids = [c["id"] for c in node.client_list() if int(c.get("ssub", 0)) > 0]
        killed.append(sum(int(node.execute_command("CLIENT", "KILL", "ID", i)) for i in ids))
        node.close()
    # one cut connection is enough: the reader then drops all of them and subscribes again
    assert sum(killed) >= 1, f"the watcher's subscriptions were not cut: {killed}"
    for game, tokens in games:  # at once: published before the reader has subscribed again
        _end_turn(writer, game, tokens)
    for t in threads:
        t.join(20)
    for game, _ in games:
        seqs = [e["seq"] for e in heard.get(game, [])]
        assert seqs and seqs[0] == versions[game] + 1 and seqs == sorted(set(seqs))
