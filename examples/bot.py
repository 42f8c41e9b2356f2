"""An example bot on the Python package (clients/python): it joins open games that let bot
accounts in and plays them, one at a time, until it has finished ``--games`` of them.

It signs in with a bot account's personal access token (scopes ``bot``, ``play``, ``read``;
docs/accounts.md, "Bot accounts") taken from ``BLUEMOON_TOKEN``, and hears what happens from its
person stream (``/me/stream``, docs/api.md): ``turn.started`` is its cue to play, ``game.ended``
to look for the next game. It plays each game's commands over its play socket (``PlaySocket``,
docs/api.md), which sends a command over REST instead when the socket cannot open or drops, with
the same Idempotency-Key and version; ``connect``'s client retries a lost request with its key and
If-Match, and ``follow`` resumes the stream when it breaks, so the bot needs no retry code.

    BLUEMOON_TOKEN=bmp_... python examples/bot.py --url https://bluemoon.example --games 1
"""

from __future__ import annotations

import argparse
import os
import time

from bluemoon_client.api.follow import list_my_events
from bluemoon_client.api.games import get_game
from bluemoon_client.api.lobby import join_open_game, list_open_games
from bluemoon_client.api.play import legal_commands
from bluemoon_client.models import GameView, Legal, OpenGame, OpenGameList
from bluemoon_kit import connect, follow
from bluemoon_kit.play_socket import PlaySocket

PREFERRED = ("offer", "contribute", "end_turn")  # build when it can (so that games end), else pass


def choose(commands: list) -> object:
    """A simple choice: the first command of the most preferred type, else the first of all."""
    for kind in PREFERRED:
        for command in commands:
            if command.type_ == kind:
                return command
    return commands[0]


def join_a_game(api, poll: float) -> str:
    """Join the first open game that lets bot accounts in (waiting ``poll`` s while there is none)."""
    while True:
        listed = list_open_games.sync(client=api, bot_accounts=True)
        for table in listed.open_games if isinstance(listed, OpenGameList) else []:
            free = table.bot_accounts is True and table.free > 0
            if free and isinstance(join_open_game.sync(table.id, client=api), OpenGame):
                print(f"joined open game {table.id}", flush=True)
                return table.id
        time.sleep(poll)


def play_turn(api, socket: PlaySocket, game: str, seat: int) -> int:
    """Play the seat's turn in ``game`` to its end (each command sent with the version it was
    chosen on); the number of commands played."""
    posted = 0
    while True:
        view = get_game.sync(game, client=api)
        if not isinstance(view, GameView) or view.result is not None or view.turn is None or view.turn.seat != seat:
            return posted
        legal = legal_commands.sync(game, client=api)
        if not isinstance(legal, Legal) or not legal.commands:
            return posted
        command = choose(legal.commands)
        status, answer = socket.play(command.to_dict(), legal.version)
        if status == 200:
            posted += 1
        elif status not in (409, 412):  # the game moved on meanwhile: look again
            raise SystemExit(f"command refused: {status} {answer!r}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("BLUEMOON_URL", "http://localhost:8000"))
    parser.add_argument("--games", type=int, default=0, help="stop after this many games (0: never)")
    parser.add_argument("--poll", type=float, default=5.0, help="seconds between looks at the open games")
    args = parser.parse_args(argv)
    token = os.environ["BLUEMOON_TOKEN"]
    api = connect(args.url, token)
    sockets: dict[str, PlaySocket] = {}  # a game's socket, from its first turn to its end
    now = list_my_events.sync(client=api)  # where the stream is now: follow it from here
    events = follow(api.get_httpx_client(), "/me/stream", after=now.next_)
    finished = 0
    join_a_game(api, args.poll)
    for event in events:
        news = event.json()
        game = news.get("game")
        if event.event in ("game.started", "turn.started"):
            if game not in sockets:
                sockets[game] = PlaySocket(api.get_httpx_client(), game, token)
            played = play_turn(api, sockets[game], game, news["data"]["seat"])
            print(f"{event.event} in {game}: played {played} commands", flush=True)
        elif event.event == "game.ended":
            finished += 1
            socket = sockets.pop(game, None)
            sent = f"; commands over the socket: {socket.over_socket}, over REST: {socket.over_rest}" if socket else ""
            if socket:
                socket.close()
            print(f"game {game} ended: place {news['data']['place']}{sent}", flush=True)
            if args.games and finished >= args.games:
                break
            join_a_game(api, args.poll)
    events.close()
    for socket in sockets.values():
        socket.close()


if __name__ == "__main__":
    main()
