"""The service started as the README says (`bluemoon`: gunicorn, an RQ worker and the embedded
Redis), played over real HTTP: create a game with a bot, play a turn, see the bot reply."""

from __future__ import annotations

import time

import pytest

from tests.e2e.conftest import call


def test_the_readme_quick_start_over_real_http(server):
    status, created = call(
        server,
        "POST",
        "/games",
        {
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}],
            "setup": {"first_player": 0},
        },
    )
    assert status == 201
    game, token = created["game"], created["seats"][0]["token"]
    status, legal = call(server, "GET", f"/games/{game}/legal", token=token)
    assert status == 200 and legal["commands"]
    end_turn = next(c for c in legal["commands"] if c["type"] == "end_turn")
    status, result = call(
        server,
        "POST",
        f"/games/{game}/commands",
        end_turn,
        token=token,
        headers={"If-Match": f'"{legal["version"]}"', "Idempotency-Key": "first-turn"},
    )
    assert status == 200 and result["view"]["turn"]["seat"] == 1
    # the bot answers from the background worker; wait for it through the long poll
    after = result["version"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, page = call(server, "GET", f"/games/{game}/events?after={after}&wait=5", token=token)
        assert status == 200
        after = page["next"]
        if any(e["type"] == "TurnStarted" and e["data"]["seat"] == 0 for e in page["events"]):
            break
    else:
        raise AssertionError("the bot did not reply")
    status, view = call(server, "GET", f"/games/{game}", token=token)
    assert view["turn"]["seat"] == 0 and view["turn"]["number"] == 3


def test_a_10000_character_game_id_gets_a_json_problem_from_the_real_server(server):
    status, body = call(server, "GET", "/games/" + "a" * 10_000)
    assert status == 414 and body["code"] == "uri_too_long"  # JSON, not gunicorn's HTML page


@pytest.mark.slow
def test_10000_gets_of_unknown_games_cost_the_web_processes_no_memory(start_service):
    """Slow: 10,000 requests over real HTTP."""
    import http.client
    import uuid
    from pathlib import Path
    from urllib.parse import urlsplit

    base = start_service(RATE_LIMIT="0")
    port = urlsplit(base).port
    master = next(
        int(p.name)
        for p in Path("/proc").iterdir()
        if p.name.isdigit()
        and _is_master(p)
        and f"gunicorn -c python:service.gunicorn_conf --workers 2 --bind 127.0.0.1:{port}" in _cmdline(p)
    )

    def rss() -> int:
        total = 0
        for child in Path(f"/proc/{master}/task/{master}/children").read_text().split():
            total += (
                int(
                    next(
                        line
                        for line in Path(f"/proc/{child}/status").read_text().splitlines()
                        if line.startswith("VmRSS:")
                    ).split()[1]
                )
                * 1024
            )
        return total

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def unknown_gets(n: int) -> None:
        for _ in range(n):
            conn.request("GET", f"/games/{uuid.uuid4().hex}")
            response = conn.getresponse()
            response.read()
            assert response.status == 404

    unknown_gets(1000)  # warm up: imports, pools, caches of known size
    before = rss()
    unknown_gets(10_000)
    grown = rss() - before
    assert grown < 5 * 2**20, f"the web workers grew by {grown / 2**20:.1f} MiB"


def _is_master(proc) -> bool:
    """gunicorn's master (its workers share its command line but have no children)."""
    children = proc / "task" / proc.name / "children"
    return children.exists() and bool(children.read_text().split())


def _cmdline(proc) -> str:
    return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
