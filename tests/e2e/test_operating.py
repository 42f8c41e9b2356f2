"""What an operator watches, on the whole service as ``bluemoon`` runs it (gunicorn's two
workers, a turn worker, a delivery worker; on the embedded Redis and on a cluster): ``/metrics``
sums every process's numbers and reads Redis's, and one request id finds in the logs the
command, the bot's reply and the webhook deliveries they caused."""

from __future__ import annotations

import json
import os
import signal
import urllib.request
import uuid
from pathlib import Path

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from bench.server import serve
from tests.e2e.conftest import call
from tests.support.receiver import Receiver
from tests.support.stopped import stop
from tests.support.workers import wait_until

TOKEN = "operator-" + uuid.uuid4().hex
Sample = tuple[str, tuple[tuple[str, str], ...]]


def scrape(base: str) -> dict[Sample, float]:
    request = urllib.request.Request(base + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def moved(before: dict[Sample, float], after: dict[Sample, float], metric: str, **labels: str) -> float:
    key = (metric, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


def workers_of(supervisor: int) -> list[int]:
    """The ``bluemoon-worker`` processes ``bluemoon`` started."""
    children = Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split()
    return [int(pid) for pid in children if b"cli.bluemoon_worker" in Path(f"/proc/{pid}/cmdline").read_bytes()]


def unblock(queue_url: str) -> None:
    """Hand every blocked pop on the queue Redis an empty answer (CLIENT UNBLOCK): a stopped worker
    then takes no job that comes meanwhile (Redis would hand it to its open BLPOP), and reads the
    empty answer as a wait that timed out when it goes on."""
    with redis.Redis.from_url(queue_url) as queue:
        for client in queue.client_list():
            if "b" in client["flags"]:
                queue.client_unblock(int(client["id"]))


def json_lines(log: Path) -> list[dict]:
    lines = []
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            lines.append(json.loads(line))
    return lines


@pytest.mark.slow
def test_the_numbers_move_and_one_request_id_finds_the_command_the_bots_reply_and_the_webhooks(
    start_service, store_backend, tmp_path
):
    """Slow: starts the whole service (about 3 s) and waits for a bot's turn and the webhook
    deliveries of its events. Both workers are stopped (SIGSTOP) while a command is played, so the scrape
    sees the bot's turn waiting in its queue and the webhook's delivery due in the outbox; once
    they go on, it sees the bot's commands and the deliveries counted (in the work-horses'
    files, summed by the web's /metrics)."""
    receiver = Receiver(200)
    try:
        folder = tmp_path / "metrics"
        base = start_service(
            review_workers=1, METRICS_TOKEN=TOKEN, WEBHOOK_ALLOW_HOSTS="127.0.0.1", PROMETHEUS_MULTIPROC_DIR=str(folder)
        )
        status, made = call(
            base,
            "POST",
            "/games",
            {
                "seats": [{"kind": "human", "name": "Ops"}, {"kind": "bot", "level": "greedy"}],
                "setup": {"first_player": 0},
            },
        )
        assert status == 201, made
        game, token = made["game"], made["seats"][0]["token"]
        status, _ = call(base, "POST", f"/games/{game}/webhooks", {"url": receiver.url, "events": ["event"]}, token)
        assert status == 201
        status, legal = call(base, "GET", f"/games/{game}/legal", token=token)
        end_turn = next(c for c in legal["commands"] if c["type"] == "end_turn")
        workers = workers_of(start_service.started[-1].pid)
        assert len(workers) == 3  # turns, deliveries and reviews
        before = scrape(base)
        stop(workers)  # every thread of each: a dispatcher awake at the signal would claim the delivery
        unblock(
            store_backend.get("QUEUE_URL")
            or f"redis://127.0.0.1:{(tmp_path / 'redis-0' / 'embedded.port').read_text()}"
        )
        request_id = "trace-" + uuid.uuid4().hex
        try:
            status, played = call(
                base,
                "POST",
                f"/games/{game}/commands",
                end_turn,
                token,
                headers={"If-Match": f'"{legal["version"]}"', "Idempotency-Key": "ops-1", "X-Request-ID": request_id},
            )
            assert status == 200, played
            waiting = scrape(base)
        finally:
            for pid in workers:
                os.kill(pid, signal.SIGCONT)
        assert moved(before, waiting, "bluemoon_commands_applied_total", actor="seat") == 1
        assert moved(before, waiting, "bluemoon_http_requests_total", operation="postCommand", status="200") == 1
        assert moved(before, waiting, "bluemoon_http_request_seconds_count", operation="postCommand") == 1
        assert moved(before, waiting, "bluemoon_queue_jobs", queue="turns") == 1  # the bot's turn
        assert waiting[("bluemoon_outbox_due", (("kind", "webhook"),))] >= 1  # no dispatcher ran
        assert waiting[("bluemoon_reading_ok", (("reading", "outbox"),))] == 1

        def traced() -> list[dict]:
            return [line for line in json_lines(start_service.logs[-1]) if line.get("request_id") == request_id]

        def bots_delivery_traced() -> bool:
            """A delivery of one of the bot's events (after the command's version) is logged as this
            request's work: its job is named by the message's ``webhook-id``."""
            jobs = {t.get("job") for t in traced()}
            return any(
                json.loads(m["body"])["version"] > played["version"] and f"wh-{m['headers']['webhook-id']}-1" in jobs
                for m in receiver.requests
            )

        wait_until(bots_delivery_traced, 30, "the bot's reply, delivered as the same request's work")
        after = scrape(base)
        assert moved(before, after, "bluemoon_commands_applied_total", actor="bot") >= 1
        assert moved(before, after, "bluemoon_deliveries_total", channel="webhook", outcome="delivered") >= 2
        assert moved(before, after, "bluemoon_queue_jobs", queue="turns") == 0
        found = traced()
        assert any(t["msg"] == "request" and t["path"] == f"/games/{game}/commands" for t in found)  # the web's
        assert any(t["msg"] == "job" and t["function"] == "workers.turn_jobs.play_turn" and t["ok"] for t in found)
        deliveries = [t for t in found if t.get("function") == "workers.webhook_delivery.deliver"]
        assert len(deliveries) >= 2 and all(t["ok"] for t in deliveries)  # the command's, and the bot's reply's

        # a dozen jobs, each in a work-horse of its own, left no file each: a worker's horses share one
        counted_by = {path.stem.rsplit("_", 1)[1] for path in folder.glob("*.db")}
        web_workers, workers_and_horses = 2, 2 * len(workers)
        # (the reviews worker ran nothing: no game ended)
        busy = [pid for pid in workers if b"reviews" not in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert {f"horse{pid}" for pid in busy} <= counted_by
        assert len(counted_by) <= web_workers + workers_and_horses
    finally:
        receiver.server.shutdown()


@pytest.mark.slow
@pytest.mark.own_store
def test_gunicorn_alone_sums_its_workers_numbers_whichever_answers_the_scrape(redis_url):
    """Slow: starts gunicorn (about 2 s). Run as the Procfile's ``web`` line, without
    PROMETHEUS_MULTIPROC_DIR: its two workers still share a folder (service/gunicorn_conf.py),
    so every scrape, whichever worker answers it, counts every request."""
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(REDIS_URL=redis_url, METRICS_TOKEN=TOKEN, BLUEMOON_UNSAFE_REDIS="1", RATE_LIMIT="0")
    proc, port = serve("service.app:create_app()", env)
    try:
        base = f"http://127.0.0.1:{port}"
        health = ("bluemoon_http_requests_total", (("operation", "health"), ("status", "200")))
        before = scrape(base)[health]
        for _ in range(20):  # a connection each: the two workers take them as they come
            assert call(base, "GET", "/healthz")[0] == 200
        assert [scrape(base)[health] - before for _ in range(6)] == [20] * 6
    finally:
        proc.terminate()
        proc.wait(30)
