"""The client packages a developer installs (clients/python, clients/typescript), built as their
READMEs say and installed from what the build made, each playing a whole game on the real service.

- The Python wheel (``pip wheel``: its build generates ``bluemoon_client`` from openapi.yaml) is
  installed into a folder of its own and imported from there; its layer, ``bluemoon_kit``, is
  shown on the service: a command whose answer is lost is retried with its Idempotency-Key and
  If-Match and applied once, a 401 is retried once with a refreshed token, and a game's stream is
  followed across a broken connection without an event missed or repeated; a command whose play
  socket drops before its answer is sent again over REST with its key, and played once.
- The TypeScript tarball (``npm pack``) is installed into a node project of its own and plays a
  game from node (tests/e2e/packages/play.mjs), following the game's stream.

They run on the embedded Redis only (``own_store``): the packages are what they test, not the store.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import json
import random
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import httpx
import pytest

from service.api_version import API_VERSION
from tests.e2e.conftest import call, personal_token
from tests.support.generated_clients import choose_like_a_human
from tests.support.python_wheel import built_and_installed
from tests.support.shared_folders import held, install_node_tools

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bluemoon_client", "bluemoon_kit")

pytestmark = [pytest.mark.slow, pytest.mark.own_store]


def _forget_packages() -> None:
    """Imported modules of another copy of the packages (test_generated_clients generates one)."""
    for name in [m for m in sys.modules if m.split(".")[0] in PACKAGES]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Iterator[Path]:
    """The wheel built as clients/python/README.md says, installed into a folder put first on
    sys.path (the dev environment has httpx, attrs and python-dateutil it depends on)."""
    made, site = built_and_installed(tmp_path_factory.mktemp("wheel"))
    assert made.name == f"bluemoon_client-{API_VERSION}-py3-none-any.whl"
    _forget_packages()
    sys.path.insert(0, str(site))
    try:
        assert Path(importlib.import_module("bluemoon_kit").__file__).is_relative_to(site)  # type: ignore[arg-type]
        yield made
    finally:
        sys.path.remove(str(site))
        _forget_packages()


def _two_seats(me_first: bool = True):
    from bluemoon_client.models import BotLevel, CreateGame, SeatRequest
    from bluemoon_client.models.seat_request_kind import SeatRequestKind

    human = SeatRequest(kind=SeatRequestKind.HUMAN, name="Ada")
    bots = [SeatRequest(kind=SeatRequestKind.BOT, level=BotLevel.GREEDY) for _ in range(2)]
    return CreateGame(seats=[human, bots[0]] if me_first else bots)


def test_the_python_wheel_states_the_api_version_and_plays_a_whole_game(wheel, start_service):
    """Slow: it builds the wheel and plays a whole game against a greedy bot on the real service,
    with ``connect``'s client (no Idempotency-Key given: its transport gives each command one)
    and waiting for the bot by following the game's stream."""
    from bluemoon_client.api.games import create_game, get_game
    from bluemoon_client.api.play import legal_commands, post_command
    from bluemoon_client.models import Created, GameView, Legal
    from bluemoon_kit import connect, follow

    assert importlib.metadata.version("bluemoon-client") == API_VERSION
    server = start_service()
    api = connect(server, personal_token(server, start_service.logs[-1], "ada@example.com"))
    created = create_game.sync(client=api, body=_two_seats())
    assert isinstance(created, Created)
    game, rnd, played = created.game, random.Random(7), 0
    events = follow(api.get_httpx_client(), f"/games/{game}/stream")
    seen: list[int] = []
    for _ in range(3000):
        view = get_game.sync(game, client=api)
        assert isinstance(view, GameView)
        if view.result is not None:
            break
        if view.turn is None or view.turn.seat != 0:
            seen.append(next(events).json()["seq"])  # the bot's turn: wait for its next event
            continue
        legal = legal_commands.sync(game, client=api)
        assert isinstance(legal, Legal)
        answer = post_command.sync_detailed(
            game, client=api, body=choose_like_a_human(legal.commands, rnd), if_match=f'"{legal.version}"'
        )
        assert answer.status_code == 200, answer.content
        played += 1
    else:
        pytest.fail("the game did not end")
    events.close()
    assert played > 10 and seen == list(range(1, len(seen) + 1))  # each event once, in order


