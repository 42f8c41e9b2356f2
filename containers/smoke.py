"""Builds the images (Dockerfile), starts compose.yaml with podman-compose, plays a command
against a bot through the API and tears everything down: the check that the containers work.

Run as root on a machine with podman, podman-compose, runc and debootstrap (Debian:
``apt-get install podman podman-compose debootstrap runc``; .ci/run installs them):
``python3 containers/smoke.py``, or through the suite (tests/e2e/test_containers.py).

Each run has names of its own (project, containers, volumes, network, image tags, port:
``BLUEMOON_SMOKE_RUN``), so two runs cannot collide, and removes all of them at the end, failed
or not (``BLUEMOON_SMOKE_RUN=RUN python3 containers/smoke.py --clean`` removes a killed run's).
What is slow is kept between runs in podman's own store, outside the repository: the Debian base
is tagged by a hash of its recipe (containers/base-image.sh) and made only when that tag is
absent; each target's newest build keeps its layers, podman's build cache, under ``CACHED``'s
name (the Python dependencies a layer of their own, keyed on pyproject.toml), so a run after a
change to the code rebuilds seconds of layers. Builds take turns (``BUILD_LOCK``). Standard
library only: no virtualenv.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: the base is made by this recipe alone, so its hash names it: a changed recipe makes a new base
#: (a changed comment does not)
RECIPE = HERE / "base-image.sh"
STEPS = "\n".join(line for line in RECIPE.read_text().splitlines() if not line.lstrip().startswith("#"))
BASE = (
    os.environ.get("BLUEMOON_BASE")
    or f"localhost/bluemoon-debian:bookworm-{hashlib.sha256(STEPS.encode()).hexdigest()[:12]}"
)
RUN = os.environ.get("BLUEMOON_SMOKE_RUN") or uuid.uuid4().hex[:10]
TAG = f"smoke-{RUN}"
PROJECT = f"bluemoon_smoke_{RUN}"
TARGETS = {"service": f"localhost/bluemoon:{TAG}", "redis": f"localhost/bluemoon-redis:{TAG}",
           "postgres": f"localhost/bluemoon-postgres:{TAG}"}  # fmt: skip
#: each target's newest build, whichever run made it: the name that keeps its layers (podman's
#: build cache) when a run's own name goes, since removing an image removes its unnamed layers
CACHED = {target: f"localhost/bluemoon-smoke-cache:{target}" for target in TARGETS}
BUILD_LOCK = Path("/var/tmp/bluemoon-smoke-build.lock")
#: the host's CA bundle, lent to pip in the build for networks whose HTTPS is intercepted
HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")
PROJECT_LABEL = f"label=io.podman.compose.project={PROJECT}"


def free_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


PORT = os.environ.get("BLUEMOON_PORT") or free_port()


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
    """The base and the images, one run's build at a time on a machine (a lock outside the
    repository): a second run waits, then finds the layers the first made, and neither makes the
    base twice nor moves a cache name under the other."""
    with open(BUILD_LOCK, "a") as lock:
        started = time.monotonic()
        fcntl.flock(lock, fcntl.LOCK_EX)
        if time.monotonic() - started > 1:
            print(f"waited {time.monotonic() - started:.0f} s for another run's build", flush=True)
        build_locked()


def build_locked() -> None:
    if subprocess.call(["podman", "image", "exists", BASE]) != 0:
        timed(f"base image {BASE} (debootstrap + import)", str(RECIPE), BASE)
    else:
        print(f"base image {BASE}: kept from an earlier run", flush=True)
    for target, image in TARGETS.items():
        extra = ["-v", f"{HOST_CA}:/run/host-ca.crt:ro", "--build-arg", "PIP_CERT=/run/host-ca.crt"]
        before = image_id(CACHED[target])
        timed(
            f"image {target}",
            "podman", "build", "--layers", "--format", "docker", "--target", target, "-t", image, "-t", CACHED[target],
            "--build-arg", f"BASE={BASE}", *(extra if target == "service" and HOST_CA.exists() else []), ".",
        )  # fmt: skip
        if before and before != image_id(CACHED[target]):
            # the previous build's own layers (older code), unless another run still names or runs it
            run("podman", "rmi", before, check=False)


def image_id(name: str) -> str | None:
    found = subprocess.run(["podman", "image", "inspect", "--format", "{{.Id}}", name], capture_output=True, text=True)
    return found.stdout.strip() or None if found.returncode == 0 else None


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
        state = run("podman", "inspect", "--format", "{{.State.Status}}", f"{PROJECT}_web_1", check=False).strip()
        if state in ("exited", "stopped", "dead"):
            raise SystemExit(f"the web container stopped ({state}) before /readyz answered")
        if time.monotonic() > deadline:
            raise SystemExit(f"/readyz not ready after {seconds:.0f} s")
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
    # our turn's end, as the command's answer says: what follows is the bot's, played by the worker (a
    # later read of the game may come after the bot's reply already, and then wait for a turn of ours)
    ours = int(played["version"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, events = call("GET", f"/games/{gid}/events?after={ours}&wait=10", **auth)
        if status == 200 and events.get("events"):
            print(f"the worker's bot answered: {len(events['events'])} events after version {ours}")
            return
    raise SystemExit("the bot did not play within 60 s")


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


def show_logs() -> None:
    """Each of the run's containers: its state and the end of its log, for a failure's report."""
    for name in run("podman", "ps", "-a", "--filter", PROJECT_LABEL, "--format", "{{.Names}}", check=False).split():
        state = run("podman", "inspect", "--format", "{{.State.Status}} (exit {{.State.ExitCode}})", name, check=False)
        done = subprocess.run(["podman", "logs", "--tail", "60", name], capture_output=True, text=True)
        print(f"--- {name}: {state.strip()}\n{done.stdout}{done.stderr}", file=sys.stderr, flush=True)


def clean() -> None:
    """Removes everything the run made: podman-compose's down leaves the network, and a run killed
    midway leaves anything; the run's image names go too (``CACHED`` keeps the layers)."""
    started = time.monotonic()
    run("podman-compose", "-p", PROJECT, "-f", "compose.yaml", "down", "-v", check=False)
    containers = run("podman", "ps", "-aq", "--filter", PROJECT_LABEL, check=False).split()
    if containers:
        run("podman", "rm", "-f", "-t", "1", *containers, check=False)
    for kind in ("volume", "network"):
        names = run("podman", kind, "ls", "-q", "--filter", PROJECT_LABEL, check=False).split()
        if names:
            run("podman", kind, "rm", "-f", *names, check=False)
    for image in TARGETS.values():
        if subprocess.call(["podman", "image", "exists", image]) == 0:
            run("podman", "untag", image, image, check=False)  # the build cache's name keeps the layers
    print(f"clean: {time.monotonic() - started:.0f} s", flush=True)


