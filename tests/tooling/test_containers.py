"""The container files agree with the code they package, in a second: building and running them
(containers/smoke.py, through tests/e2e/test_containers.py; docs/operations.md "Running in
containers") takes half a minute at best, so the quick subset checks what drifts silently: a
package left out of the image, a process started unlike the Procfile, a setting the service does
not read, a Redis that would not keep games."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import yaml

from application.settings import DECLARED

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
PROCFILE = dict(line.split(": ", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line.strip())


def test_the_image_holds_every_package_pip_installs():
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    packages = {pattern.rstrip("*") for pattern in found["include"]}
    copied = set(re.findall(r"^COPY (\w+) /app/\1$", DOCKERFILE, re.MULTILINE))
    assert packages == copied


def test_compose_starts_each_process_as_the_procfile_does():
    services = COMPOSE["services"]
    default = json.loads(re.search(r"^FROM debian AS service$.*?^CMD (\[.*?\])$", DOCKERFILE, re.S | re.M)[1])
    assert " ".join(default) == PROCFILE["web"] and "command" not in services["web"]
    for name in ("worker", "deliveries", "reviews"):
        assert " ".join(services[name]["command"]) == PROCFILE[name]


def test_compose_sets_only_settings_the_service_declares():
    for name in ("web", "worker", "deliveries", "reviews"):
        assert set(COMPOSE["services"][name]["environment"]) <= set(DECLARED)
    assert COMPOSE["services"]["web"]["environment"]["ARCHIVE_URL"].startswith("postgresql+psycopg://")


def test_the_redis_image_keeps_games():
    redis = re.search(r"^FROM debian AS redis$.*?^CMD (\[.*?\])$", DOCKERFILE, re.S | re.M)[1]
    for required in ('"--appendonly", "yes"', '"--maxmemory-policy", "noeviction"'):
        assert required in redis


def test_every_image_runs_as_a_user_and_checks_its_health():
    stages = re.split(r"^FROM ", DOCKERFILE, flags=re.M)[2:]  # the base stage is only the shared ENV
    assert len(stages) == 3
    for stage in stages:
        assert re.search(r"^USER (?!root)\w+$", stage, re.M) and re.search(r"^HEALTHCHECK ", stage, re.M), stage[:40]
