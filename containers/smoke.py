"""Builds the images (Dockerfile), starts compose.yaml with podman-compose, plays a command
against a bot through the API and tears everything down: the check that the containers work.

Run by hand as root on a machine with podman, podman-compose and debootstrap (Debian:
``apt-get install podman podman-compose debootstrap runc``): ``python3 containers/smoke.py``.
It takes minutes (a Debian base by debootstrap, then three images), too long for the test suite:
docs/operations.md ("Running in containers") gives the measured times. Standard library only,
so it needs no virtualenv.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BASE = os.environ.get("BLUEMOON_BASE", "localhost/bluemoon-debian:bookworm")
PORT = os.environ.get("BLUEMOON_PORT", "18000")
PROJECT = "bluemoon_smoke"
TARGETS = {"service": "localhost/bluemoon:latest", "redis": "localhost/bluemoon-redis:latest",
           "postgres": "localhost/bluemoon-postgres:latest"}  # fmt: skip
#: the host's CA bundle, lent to pip in the build for networks whose HTTPS is intercepted
HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")


def run(*command: str, check: bool = True) -> str:
    """Runs a command, its output kept; a failure shows what it printed."""
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return done.stdout


def timed(label: str, *command: str) -> str:
    started = time.monotonic()
    output = run(*command)
    print(f"{label}: {time.monotonic() - started:.0f} s", flush=True)
    return output


def build() -> None:
    if subprocess.call(["podman", "image", "exists", BASE]) != 0:
        timed("base image (debootstrap + import)", str(HERE / "base-image.sh"), BASE)
    for target, image in TARGETS.items():
        extra = ["-v", f"{HOST_CA}:/run/host-ca.crt:ro", "--build-arg", "PIP_CERT=/run/host-ca.crt"]
        timed(
            f"image {target}",
            "podman", "build", "--format", "docker", "--target", target, "-t", image,
            "--build-arg", f"BASE={BASE}", *(extra if target == "service" and HOST_CA.exists() else []), ".",
        )  # fmt: skip


def call(method: str, path: str, body: dict | None = None, **headers: str) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{PORT}{path}", method=method, data=json.dumps(body).encode() if body else None,
        headers={"Content-Type": "application/json", **headers},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def wait_ready(seconds: float = 120) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        try:
            status, body = call("GET", "/readyz")
            if status == 200:
                return body
        except (OSError, ValueError):
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"/readyz not ready after {seconds:.0f} s:\n" + run("podman", "logs", f"{PROJECT}_web_1"))
        time.sleep(1)


def play() -> None:
    """A game against a bot: one turn of ours ended through the API, then the worker's reply."""
    status, game = call("POST", "/games", {"seats": [{"kind": "human", "name": "Container Ana"},
                                                     {"kind": "bot", "level": "greedy"}], "setup": {"first_player": 0}})  # fmt: skip
    assert status == 201, (status, game)
    gid, token, version = game["game"], game["seats"][0]["token"], game["version"]
    auth = {"Authorization": f"Bearer {token}"}
    _, legal = call("GET", f"/games/{gid}/legal", **auth)
    end_turn = next(command for command in legal["commands"] if command["type"] == "end_turn")
    status, played = call("POST", f"/games/{gid}/commands", end_turn, **auth, **{"If-Match": f'"{version}"'})
    assert status in (200, 201), (status, played)
    _, view = call("GET", f"/games/{gid}", **auth)
    ours = int(view["version"])  # our turn's end: what follows is the bot's, played by the worker
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, events = call("GET", f"/games/{gid}/events?after={ours}&wait=10", **auth)
        if status == 200 and events.get("events"):
            print(f"the worker's bot answered: {len(events['events'])} events after version {ours}")
            return
    raise SystemExit("the bot did not play within 60 s:\n" + run("podman", "logs", f"{PROJECT}_worker_1"))


def check_containers() -> None:
    """Non-root web process, the image's health check passing, Redis keeping an append-only file,
    the archive's tables made in PostgreSQL by the service (which refuses to start without it),
    ``bluemoon-admin backup`` (Redis and the archive, by pg_dump) made and verified in the image."""
    uid = run("podman", "exec", f"{PROJECT}_web_1", "id", "-u").strip()
    assert uid == "10001", f"the web process runs as uid {uid}"
    run("podman", "healthcheck", "run", f"{PROJECT}_web_1")
    aof = run("podman", "exec", f"{PROJECT}_redis_1", "redis-cli", "config", "get", "appendonly").split()
    assert aof == ["appendonly", "yes"], aof
    tables = run("podman", "exec", f"{PROJECT}_postgres_1", "psql", "-U", "postgres", "-d", "bluemoon", "-tAc",
                 "SELECT tablename FROM pg_tables WHERE tableowner = 'bluemoon' ORDER BY 1").split()  # fmt: skip
    assert "archived_games" in tables, f"the service made no archive in PostgreSQL: {tables}"
    web = ("podman", "exec", f"{PROJECT}_web_1", "bluemoon-admin")
    run(*web, "backup", "/home/bluemoon/smoke-backup")
    run(*web, "backup", "--verify", "/home/bluemoon/smoke-backup")
    print(
        f"a backup made and verified in the web container; web runs as uid 10001, its health check passes, Redis has appendonly yes, PostgreSQL holds {tables}"
    )


def main() -> None:
    os.environ.setdefault("CONTAINERS_CONF", str(HERE / "containers.conf"))
    os.environ["BLUEMOON_PORT"] = PORT
    started = time.monotonic()
    build()
    compose = ["podman-compose", "-p", PROJECT, "-f", "compose.yaml"]
    try:
        timed("compose up", *compose, "up", "-d", "--no-build")
        began = time.monotonic()
        readiness = wait_ready()
        print(f"ready in {time.monotonic() - began:.0f} s: {readiness}")
        check_containers()
        play()
    finally:
        timed("compose down", *compose, "down", "-v")
    print(f"smoke test passed in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
