"""The random bot: a uniform choice among the legal commands."""

from __future__ import annotations

import random

from .. import commands as cmd
from ..legal import legal_commands
from ..state import Game


def choose(observation: Game, seat: int, rng: random.Random) -> cmd.Command:
    return rng.choice(list(legal_commands(observation, seat)))
