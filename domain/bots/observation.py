"""What a bot may know: its seat's observation, and guesses consistent with it.

``observe`` keeps only what the seat may see (R16): other hands, cards others keep aside and
the deck become one pool of unseen cards in a canonical order, others' crystals become 0 (their
``counted`` crystals, public, stay: the expert deals them into its worlds), and the seed and the
turn's starting state (P17) are dropped. Two states that differ only in hidden information observe the same.
``determinize`` deals the unseen pool at random into the hidden places, so a bot can look
ahead with ``decide`` in a world that could be the real one.
"""

from __future__ import annotations

import random

from ..state import Game, copy_with

HIDDEN_SEED = "00" * 32  #: bots reshuffle in their imagined worlds with a seed of their own


def observe(state: Game, seat: int) -> Game:
    if state.unseen:
        return state  # already an observation
    hidden: list[str] = list(state.deck)
    players = []
    for p in state.players:
        if p.seat == seat:
            players.append(p)
            continue
        hidden += p.hand + p.aside
        players.append(copy_with(p, hand=("?",) * len(p.hand), aside=("?",) * len(p.aside), crystals=0))
    return copy_with(
        state,
        players=tuple(players),
        deck=("?",) * len(state.deck),
        seed=HIDDEN_SEED,
        unseen=tuple(sorted(hidden)),
        turn_start=None,  # it holds the hidden parts as they were; bots never take back anyway
    )


def determinize(observation: Game, rng: random.Random) -> Game:
    """A full state consistent with the observation: unseen cards dealt at random."""
    pool = list(observation.unseen)
    rng.shuffle(pool)
    players = []
    for p in observation.players:
        if p.hand.count("?") or p.aside.count("?"):
            hand = tuple(pool.pop() for _ in p.hand)
            aside = tuple(pool.pop() for _ in p.aside)
            players.append(copy_with(p, hand=hand, aside=aside))
        else:
            players.append(p)
    deck = tuple(pool.pop() for _ in observation.deck)
    return copy_with(observation, players=tuple(players), deck=deck)