class _LosesOneAnswer(httpx.BaseTransport):
    """Sends every request to the service; the first command's answer is read and then lost, as
    when the connection breaks on its way back."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.commands: list[httpx.Request] = []
        self.lost: dict | None = None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.url.path.endswith("/commands"):
            self.commands.append(request)
            if self.lost is None:
                self.lost = json.loads(response.read())
                response.close()
                raise httpx.ReadError("the answer was lost", request=request)
        return response


def _my_turn(api, game: str):
    """``/legal`` once it is my turn (the bot may begin)."""
    from bluemoon_client.api.follow import list_events
    from bluemoon_client.api.play import legal_commands

    legal = legal_commands.sync(game, client=api)
    while not legal.commands:  # type: ignore[union-attr]
        list_events.sync(game, client=api, after=legal.version, wait=10)  # type: ignore[union-attr]
        legal = legal_commands.sync(game, client=api)
    return legal


def test_a_lost_answer_is_retried_with_its_keys_and_a_401_once_with_a_refreshed_token(wheel, start_service):
    """Slow: on the real service (one for all, to keep the suite lean), a command is applied and
    its answer dropped on the way back, over REST and over the play socket; the service refuses
    an old token and a fake refresher (OAuth's comes later) gives the real one."""
    from bluemoon_client.api.accounts import my_games
    from bluemoon_client.api.follow import list_events
    from bluemoon_client.api.games import create_game
    from bluemoon_client.api.play import post_command
    from bluemoon_client.models import CommandResult, EventPage
    from bluemoon_kit import connect
    from bluemoon_kit.play_socket import PlaySocket

    server = start_service()
    token = personal_token(server, start_service.logs[-1], "ada@example.com")
    lossy = _LosesOneAnswer()
    api = connect(server, token, transport=lossy)
    game = create_game.sync(client=api, body=_two_seats()).game  # type: ignore[union-attr]
    legal = _my_turn(api, game)
    before = list_events.sync(game, client=api).events  # type: ignore[union-attr]
    command = legal.commands[0]  # type: ignore[union-attr]
    answer = post_command.sync_detailed(game, client=api, body=command, if_match=f'"{legal.version}"')  # type: ignore[union-attr]
    assert answer.status_code == 200, answer.content
    result = answer.parsed
    assert isinstance(result, CommandResult) and result.duplicate is True  # the first outcome, given again
    first, retried = lossy.commands
    for header in ("Idempotency-Key", "If-Match", "Authorization"):
        assert first.headers[header] == retried.headers[header], header
    assert first.content == retried.content
    assert lossy.lost is not None and [e["seq"] for e in lossy.lost["events"]] == [e.seq for e in result.events]
    page = list_events.sync(game, client=api, after=len(before))
    assert isinstance(page, EventPage)
    assert [e.seq for e in page.events] == [e.seq for e in result.events]  # applied once, nothing more

    # the play socket: the answer to its first command is cut on the way back; the command is sent
    # again over REST with its key (the first outcome comes back), and the next reopens the socket
    relay = _CutsTheFirstSocket(int(server.rsplit(":", 1)[1]))
    near = connect(relay.url, token)
    game = create_game.sync(client=near, body=_two_seats()).game  # type: ignore[union-attr]
    legal = _my_turn(near, game)
    seat = PlaySocket(near.get_httpx_client(), game, token)
    status, answer = seat.play(legal.commands[0].to_dict(), legal.version, key="cut-1")  # type: ignore[union-attr]
    assert status == 200 and answer["duplicate"] is True and relay.cut == 1, answer
    assert (seat.over_socket, seat.over_rest) == (0, 1)
    logged = near.get_httpx_client().get(f"/games/{game}/events").json()["events"]
    digest = hashlib.sha256(b"cut-1").hexdigest()[:16]
    assert [e["seq"] for e in logged if e["meta"].get("key_digest") == digest] == [e["seq"] for e in answer["events"]]
    time.sleep(1.1)  # the socket's first backoff
    legal = _my_turn(near, game)
    status, answer = seat.play(legal.commands[0].to_dict(), legal.version)  # type: ignore[union-attr]
    assert status == 200 and answer["duplicate"] is False and (seat.over_socket, seat.over_rest) == (1, 1)
    seat.close()

    asked: list[str] = []

    def refresher() -> str:
        asked.append(token)
        return token

    api = connect(server, "bmp_" + "x" * 40, refresh=refresher)
    assert my_games.sync_detailed(client=api).status_code == 200
    assert my_games.sync_detailed(client=api).status_code == 200
    assert len(asked) == 1  # refreshed once, then the new token is used from the start

    def useless() -> str:
        asked.append("bad")
        return "bmp_" + "y" * 40

    stuck = connect(server, "bmp_" + "x" * 40, refresh=useless)
    assert my_games.sync_detailed(client=stuck).status_code == 401  # once more, then the 401 is the caller's
    assert asked.count("bad") == 1


class _CutsTheFirstSocket:
    """A TCP relay to the service (at ``port``) that cuts the first play socket through it once the
    service's answer to a command reaches it, undelivered, as when the network drops."""

    ANSWER = re.compile(rb'"type":\s*"result"')

    def __init__(self, port: int) -> None:
        self.upstream, self.cut = port, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            client, _ = self.listener.accept()
            server = socket.create_connection(("127.0.0.1", self.upstream))
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, cuts: bool) -> None:
        """Bytes from ``source`` to ``sink``; the service's side (``cuts``) cuts at the first answer
        of a socket (REST's answers carry no ``"type": "result"``)."""
        with source, sink, suppress(OSError):  # (the other way's end closes both)
            while chunk := source.recv(65536):
                if cuts and self.cut == 0 and self.ANSWER.search(chunk):
                    self.cut += 1
                    return
                sink.sendall(chunk)


