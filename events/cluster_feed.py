"""The live feed on a Redis Cluster: new versions by sharded pub/sub, events from the stream.

A cluster refuses one ``XREAD`` over the streams of games in different slots, so the reader of
``Feed`` cannot serve it. Here each append also publishes the game's new version on the game's
shard channel (``SPUBLISH`` in the append script, Redis 7), and the process's one reader
subscribes to the channels of the games it watches: redis-py's cluster pub/sub holds one
connection per primary however many games are watched. A message only says "read me": the
events come from the stream, after the last version delivered, so a message lost in a
resubscription or a failover costs nothing but time: each (re)subscription, after an error
too, and every ``CATCH_UP_EVERY`` seconds, reads the game again from its last version.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from .feed import GAMES, Feed, Followed

log = logging.getLogger("bluemoon.feed")

POLL = 0.2  #: seconds one wait for a message lasts: new subscriptions are made between two waits
CATCH_UP_EVERY = 5.0  #: seconds between two reads of every watched game, whatever the messages said


class ClusterFeed(Feed):
    """``Feed`` with the reader replaced (see module doc); watchers wait exactly as there. A
    game's first watcher learns the stream's length as there (``Feed._seed``); the reader
    subscribes to the game's channel within one POLL, then reads the stream from that length,
    so nothing appended in between is missed. The catch-up is ``Feed._catch_up``'s pipelines."""

    def __init__(
        self, client: Any, follows: Followed = GAMES, on_read: Callable[[list[Any]], None] | None = None
    ) -> None:
        super().__init__(client, lambda: client, follows=follows, on_read=on_read)

    def _learn_the_primaries(self) -> None:
        """Ask the cluster again which primary holds which slot. redis-py learns of a failover
        when a command meets it, but a pub/sub connection that breaks teaches it nothing: a
        process that only watches would resubscribe to the dead primary for ever."""
        try:
            self._client.nodes_manager.initialize()
        except Exception as error:  # mid-failover no node may answer yet: the next error tries again
            log.warning("cluster feed reader: the cluster's primaries are not known yet: %s", error)

    def _run(self) -> None:
        pubsub: Any = None
        subscribed: set[str] = set()
        pause, caught_up = 0.1, time.monotonic()
        while not self.closing:  # the process is stopping: the reader ends with it
            with self._lock:
                while not self._games and not self.closing:
                    self._work.wait(1.0)
                wanted = set(self._games)
            try:
                if pubsub is None:
                    pubsub, subscribed = self._client.pubsub(), set()
                new, gone = wanted - subscribed, subscribed - wanted
                if gone:
                    pubsub.sunsubscribe(*(self.follows.channel(g) for g in gone))
                if new:
                    pubsub.ssubscribe(*(self.follows.channel(g) for g in new))
                subscribed = wanted
                due = time.monotonic() - caught_up > CATCH_UP_EVERY
                self._catch_up(wanted if due else new)  # after (re)subscribing: nothing missed meanwhile
                if due:
                    caught_up = time.monotonic()
                message = pubsub.get_sharded_message(ignore_subscribe_messages=True, timeout=POLL)
                if message is not None:
                    channel = message["channel"]
                    self._catch_up([self.follows.named(channel.decode() if isinstance(channel, bytes) else channel)])
                pause = 0.1
            except Exception as error:
                if self.closing:
                    break
                log.warning("cluster feed reader: %s; resubscribing in %.1f s", error, pause)
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except Exception:
                        log.debug("closing the broken pub/sub failed too", exc_info=True)
                pubsub = None  # subscribe to every game again, which reads each from its last version
                time.sleep(pause)
                pause = min(pause * 2, 5.0)
                self._learn_the_primaries()
        if pubsub is not None:
            pubsub.close()
