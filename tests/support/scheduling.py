"""How pytest-xdist hands out the suite: every browser test to one worker, in one line.

The browser tests run one at a time (a lock file, tests/e2e/conftest.py), and under xdist's
``load`` scheduling they were spread over every worker: a worker that drew one waited on the
lock, doing nothing, while another's browser ran. With two of three workers waiting, most of
the suite ran on one. Here the browser tests are one unit of work, and so are the two fuzzing
runs; xdist's scope scheduling (largest unit first) gives the browsers' unit to one worker at
the start, and every other test is a unit of its own, spread over the other workers as ``load``
would."""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: ``browsers``, ``fuzzing``, or the test alone."""
    path = nodeid.split("::", 1)[0]
    if path.endswith("_browser.py"):
        return "browsers"
    if path.endswith("/test_fuzz.py"):
        return "fuzzing"
    return nodeid


class BrowsersInOneLine(LoadScopeScheduling):
    """xdist's scope scheduling with ``unit_of`` as the scope."""

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)
