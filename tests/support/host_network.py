"""The host's network, shared by the browser tests and held alone by the containers' test.

Podman makes and removes a bridge and veth interfaces for the containers (containers/smoke.py).
Chromium hears each change (its network change notifier) and fails every request in flight with
``net::ERR_NETWORK_CHANGED``: a page whose module scripts failed so never starts, and its test
waits for nothing (CI, 2026-11-28: the chat test's form never came, its page's scripts all
failed at once). So each browser test holds the network shared, and the containers' test holds it
alone. A containers' test that waits lets no new browser test start (a turnstile), so the other
workers' browser tests, one after another, never starve it; it waits for the running ones."""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_LOCKS = Path(tempfile.gettempdir())


@contextmanager
def host_network(alone: bool) -> Iterator[None]:
    """The host's network for the with-block: shared (a browser test) or ``alone`` (the
    containers' test), against every process of every test run on this machine."""
    with (
        open(_LOCKS / "bluemoon-tests-network-turnstile.lock", "w") as turnstile,
        open(_LOCKS / "bluemoon-tests-network.lock", "w") as network,
    ):
        fcntl.flock(turnstile, fcntl.LOCK_EX)  # a containers' test waiting holds it: no new browser test
        if alone:
            fcntl.flock(network, fcntl.LOCK_EX)  # the running browser tests have ended
        else:
            fcntl.flock(network, fcntl.LOCK_SH)
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        yield  # both released when their files close
