"""Re-derive every random outcome of a finished game from its revealed seed (R15), and judge
every recorded command again.

Given the full, unredacted event log, check the seed against its commitment and its other
copies, the layout, deck order, deal and first player against the generator, every reshuffle
against the discard pile it shuffled, and that the log folds cleanly to a finished game. With
the commands the log records (``moves``), re-run the rules: the setup must be what the seed
(and any explicit part) makes, and each command must decide exactly the events recorded for
it, so a changed, dropped, reordered or inserted event is caught and named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from . import events as ev
from . import rng
from .city import generate
from .commands import Command
from .decide import decide
from .errors import CommandError
from .evolve import evolve, fold
from .options import HAND_SIZE, Edition, Layout, Options
from .peoples import CANONICAL_DECK
from .scenario import position_of, scenario_game
from .setup import new_game
from .state import Game


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class Move:
    """A recorded command (None: the setup, or a command the log could not name) and the
    events the log says it caused, the first of them at ``first``."""

    command: Command | None
    events: tuple[ev.Event, ...]
    first: int
    version: int | None = None  #: the version the log says the command was decided against


def rejudge(moves: Sequence[Move], created: ev.GameCreated, seed: bytes) -> Check:
    """Replay the rules: the setup from the seed, then each command through ``decide``."""
    if not moves or moves[0].command is not None:
        return Check("rejudged", False, "the log does not open with the game's setup")
    opening = moves[0].events
    options = Options(created.players, Edition(created.edition), created.expansion, Layout(created.layout))
    shuffled = next((e for e in opening if isinstance(e, ev.DeckShuffled)), None)
    first = next((e for e in opening if isinstance(e, ev.TurnStarted)), None)
    grid = {t: (r, c) for t, r, c in created.grid} if "grid" in created.explicit else None
    try:
        if "scenario" in created.explicit:
            made = scenario_game(options, seed, position_of(opening), grid=grid)
        else:
            made = new_game(
                options,
                seed,
                grid=grid,
                deck=list(shuffled.order or ()) if shuffled and "deck" in created.explicit else None,
                first_player=first.seat if first and "first_player" in created.explicit else None,
            )
    except (ValueError, StopIteration) as error:
        return Check("rejudged", False, f"the setup cannot be made again: {error!r}")
    # the rules version is recorded, not drawn: the game is judged by the rules it was made under
    if made and isinstance(made[0], ev.GameCreated):
        made = [replace(made[0], rules=created.rules), *made[1:]]
    if tuple(made) != opening:
        at = next((i for i, (a, b) in enumerate(zip(made, opening)) if a != b), min(len(made), len(opening)))
        return Check("rejudged", False, f"event {moves[0].first + at}: the setup differs from what the seed makes")
    state = fold(made)
    for move in moves[1:]:
        if move.command is None:
            return Check("rejudged", False, f"event {move.first}: no recorded command caused it")
        if move.version != state.version or move.first != state.version + 1:
            return Check(
                "rejudged",
                False,
                f"event {move.first}: its command was decided at version {move.version}, "
                f"but it follows version {state.version}",
            )
        try:
            decided = tuple(decide(state, move.command))
        except CommandError as error:
            return Check("rejudged", False, f"event {move.first}: its command is refused by the rules ({error.code})")
        except Exception as error:
            return Check("rejudged", False, f"event {move.first}: its command cannot be judged ({error!r})")
        if decided != move.events:
            at = next(
                (i for i, (a, b) in enumerate(zip(decided, move.events)) if a != b), min(len(decided), len(move.events))
            )
            return Check("rejudged", False, f"event {move.first + at}: not what its command decides")
        state = fold(decided, state)
    return Check("rejudged", state.finished, f"{len(moves) - 1} commands judged again; each decides exactly its events")


def audit(events: Sequence[ev.Event], moves: Sequence[Move] | None = None, log_seed: str | None = None) -> list[Check]:
    """Every check of a finished log; with ``moves``, the rules judged again; with
    ``log_seed``, the seed the log publishes must agree with the events' copies."""
    checks: list[Check] = []
    if not events or not isinstance(events[0], ev.GameCreated) or not isinstance(events[1], ev.DeckShuffled):
        return [Check("opening", False, "the log must open with GameCreated and DeckShuffled")]
    created, shuffled = events[0], events[1]
    ended = events[-1]
    seed_hex = ended.seed if isinstance(ended, ev.GameEnded) else created.seed
    if not seed_hex:
        return [Check("seed", False, "no seed: the game has not ended, or the log is redacted")]
    copies = {
        c for c in (created.seed, ended.seed if isinstance(ended, ev.GameEnded) else None, log_seed) if c is not None
    }
    checks.append(Check("seed_copies", len(copies) == 1, "the log's seed, GameCreated's and GameEnded's are the same"))
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return [*checks, Check("seed", False, "the seed is not hexadecimal")]
    checks.append(
        Check(
            "commitment",
            rng.commitment(seed) == created.commitment,
            "SHA-256(seed) equals the commitment published at the start",
        )
    )
    options = Options(created.players, Edition(created.edition), created.expansion, Layout(created.layout))
    grid = {t: (r, c) for t, r, c in created.grid}
    if "grid" in created.explicit:
        checks.append(Check("layout", True, "explicit layout: given at creation, not drawn"))
    else:
        checks.append(Check("layout", generate(options, seed) == grid, "the city matches the seeded layout"))
    if "deck" in created.explicit:
        checks.append(Check("deck", True, "explicit deck: given at creation, not drawn"))
    else:
        deck_ok = shuffled.order == rng.shuffled(seed, "deck", CANONICAL_DECK)
        checks.append(Check("deck", deck_ok, "the deck order matches the seeded shuffle"))
    dealt = [e for e in events if isinstance(e, ev.CardsDealt)]
    order = shuffled.order or ()
    deal_ok = all(e.cards == order[e.seat * HAND_SIZE : (e.seat + 1) * HAND_SIZE] for e in dealt)
    if "scenario" in created.explicit:
        checks.append(Check("deal", True, "scenario: the hands were given at creation, dealt from the top"))
    else:
        checks.append(
            Check("deal", deal_ok and len(dealt) == options.players, "8 cards to each seat from the top, in seat order")
        )
    first = next(e for e in events if isinstance(e, ev.TurnStarted))
    if "first_player" in created.explicit:
        checks.append(Check("first_player", True, "explicit first player: given at creation"))
    else:
        drawn = rng.choice(seed, "first-player", options.players)
        checks.append(Check("first_player", first.seat == drawn, "the first player matches the seeded choice"))
    state: Game | None = None
    reshuffles_ok = True
    try:
        for e in events:
            if isinstance(e, ev.DeckReshuffled) and state is not None:
                expected = rng.shuffled(seed, f"reshuffle/{e.number}", state.discard)
                reshuffles_ok &= e.order == expected
            state = evolve(state, e)
        folded = True
    except Exception as error:
        folded = False
        checks.append(Check("fold", False, f"the log does not fold: {error!r}"))
    checks.append(Check("reshuffles", reshuffles_ok, "every reshuffle matches the seeded shuffle of the discard pile"))
    if folded:
        checks.append(
            Check("fold", state is not None and state.finished, "the log folds event by event to a finished game")
        )
    if moves is not None:
        checks.append(rejudge(moves, created, seed))
    return checks


def explicit_parts(events: Sequence[ev.Event]) -> tuple[str, ...]:
    """What the game's creator gave instead of drawing (grid, deck, first player): such a game
    is explicit, not drawn, however well its log checks out."""
    return events[0].explicit if events and isinstance(events[0], ev.GameCreated) else ()
