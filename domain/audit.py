"""Re-derive every random outcome of a finished game from its revealed seed (R15).

Given the full, unredacted event log, check the seed against its commitment, the layout,
deck order, deal and first player against the generator, every reshuffle against the
discard pile it shuffled, and that the log folds cleanly to a finished game.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import events as ev
from . import rng
from .city import generate
from .evolve import evolve
from .options import HAND_SIZE, Edition, Layout, Options
from .peoples import CANONICAL_DECK
from .state import Game


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def audit(events: Sequence[ev.Event]) -> list[Check]:
    checks: list[Check] = []
    if not events or not isinstance(events[0], ev.GameCreated) or not isinstance(events[1], ev.DeckShuffled):
        return [Check("opening", False, "the log must open with GameCreated and DeckShuffled")]
    created, shuffled = events[0], events[1]
    ended = events[-1]
    seed_hex = ended.seed if isinstance(ended, ev.GameEnded) else created.seed
    if not seed_hex:
        return [Check("seed", False, "no seed: the game has not ended, or the log is redacted")]
    seed = bytes.fromhex(seed_hex)
    checks.append(Check("commitment", rng.commitment(seed) == created.commitment, "SHA-256(seed) equals the commitment published at the start"))
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
    deal_ok = all(e.cards == order[e.seat * HAND_SIZE:(e.seat + 1) * HAND_SIZE] for e in dealt)
    checks.append(Check("deal", deal_ok and len(dealt) == options.players, "8 cards to each seat from the top, in seat order"))
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
    except (AssertionError, KeyError, ValueError, IndexError) as error:
        folded = False
        checks.append(Check("fold", False, f"the log does not fold: {error!r}"))
    checks.append(Check("reshuffles", reshuffles_ok, "every reshuffle matches the seeded shuffle of the discard pile"))
    if folded:
        checks.append(Check("fold", state is not None and state.finished, "the log folds event by event to a finished game"))
    return checks
