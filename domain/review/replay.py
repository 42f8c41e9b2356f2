"""A finished game's log read again as the decisions and draws a review judges.

The events alone name every command: each command's first event says what was asked (a
``FigureMoved`` is a ``Move``, a ``ContributionMade`` a ``Contribute`` ...), and ``decide`` run
again on the state before it must give exactly the events recorded, so a command read wrongly
is caught, not reviewed. Commands a seat took back (P17) are marked undone: they never counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import commands as cmd
from .. import events as ev
from ..catalogue import BUILDINGS
from ..decide import decide
from ..errors import CommandError
from ..evolve import evolve
from ..state import Game


class NotReviewable(ValueError):
    """The log cannot be reviewed: the game has not ended (its seed is not revealed), or the
    events are not what the rules decide."""


@dataclass
class Decision:
    """A command as played: ``state`` is the position it was decided in (version ``version``)."""

    version: int
    seat: int
    command: cmd.Command
    state: Game
    undone: bool = False  #: taken back later in the same turn


@dataclass(frozen=True)
class Draw:
    """Cards coming to ``seat`` from the deck (a deal or a draw): ``before`` and ``after`` are the
    states either side of the event, which is the ``version``-th."""

    version: int
    seat: int
    cards: tuple[str, ...]
    aside: bool
    before: Game
    after: Game


@dataclass
class Replay:
    seed: bytes  #: the game's revealed seed
    states: list[Game] = field(default_factory=list)  #: the state after each event, version 1 first
    decisions: list[Decision] = field(default_factory=list)
    draws: list[Draw] = field(default_factory=list)


def replay(events: Sequence[ev.Event]) -> Replay:
    """Fold a finished game's events, naming the command behind each group of them."""
    if not events or not isinstance(events[0], ev.GameCreated):
        raise NotReviewable("the log must open with GameCreated")
    if not isinstance(events[-1], ev.GameEnded):
        raise NotReviewable("the game has not ended: its seed is not revealed, so it cannot be reviewed")
    seed = events[0].seed
    if not seed or seed != events[-1].seed:
        raise NotReviewable("the log's seed is hidden or not the one revealed at the end")
    found = Replay(bytes.fromhex(seed))
    state: Game | None = None
    at = 0
    while at < len(events):
        if state is None or state.turn is None or state.finished:
            state = _fold(found, state, events[at])
            at += 1
            continue
        decided_at = state
        command, caused = _command(state, events, at)
        if isinstance(command, cmd.TakeBack):
            back = caused[0]
            assert isinstance(back, ev.TurnTakenBack)
            for d in found.decisions:
                if d.version >= back.to:
                    d.undone = True
        found.decisions.append(Decision(decided_at.version, command.seat, command, decided_at))
        for event in caused:
            state = _fold(found, state, event)
        at += len(caused)
    return found


def _fold(found: Replay, state: Game | None, event: ev.Event) -> Game:
    after = evolve(state, event)
    drawn = _drawn(event, after)
    if drawn is not None and state is not None:
        found.draws.append(Draw(after.version, *drawn, before=state, after=after))
    found.states.append(after)
    return after


def _drawn(event: ev.Event, after: Game) -> tuple[int, tuple[str, ...], bool] | None:
    """Who drew what (and whether aside), if ``event`` brought cards from the deck by chance: a
    scenario's hands are given, not dealt."""
    match event:
        case ev.CardsDrawn(seat=seat, cards=cards, aside=aside) if cards:
            return seat, cards, aside
        case ev.CardsDealt(seat=seat, cards=cards) if cards and not after.scenario:
            return seat, cards, False
    return None


def _command(state: Game, events: Sequence[ev.Event], at: int) -> tuple[cmd.Command, list[ev.Event]]:
    """The command that caused the events from ``at``, and those events."""
    for command in _readings(state, events, at):
        try:
            decided = decide(state, command)
        except CommandError:
            continue
        if tuple(decided) == tuple(events[at : at + len(decided)]):
            return command, decided
    raise NotReviewable(f"event {at + 1}: no command of seat {state.turn.seat} decides it")  # type: ignore[union-attr]


def _readings(state: Game, events: Sequence[ev.Event], at: int) -> list[cmd.Command]:
    """The commands the events from ``at`` may have come from (mostly exactly one)."""
    seat = state.turn.seat  # type: ignore[union-attr]
    first = events[at]
    if isinstance(first, ev.ContributionPhaseBegan) and at + 1 < len(events):
        first = events[at + 1]
    match first:
        case ev.FigureMoved(to=to):
            return [cmd.Move(seat, to)]
        case ev.FigureFlown(card=card, to=to):
            return [cmd.FlyFigure(seat, card, to)]
        case ev.StepsGained(card=card):
            return [cmd.GainSteps(seat, card)]
        case ev.DragonFlown(card=card, to=to):
            return [cmd.FlyDragon(seat, card, to)]
        case ev.DragonMoved(card=card, to=to):
            return [cmd.MoveDragon(seat, card, to)]
        case ev.ContributionMade(building=building, space=space, colour=colour, cards=cards, hoax=hoax):
            named = None if BUILDINGS[building].spaces[space].colour else colour
            recolours = tuple(cmd.Recolour(card, targets) for card, targets in hoax)
            return [cmd.Contribute(seat, building, space, cards, named, recolours)]
        case ev.OfferingMade(pillar=pillar, via=via):
            return [cmd.UseAction(seat) if via == "golden_shrine" else cmd.Offer(seat, pillar)]
        case ev.ActionUsed(to=to):
            return [cmd.UseAction(seat, to)]
        case ev.CardsDiscarded(cards=cards):
            return [cmd.EndTurn(seat, cards)]
        case ev.TurnTakenBack():
            return [cmd.TakeBack(seat)]
        case _:
            return [cmd.EndTurn(seat)]
