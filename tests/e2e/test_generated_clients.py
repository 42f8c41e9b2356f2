"""Clients generated from openapi.yaml, as a third-party developer would make them.

- openapi-python-client makes a Python client without a warning, and a whole game (a human
  against a greedy bot) is played on the real service through that client alone, following the
  game by long poll.
- openapi-typescript makes TypeScript types, and ``tsc --noEmit`` compiles the typed example
  client in clients/typescript against them (node's tools come from npm, pinned by its lockfile).
"""

from __future__ import annotations

import importlib
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import personal_token, signed_in_session
from tests.support.generated_clients import choose_like_a_human
from tests.support.shared_folders import held, install_node_tools

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent  # the generator runs ruff on its output, from the same venv


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> object:
    out = tmp_path_factory.mktemp("client")
    result = subprocess.run(
        [
            str(BIN / "openapi-python-client"),
            "generate",
            "--path",
            str(ROOT / "openapi.yaml"),
            "--meta",
            "none",
            "--output-path",
            str(out / "bluemoon_client"),
            "--config",
            str(ROOT / "clients" / "python" / "config.yaml"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"},
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning" not in (result.stdout + result.stderr).lower(), result.stdout + result.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("bluemoon_client")
    finally:
        sys.path.remove(str(out))


@pytest.mark.slow
def test_the_generated_python_client_plays_a_whole_game_against_a_greedy_bot(generated, start_service):
    """Slow: it generates a client package and plays a whole game on the real service, as a
    person with a personal access token (made after signing in by the emailed link, which a
    service without SMTP writes to its log); the account is deleted from the signed-in page."""
    from bluemoon_client import AuthenticatedClient, Client
    from bluemoon_client.api.accounts import delete_account, my_games
    from bluemoon_client.api.audit import audit_game
    from bluemoon_client.api.follow import list_events
    from bluemoon_client.api.games import create_game, get_game
    from bluemoon_client.api.play import legal_commands, post_command
    from bluemoon_client.models import BotLevel, Created, CreateGame, EventPage, GameView, Legal, SeatRequest
    from bluemoon_client.models.seat_request_kind import SeatRequestKind

    server = start_service()
    token = personal_token(server, start_service.logs[-1], "ada@example.com")
    anyone = Client(base_url=server, timeout=None)
    me = AuthenticatedClient(base_url=server, token=token, timeout=None)
    body = CreateGame(
        seats=[
            SeatRequest(kind=SeatRequestKind.HUMAN, name="Ada"),
            SeatRequest(kind=SeatRequestKind.BOT, level=BotLevel.GREEDY),
        ]
    )
    created = create_game.sync(client=me, body=body)  # signed in: seat 0 is the person's
    assert isinstance(created, Created)
    game, rnd, seen, played = created.game, random.Random(7), 0, 0
    for _ in range(3000):
        view = get_game.sync(game, client=me)
        assert isinstance(view, GameView)
        if view.result is not None:
            break
        if view.turn is None or view.turn.seat != 0:  # the bot's turn: wait for its events by long poll
            page = list_events.sync(game, client=me, after=seen, wait=10)
            assert isinstance(page, EventPage)
            seen = page.next_  # (`next`, renamed by the generator: a Python builtin)
            continue
        legal = legal_commands.sync(game, client=me)
        assert isinstance(legal, Legal) and legal.commands
        command = choose_like_a_human(legal.commands, rnd)
        result = post_command.sync_detailed(
            game, client=me, body=command, if_match=f'"{legal.version}"', idempotency_key=f"ada-{legal.version}"
        )
        assert result.status_code == 200, result.content
        played += 1
    else:
        pytest.fail("the game did not end")
    assert view.result is not None and played > 10
    audit = audit_game.sync(game, client=anyone)
    assert audit is not None and audit.verified, audit
    mine = my_games.sync(client=me)
    assert mine is not None and [g.game for g in mine.games] == [game]
    assert delete_account.sync_detailed(client=me).status_code == 403  # a token deletes no account
    session = signed_in_session(server, start_service.logs[-1], "ada@example.com")
    page = Client(base_url=server, cookies={"bm_session": session}, headers={"Origin": server}, timeout=None)
    assert delete_account.sync_detailed(client=page).status_code == 204  # the person leaves; the game stays auditable
    assert my_games.sync_detailed(client=me).status_code == 401
    audit = audit_game.sync(game, client=anyone)
    assert audit is not None and audit.verified, audit


@pytest.mark.slow
def test_openapi_typescript_types_compile_a_typed_example_client(tmp_path):
    """Slow: npm installs the TypeScript tools and tsc type-checks the client."""
    project = ROOT / "clients" / "typescript"
    with held(project):  # (tests/e2e/test_client_packages.py writes src/api.d.ts too)
        install_node_tools(project, ".bin/tsc")
        types = subprocess.run(
            ["npx", "--no-install", "openapi-typescript", str(ROOT / "openapi.yaml"), "-o", "src/api.d.ts"],
            cwd=project,
            capture_output=True,
            text=True,
            check=False,
        )
        assert types.returncode == 0, types.stdout + types.stderr
        compiled = subprocess.run(
            ["npx", "--no-install", "tsc", "--noEmit", "-p", "."],
            cwd=project,
            capture_output=True,
            text=True,
            check=False,
        )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
