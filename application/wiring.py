"""Wiring: build the Redis clients, the store and the application service in one place.

Game data (the store) and the job queue (RQ) may live apart: ``STORE_URL`` names one Redis or a
Redis Cluster (detected by asking it) for game data, ``QUEUE_URL`` one Redis for RQ; each falls
back to ``REDIS_URL``, and without any of them an embedded redis-server is started on
``var/redis`` (see events/embedded.py) for as long as this process lives.
"""

from __future__ import annotations

import atexit
import functools
import os
from dataclasses import dataclass
from typing import Any

import redis
from redis.cluster import RedisCluster

from application.accounts.account_service import Accounts
from application.alerts.channel_settings import AlertSettings
from application.archive.moves import Mover
from application.archive.opening import opened
from application.background.handoff import Handoff
from application.challenges.challenges import Challenges
from application.chat.notices import CHAT
from application.games.game_service import GameService
from application.games.vacations import Vacations
from application.lobby.open_games import Tables
from application.lobby.ratings import Ratings
from application.lobby.rematches import Rematches
from application.people.relations import Relations
from application.people.suspensions import Suspensions
from application.settings import (
    BLUEMOON_DATA,
    QUEUE_URL,
    REDIS_SERVER,
    REDIS_URL,
    STORE_REPLICAS,
    STORE_URL,
    STORE_WAIT_MS,
)
from application.telemetry.metrics import feed_lag
from application.tournaments.rounds import Rounds
from application.tournaments.tournaments import Tournaments
from events.cluster_feed import ClusterFeed
from events.feed import BLOCK_MS, Feed
from events.person_streams import PEOPLE, PersonStreams
from events.redis_store import RedisStore

#: Socket timeouts of the service's own calls (short reads and Lua appends): during an outage
#: they fail within seconds, and the API answers 503 instead of hanging.
CALL_TIMEOUTS: dict[str, Any] = {"socket_timeout": 5.0, "socket_connect_timeout": 2.0, "health_check_interval": 30}
#: Connections per process: a burst of requests waits up to POOL_WAIT seconds for one
#: instead of failing (redis-py's plain pool refuses past its limit).
POOL_SIZE, POOL_WAIT = 50, 5.0
#: The feed's reader waits up to BLOCK_MS for an announcement: its socket must wait longer than that.
READER_TIMEOUTS: dict[str, Any] = {"socket_timeout": BLOCK_MS / 1000 + 5.0, "socket_connect_timeout": 2.0}


@dataclass
class Components:
    client: Any
    store: RedisStore
    service: GameService
    url: str
    feed: Feed
    accounts: Accounts
    ratings: Ratings
    tables: Tables
    rematches: Rematches
    alerts: AlertSettings
    vacations: Vacations
    person_streams: PersonStreams
    person_feed: Feed  #: the people's streams' live feed (events/person_streams.py), as ``feed`` is the games'
    relations: Relations
    suspensions: Suspensions
    mover: Mover  #: moves finished games to the archive (application/archive/)
    challenges: Challenges
    chat_feed: Feed  #: the games' chat notices' live feed (application/chat/notices.py)
    tournaments: Tournaments
    rounds: Rounds  #: what time does to tournaments: starts, rounds, results (application/tournaments/rounds.py)


def redis_url() -> str:
    """REDIS_URL, or the embedded server on ``var/redis`` (BLUEMOON_DATA), started by the
    first process that needs it and found there by the others (web workers, RQ workers)."""
    url = REDIS_URL.read()
    if url:
        return url
    from events.embedded import shared

    url, server = shared(BLUEMOON_DATA.read(), binary=REDIS_SERVER.read())
    if server is not None:
        atexit.register(server.stop)
    os.environ["REDIS_URL"] = url  # child processes use the same server
    return url


def store_url() -> str:
    """Where game data lives: STORE_URL, else REDIS_URL or the embedded server. STORE_URL may
    list several nodes of a cluster, comma-separated: the first that answers is used, so that a
    process (a worker's job opens its own client) starting while one node is down still finds
    the cluster; the client learns every other node from it."""
    listed = [url.strip() for url in STORE_URL.read().split(",") if url.strip()]
    if len(listed) > 1:
        return next((url for url in listed if _answers(url)), listed[0])
    return listed[0] if listed else redis_url()


def _answers(url: str) -> bool:
    probe = redis.Redis.from_url(url, socket_timeout=1.0, socket_connect_timeout=1.0)
    try:
        return bool(probe.ping())
    except redis.RedisError:
        return False
    finally:
        probe.close()


