"""The example bot (examples/bot.py) run as its README says, on the Python wheel, against a live
service: it joins a person's open game with a bot account's token and plays its seat to the end,
over its play socket, or over REST when the service refuses the socket. On the embedded Redis only
(``own_store``): the example is what it tests, not the store."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from tests.e2e.conftest import call, signed_in_session
from tests.support.generated_clients import choose_like_a_human
from tests.support.python_wheel import ROOT, built_and_installed

pytestmark = [pytest.mark.slow, pytest.mark.own_store]


def _page(base: str, session: str) -> dict[str, str]:
    return {"Cookie": f"bm_session={session}", "Origin": base}


@pytest.mark.parametrize(
    ("settings", "over"),
    [
        ({}, "socket"),
        ({"QUOTA_STREAMS_PER_TOKEN": "0"}, "REST"),  # no stream slot for a token: every socket is refused (429)
    ],
    ids=["over-the-socket", "socket-refused"],
)
def test_the_example_bot_joins_a_persons_open_game_and_plays_it_to_the_end(tmp_path, start_service, settings, over):
    """Slow (about 15 s): it builds the wheel, starts the service and plays a whole game, the
    person's seat from here and the bot's by examples/bot.py in a process of its own."""
    _, site = built_and_installed(tmp_path / "wheel")
    base = start_service(**settings)
    log = start_service.logs[-1]
    ada = _page(base, signed_in_session(base, log, "ada@example.com"))
    robo = _page(base, signed_in_session(base, log, "robo@example.com"))
    assert call(base, "POST", "/me/bot", headers=robo)[0] == 200
    status, made = call(base, "POST", "/me/tokens", {"name": "bot", "scopes": ["bot", "play", "read"]}, headers=robo)
    assert status == 201, made
    status, table = call(base, "POST", "/open-games", {"players": 2, "rated": False}, headers=ada)
    assert status == 201 and table["bot_accounts"] is True, table

    env = {**os.environ, "PYTHONPATH": str(site), "BLUEMOON_TOKEN": made["token"]}
    bot = subprocess.Popen(
        [sys.executable, str(ROOT / "examples" / "bot.py"), "--url", base, "--games", "1", "--poll", "0.2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while (opened := call(base, "GET", f"/open-games/{table['id']}")[1])["game"] is None:
            assert time.monotonic() < deadline and bot.poll() is None, "the bot did not join"
            time.sleep(0.1)
        game, rnd, bot_turns = opened["game"], random.Random(3), set()
        deadline = time.monotonic() + 45
        while time.monotonic() < deadline:
            view = call(base, "GET", f"/games/{game}", headers=ada)[1]
            if view["status"] == "finished":
                break
            if view["turn"]["seat"] != 0:
                bot_turns.add(view["turn"]["number"])
                assert bot.poll() is None, bot.stdout.read()  # type: ignore[union-attr]
                time.sleep(0.05)
                continue
            legal = call(base, "GET", f"/games/{game}/legal", headers=ada)[1]
            picked = choose_like_a_human([SimpleNamespace(type_=c["type"], body=c) for c in legal["commands"]], rnd)
            headers = {**ada, "If-Match": f'"{legal["version"]}"'}
            status, answer = call(base, "POST", f"/games/{game}/commands", picked.body, headers=headers)
            assert status in (200, 409, 412), answer
        else:
            pytest.fail("the game did not end")
        output, _ = bot.communicate(timeout=30)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert bot.returncode == 0, output
    assert f"joined open game {table['id']}" in output and f"game {game} ended" in output, output
    assert view["seats"][1].get("account_bot") is True and bot_turns
    played = sum(int(line.split("played ")[1].split()[0]) for line in output.splitlines() if "played " in line)
    assert played >= len(bot_turns), output  # at least one command each turn it had
    ways = re.search(rf"game {game} ended: .* over the socket: (\d+), over REST: (\d+)", output)
    assert ways, output
    sent = {"socket": int(ways[1]), "REST": int(ways[2])}
    assert sent[over] >= played and sum(sent.values()) == sent[over], output  # every command went one way
