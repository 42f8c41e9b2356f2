"""``bluemoon-admin games``: end a game as its clock would, delete one, rebuild the game index, ask
for the archive moves older games never asked for (application/admin/game_ending.py,
events/projection.py, application/archive/moves.py)."""

from __future__ import annotations

import argparse
from typing import Any

from application.admin import game_ending
from application.refusals import NotFound
from cli.admin.common import Answer, Refused, command, components
from events.projection import GameIndex
from workers.turn_jobs import play


def add(groups: Any) -> None:
    games = groups.add_parser("games", help="end or delete a game; rebuild the game index").add_subparsers(
        required=True
    )
    ending = command(games, "end", ended, "play the rest of a game as its clock would, to its end")
    ending.add_argument("game")
    ending.add_argument(
        "--level", help="the level that plays the human seats' turns (default: the game's deadline level)"
    )
    command(games, "delete", deleted, "remove every key of a game").add_argument("game")
    command(games, "rebuild-index", rebuilt, "rebuild the game index from every game's stream, complete the archive's")
    command(games, "archive-backfill", backfilled, "ask once for the move of each finished game that has no entry")


def ended(args: argparse.Namespace) -> Answer:
    service = components(handing=True).service  # the end's ratings, news and webhooks go to the workers
    try:
        done = game_ending.end(service, args.game, play, args.level)
    except (NotFound, game_ending.CannotEnd) as error:
        raise Refused(str(error)) from error
    result = done["result"]
    said = f"{args.game}: ended at version {done['version']} ({result['reason']}, winners {result['winners']})"
    return Answer(done, [said, f"turns played: {done['turns_played']}"])


def deleted(args: argparse.Namespace) -> Answer:
    if not game_ending.delete(components().client, args.game):
        raise Refused(f"no game {args.game}")
    return Answer({"game": args.game, "deleted": True}, [f"{args.game}: deleted, every key"])


def rebuilt(args: argparse.Namespace) -> Answer:
    parts = components()
    index = GameIndex(parts.client, parts.mover.archive)
    count, broken = index.rebuild(parts.store)
    completed = index.complete_archived(parts.store)  # the archived games' summaries written before a field existed
    lines = [f"indexed {count} games", f"archived summaries completed: {completed}"]
    lines += [f"not indexed: {game}: {why}" for game, why in broken.items()]
    return Answer({"indexed": count, "archived_completed": completed, "broken": broken}, lines)


def backfilled(args: argparse.Namespace) -> Answer:
    """Games that ended before the archive existed wrote no move entry: each gets one now, due
    ARCHIVE_AFTER_SECONDS after its last event (application/archive/moves.py ``Mover.backfill``)."""
    count = components().mover.backfill()
    return Answer({"asked": count}, [f"moves asked for: {count}"])