def leftovers() -> list[str]:
    """What of the run is still there (an empty list after :func:`clean`)."""
    found = [
        f"container {name}"
        for name in run("podman", "ps", "-a", "--filter", PROJECT_LABEL, "--format", "{{.Names}}").split()
    ]
    for kind in ("volume", "network"):
        found += [f"{kind} {name}" for name in run("podman", kind, "ls", "-q", "--filter", PROJECT_LABEL).split()]
    return found + [
        f"image {image}" for image in TARGETS.values() if subprocess.call(["podman", "image", "exists", image]) == 0
    ]


def main() -> None:
    if sys.argv[1:] == ["--clean"]:  # a killed run's names, from BLUEMOON_SMOKE_RUN
        clean()
        if left := leftovers():
            raise SystemExit(f"left behind after the clean-up: {left}")
        return
    os.environ.setdefault("CONTAINERS_CONF", str(HERE / "containers.conf"))
    os.environ.update(BLUEMOON_PORT=PORT, BLUEMOON_TAG=TAG, BLUEMOON_BASE=BASE)
    print(f"run {RUN}: project {PROJECT}, port {PORT}, base {BASE}", flush=True)
    started = time.monotonic()
    compose = ["podman-compose", "-p", PROJECT, "-f", "compose.yaml"]
    try:
        build()
        timed("compose up", *compose, "up", "-d", "--no-build")
        began = time.monotonic()
        readiness = wait_ready()
        print(f"ready in {time.monotonic() - began:.0f} s: {readiness}")
        check_containers()
        play()
    except BaseException:
        show_logs()
        raise
    finally:
        clean()
        if left := leftovers():
            raise SystemExit(f"left behind after the run: {left}")
    print(f"smoke test passed in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