def queue_url() -> str:
    """Where RQ's queue lives (never a cluster: RQ cannot run on one): QUEUE_URL, else
    REDIS_URL or the embedded server."""
    return QUEUE_URL.read() or redis_url()


def is_cluster(url: str) -> bool:
    """Whether ``url`` names a node of a Redis Cluster. A node that does not answer is taken
    for a single Redis (the service then answers 503 until it does)."""
    probe = redis.Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)
    try:
        return bool(probe.info("cluster").get("cluster_enabled"))
    except redis.RedisError:
        return False
    finally:
        probe.close()


class _WaitingPool(redis.BlockingConnectionPool):
    """A cluster node's pool that makes a burst wait up to POOL_WAIT seconds for a connection, as
    the pool of one Redis does; redis-py's default pool raises "Too many connections" at once,
    which ended live streams when 300 watchers opened together."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(timeout=POOL_WAIT, **kwargs)


def connect(url: str) -> Any:
    """A client for the service's own calls with short timeouts: on a single Redis a bounded
    pool, on a cluster redis-py's cluster client (one pool per node)."""
    if is_cluster(url):
        return RedisCluster.from_url(
            url, max_connections=POOL_SIZE, connection_pool_class=_WaitingPool, **CALL_TIMEOUTS
        )
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=POOL_SIZE, timeout=POOL_WAIT, **CALL_TIMEOUTS)
    return redis.Redis(connection_pool=pool)


def store_client_for_job(queue_connection: Any) -> Any:
    """The store's client in a job: the job's own connection when the store and the queue are
    one Redis, else a client of the store's own."""
    url = store_url()
    return queue_connection if url == queue_url() else connect(url)


def store_for(client: Any, publish: bool) -> RedisStore:
    """The store on ``client``. STORE_REPLICAS: how many replicas must confirm each append (WAIT)
    before the client hears of it, so that a failover loses no acknowledged command;
    STORE_WAIT_MS: how long they may take. Finished games moved out of Redis are read from the
    archive (ARCHIVE_URL; opened once a process, refused at start when wrong or unreachable)."""
    replicas, wait_ms = STORE_REPLICAS.read(), STORE_WAIT_MS.read()
    return RedisStore(client, publish=publish, replicas=replicas, wait_ms=wait_ms, archive=opened())


def build(url: str | None = None, client: Any = None, handoff: Handoff | None = None) -> Components:
    """Everything the web and worker processes need. ``client`` is used as given (fakeredis in
    unit tests); otherwise one is made for ``url`` (by default REDIS_URL, else the embedded
    server). ``handoff`` takes the work the outbox hands on (RQ: application/background/rq_handoff.py);
    without one, the work waits in the outbox for a process that has one."""
    if client is None:
        url = url or redis_url()
        client = connect(url)
    if isinstance(client, RedisCluster):  # the games' own channels, by sharded pub/sub
        feed: Feed = ClusterFeed(client, on_read=feed_lag("game"))
        person_feed: Feed = ClusterFeed(client, follows=PEOPLE, on_read=feed_lag("person"))
        chat_feed: Feed = ClusterFeed(client, follows=CHAT)
    else:  # the feed's reader subscribes, so it has a connection of its own where there is a URL to open one
        reader = functools.partial(redis.Redis.from_url, url, **READER_TIMEOUTS) if url else lambda: client
        feed = Feed(client, reader, on_read=feed_lag("game"))
        person_feed = Feed(client, reader, follows=PEOPLE, on_read=feed_lag("person"))
        chat_feed = Feed(client, reader, follows=CHAT)
    store = store_for(client, publish=True)  # each append is announced to the feeds
    service = GameService(client, store, handoff, on_append=feed.publish)
    accounts, ratings = Accounts(store), Ratings(store)
    relations, suspensions = Relations(store), Suspensions(store)
    return Components(
        client,
        store,
        service,
        url or "",
        feed,
        accounts,
        ratings,
        Tables(store, service, accounts, ratings),
        Rematches(store, service, accounts),
        AlertSettings(store),
        Vacations(store, accounts, service.clocks, service.outbox),
        PersonStreams(store),
        person_feed,
        relations,
        suspensions,
        Mover(client, opened(), service.outbox),
        Challenges(store, service, accounts, relations, suspensions),
        chat_feed,
        tournaments := Tournaments(store, service, accounts, ratings, relations, suspensions),
        Rounds(tournaments, service),
    )
