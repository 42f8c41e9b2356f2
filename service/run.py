"""Run the whole service on one machine: ``bluemoon`` (or ``python -m service.run``).

Starts an embedded redis-server unless REDIS_URL is set, then the web process (gunicorn, the
Procfile's ``web`` line) and one RQ worker (the ``worker`` line), and stops them all on
Ctrl-C or SIGTERM.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time


def commands(port: int, workers: int, url: str) -> list[list[str]]:
    web = [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf",
           "--workers", str(workers), "--bind", f"127.0.0.1:{port}"]
    worker = [sys.executable, "-m", "rq.cli", "worker", "--with-scheduler", "--url", url, "bluemoon"]
    return [web, worker]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--bot-workers", type=int, default=1)
    args = parser.parse_args(argv)
    from .bootstrap import redis_url

    url = redis_url()  # starts the embedded server when REDIS_URL is unset
    env = {**os.environ, "REDIS_URL": url}
    web, worker = commands(args.port, args.web_workers, url)
    children = [subprocess.Popen(web, env=env)] + [subprocess.Popen(worker, env=env) for _ in range(args.bot_workers)]
    print(f"Blue Moon City on http://127.0.0.1:{args.port} (docs at /docs), Redis at {url}", flush=True)
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while not stopping and all(c.poll() is None for c in children):
            time.sleep(0.2)
    finally:
        for c in children:
            if c.poll() is None:
                c.terminate()
        for c in children:
            try:
                c.wait(10)
            except subprocess.TimeoutExpired:
                c.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
