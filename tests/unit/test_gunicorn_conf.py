"""The web workers' garbage collection (service/gunicorn_conf.py): with thousands of watchers a
full collection with Python's thresholds paused a worker for up to a second."""

from __future__ import annotations

import gc
import signal
from types import SimpleNamespace

from service import gunicorn_conf


def test_a_worker_freezes_the_app_and_collects_less_often():
    thresholds, sigterm = gc.get_threshold(), signal.getsignal(signal.SIGTERM)
    worker = SimpleNamespace(handle_exit=lambda sig, frame: None, wsgi=None)
    try:
        gunicorn_conf.post_worker_init(worker)
        assert gc.get_threshold() == gunicorn_conf.gc_thresholds
        assert gc.get_threshold()[0] >= 10 * 700  # young objects at least 10 times less often
        assert gc.get_freeze_count() > 0  # the app's own objects are left out
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        signal.signal(signal.SIGTERM, sigterm)