class _BreaksTheFirstStream(httpx.BaseTransport):
    """The first stream's connection breaks after ``cut`` bytes (in the middle of an event)."""

    def __init__(self, cut: int) -> None:
        self.inner, self.cut, self.streams = httpx.HTTPTransport(), cut, 0
        self.resumed_from: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if not request.url.path.endswith("/stream"):
            return response
        self.streams += 1
        self.resumed_from.append(request.headers.get("Last-Event-ID"))
        if self.streams > 1:
            return response
        original, cut = response.stream, self.cut

        class Broken(httpx.SyncByteStream):
            def __iter__(self):
                sent = 0
                for chunk in original:  # type: ignore[union-attr]
                    yield chunk[: cut - sent]
                    sent += len(chunk)
                    if sent >= cut:
                        raise httpx.ReadError("the connection broke")

            def close(self) -> None:
                original.close()  # type: ignore[union-attr]

        return httpx.Response(response.status_code, headers=response.headers, stream=Broken(), request=request)


def test_a_games_stream_is_followed_across_a_break_and_resumed_after_an_event(wheel, start_service):
    """Slow: two greedy bots play a whole game on the real service; its stream is followed with
    its first connection broken mid-event, then again from the middle."""
    from bluemoon_client.api.follow import list_events
    from bluemoon_client.api.games import create_game
    from bluemoon_kit import connect, follow

    server = start_service()
    breaking = _BreaksTheFirstStream(cut=1500)
    api = connect(server, transport=breaking)
    game = create_game.sync(client=api, body=_two_seats(me_first=False)).game  # type: ignore[union-attr]
    followed = []
    for event in follow(api.get_httpx_client(), f"/games/{game}/stream"):
        followed.append(event)
        if event.event == "GameEnded":
            break
    seqs = [e.json()["seq"] for e in followed]
    assert seqs == list(range(1, len(seqs) + 1)) and [e.id for e in followed] == [str(s) for s in seqs]
    assert breaking.streams == 2 and breaking.resumed_from[0] is None  # resumed after the last whole event:
    assert breaking.resumed_from[1] in {e.id for e in followed[:-1]}  # the one cut off came again
    assert list_events.sync(game, client=api).version == len(seqs)  # type: ignore[union-attr]
    middle = len(seqs) // 2
    for url, after in ((f"/games/{game}/stream?after={middle}", None), (f"/games/{game}/stream", middle)):
        again = follow(api.get_httpx_client(), url, after=after)
        assert [next(again).json()["seq"] for _ in range(3)] == [middle + 1, middle + 2, middle + 3]
        again.close()


def test_the_typescript_package_is_packed_and_plays_a_whole_game_from_node(tmp_path, start_service):
    """Slow: npm packs the package (generating its types and compiling it with tsc), installs the
    tarball into a node project of its own, and node plays a whole game with it."""
    project = ROOT / "clients" / "typescript"
    assert shutil.which("node"), "node and npm are needed (.ci/run installs them)"
    with held(project):  # its build writes src/api.d.ts and dist/ (tests/e2e/test_generated_clients.py writes one too)
        install_node_tools(project, ".bin/tsc")
        packed = subprocess.run(
            ["npm", "pack", "--json", "--pack-destination", str(tmp_path)],
            cwd=project,
            capture_output=True,
            text=True,
            check=False,
        )
    assert packed.returncode == 0, packed.stdout + packed.stderr
    [made] = json.loads(packed.stdout[re.search(r"^\[\s*\{", packed.stdout, re.M).start() :])  # type: ignore[union-attr]  # after the build's output
    assert made["version"] == API_VERSION and {"README.md", "dist/index.js", "dist/index.d.ts", "dist/api.d.ts"} <= {
        f["path"] for f in made["files"]
    }
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text(json.dumps({"name": "app", "private": True, "type": "module"}))
    installed = subprocess.run(
        ["npm", "install", "--offline", "--no-audit", "--no-fund", str(tmp_path / made["filename"])],
        cwd=app,
        capture_output=True,
        text=True,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    shutil.copy(ROOT / "tests" / "e2e" / "packages" / "play.mjs", app)
    server = start_service()
    token = personal_token(server, start_service.logs[-1], "ada@example.com")
    played = subprocess.run(
        ["node", "play.mjs", server, token], cwd=app, capture_output=True, text=True, timeout=300, check=False
    )
    assert played.returncode == 0, played.stdout + played.stderr
    outcome = json.loads(played.stdout.strip().splitlines()[-1])
    assert outcome["result"] is not None and outcome["played"] > 10 and outcome["refused"] in (404, 422), outcome
    middle = outcome["seen"] // 2
    assert outcome["resumed"] == [middle + 1, middle + 2, middle + 3] * 2, outcome
    status, view = call(server, "GET", f"/games/{outcome['game']}")
    assert status == 200 and view["result"] == outcome["result"]
