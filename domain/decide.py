"""Decide which events a command causes, or refuse it with the rule that forbids it.

Every rule check lives here or in ``payment``; ``legal`` enumerates candidates and keeps
those this module accepts, so the two can never disagree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from . import commands as cmd
from . import events as ev
from . import rng
from .catalogue import BUILDINGS, COURTYARD, Reward
from .errors import IllegalCommand, InvalidCommand
from .evolve import evolve
from .payment import check_hoax, value_of
from .peoples import CARDS, DRAGON_OF, Card, Colour
from .scales import scale_awards
from .state import EndReason, Game, Phase, Turn

DRAGON_MOVE_STEPS = 3
FLIT_EXTRA_STEPS = 2
PILLAR_EXTRA = {1: 1, 2: 2}
MAX_DISCARDS = 2
RESET_DRAW = 2
HOSPITAL_DRAW = 2
#: Rounds in a row in which nobody contributes or offers before the game ends as a stalemate (P16).
STALEMATE_ROUNDS = 10
STALEMATE_SINCE_RULES = 2  #: games created under older rules play on without it
#: Take-backs a turn (P17): enough for misclicks, not a way to replay a turn for ever.
TAKE_BACKS_PER_TURN = 3
TAKE_BACK_LIMIT_SINCE_RULES = 3  #: games created under older rules play on without the limit


class _Transaction:
    """Events decided so far, and the state they lead to (decide's scratch pad)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.events: list[ev.Event] = []

    def emit(self, *events: ev.Event) -> None:
        for e in events:
            self.game = evolve(self.game, e)
            self.events.append(e)

    @property
    def turn(self) -> Turn:
        assert self.game.turn is not None
        return self.game.turn


def decide(state: Game, command: cmd.Command) -> list[ev.Event]:
    """The events ``command`` causes in ``state``; raises InvalidCommand or IllegalCommand."""
    return decide_and_apply(state, command)[0]


def decide_and_apply(state: Game, command: cmd.Command) -> tuple[list[ev.Event], Game]:
    """``decide``, and the state its events lead to: deciding works that state out event by
    event, so a caller that needs both (the service, the bots' look-ahead) need not fold the
    events a second time."""
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise InvalidCommand("unknown_command", f"unknown command {type(command).__name__}")
    if not 0 <= command.seat < state.options.players:
        raise InvalidCommand("unknown_seat", f"seat must be 0..{state.options.players - 1}", "seat")
    if state.finished:
        raise IllegalCommand("game_over", "the game has ended")
    assert state.turn is not None
    if command.seat != state.turn.seat:
        raise IllegalCommand("not_your_turn", f"it is seat {state.turn.seat}'s turn", "seat")
    tx = _Transaction(state)
    handler(tx, command)
    if not tx.game.finished:
        _check_end(tx)
    return tx.events, tx.game


# -- shared checks --------------------------------------------------------------------------


def _card_in_hand(game: Game, seat: int, card_id: str, field: str = "card") -> Card:
    c = CARDS.get(card_id)
    if c is None:
        raise InvalidCommand("unknown_card", f"{card_id!r} is not a card id", field)
    if card_id not in game.players[seat].hand:
        raise IllegalCommand("not_in_hand", f"{card_id} is not in your hand", field)
    return c


def _tile(game: Game, tile: str, field: str = "to") -> str:
    if tile not in game.city.placement:
        raise InvalidCommand("unknown_tile", f"{tile!r} is not a tile of this city", field)
    return tile


def _power(game: Game, seat: int, card_id: str, colours: tuple[Colour, ...], value: int, what: str) -> Card:
    c = _card_in_hand(game, seat, card_id)
    if c.colour not in colours or c.value != value:
        raise IllegalCommand("wrong_power", f"{card_id} has no power to {what}", "card")
    return c


def _movement(tx: _Transaction) -> None:
    if tx.turn.phase is not Phase.MOVEMENT:
        raise IllegalCommand("wrong_phase", "movement is over for this turn")


def _contribution(tx: _Transaction, seat: int) -> None:
    """Enter the contribution phase if needed (skip-ahead); refuse after a Main Hall move."""
    if tx.turn.relocated:
        raise IllegalCommand("relocated", "after the Main Hall's move only the Reset is left (R13)")
    if tx.turn.phase is Phase.MOVEMENT:
        tx.emit(ev.ContributionPhaseBegan(seat))


# -- movement -------------------------------------------------------------------------------


def _move(tx: _Transaction, c: cmd.Move) -> None:
    _movement(tx)
    to = _tile(tx.game, c.to)
    if tx.turn.steps <= 0:
        raise IllegalCommand("no_steps_left", "no steps left this turn")
    if to not in tx.game.city.neighbours[tx.game.players[c.seat].position]:
        raise IllegalCommand("not_adjacent", f"{to} is not orthogonally next to your figure", "to")
    tx.emit(ev.FigureMoved(c.seat, to))


def _fly_figure(tx: _Transaction, c: cmd.FlyFigure) -> None:
    _movement(tx)
    _power(tx.game, c.seat, c.card, (Colour.GREY,), 1, "fly your figure")
    to = _tile(tx.game, c.to)
    if to == tx.game.players[c.seat].position:
        raise IllegalCommand("already_there", "your figure is already there", "to")
    tx.emit(ev.FigureFlown(c.seat, c.card, to))


def _gain_steps(tx: _Transaction, c: cmd.GainSteps) -> None:
    _movement(tx)
    _power(tx.game, c.seat, c.card, (Colour.GREY,), 2, "give extra steps")
    tx.emit(ev.StepsGained(c.seat, c.card, FLIT_EXTRA_STEPS))


def _fly_dragon(tx: _Transaction, c: cmd.FlyDragon) -> None:
    _movement(tx)
    card = _power(tx.game, c.seat, c.card, tuple(DRAGON_OF), 1, "fly a dragon")
    dragon = DRAGON_OF[card.colour]
    to = None if c.to is None else _tile(tx.game, c.to)
    if tx.game.dragons[dragon] == to:
        raise IllegalCommand("already_there", f"the {dragon.value} dragon is already there", "to")
    tx.emit(ev.DragonFlown(c.seat, c.card, dragon.value, to))


def _move_dragon(tx: _Transaction, c: cmd.MoveDragon) -> None:
    _movement(tx)
    card = _power(tx.game, c.seat, c.card, tuple(DRAGON_OF), 2, "move a dragon")
    dragon = DRAGON_OF[card.colour]
    at = tx.game.dragons[dragon]
    if at is None:
        raise IllegalCommand("dragon_outside", f"the {dragon.value} dragon is outside the city", "card")
    to = _tile(tx.game, c.to)
    if to not in tx.game.city.within(at, DRAGON_MOVE_STEPS):
        raise IllegalCommand("too_far", f"the dragon moves 1 to {DRAGON_MOVE_STEPS} orthogonal steps", "to")
    tx.emit(ev.DragonMoved(c.seat, c.card, dragon.value, to))


# -- contributions and completion -----------------------------------------------------------


def _contribute(tx: _Transaction, c: cmd.Contribute) -> None:
    game = tx.game
    if c.building not in BUILDINGS or c.building not in game.sites:
        raise InvalidCommand("unknown_building", f"{c.building!r} is not a building of this city", "building")
    _contribution(tx, c.seat)
    player = game.players[c.seat]
    if player.position != c.building:
        raise IllegalCommand("not_at_building", f"your figure is not on {c.building}", "building")
    spaces = BUILDINGS[c.building].spaces
    if not 0 <= c.space < len(spaces):
        raise InvalidCommand("unknown_space", f"space must be 0..{len(spaces) - 1}", "space")
    site = game.sites[c.building]
    if site.reconstructed or site.markers[c.space] is not None:
        raise IllegalCommand("space_taken", "that space is already taken", "space")
    if player.markers <= 0:
        raise IllegalCommand("no_marker", "you have no marker left")
    space = spaces[c.space]
    if c.colour is not None and c.colour not in Colour._value2member_map_:
        raise InvalidCommand("unknown_colour", f"{c.colour!r} is not a colour", "colour")
    if space.colour is None:
        if c.colour is None:
            raise InvalidCommand("colour_required", "an any-colour space needs a colour", "colour")
        colour = Colour(c.colour)
    else:
        colour = space.colour
        if c.colour is not None and c.colour != colour.value:
            raise IllegalCommand("wrong_colour", f"this space takes {colour.value}", "colour")
    if not c.cards:
        raise InvalidCommand("no_cards", "a contribution needs at least one card", "cards")
    spent = list(c.cards) + [h.card for h in c.hoax]
    if len(set(spent)) != len(spent):
        raise InvalidCommand("duplicate_card", "each card may be named once", "cards")
    cards = [_card_in_hand(game, c.seat, cid, "cards") for cid in c.cards]
    for h in c.hoax:
        _card_in_hand(game, c.seat, h.card, "hoax")
    value = value_of(cards, colour, check_hoax(c.hoax, cards, colour))
    if value < space.value:
        raise IllegalCommand("not_enough_value", f"the cards pay {value}, the space needs {space.value}", "cards")
    dragons = sum(1 for at in game.dragons.values() if at == c.building)
    first = not tx.turn.scales_given
    tx.emit(
        ev.ContributionMade(
            c.seat,
            c.building,
            c.space,
            colour.value,
            tuple(c.cards),
            tuple((h.card, tuple(h.targets)) for h in c.hoax),
        )
    )
    if first and dragons:
        tx.emit(ev.Rewarded(c.seat, "dragons", c.building, 0, dragons, 0))
    if all(owner is not None for owner in tx.game.sites[c.building].markers):
        _complete(tx, c.building)
    if tx.game.scale_supply == 0:
        _score_scales(tx)


def _turn_order(game: Game, seats: set[int]) -> list[int]:
    """``seats`` in turn order, starting with the player whose turn it is."""
    assert game.turn is not None
    n = game.options.players
    return [s for s in ((game.turn.seat + i) % n for i in range(n)) if s in seats]


def _complete(tx: _Transaction, building: str) -> None:
    """Score a building whose last space was just filled (R7)."""
    game = tx.game
    markers = game.sites[building].markers
    counts = Counter(markers)
    most = max(counts.values())
    majority = next(s for s in markers if counts[s] == most)  # leftmost among the tied
    contributors = _turn_order(game, set(counts))  # type: ignore[arg-type]
    tx.emit(ev.BuildingCompleted(building, majority, tuple(sorted(contributors))))  # type: ignore[arg-type]
    spec = BUILDINGS[building]
    _reward(tx, majority, "majority", building, spec.majority)  # type: ignore[arg-type]
    for seat in contributors:
        _reward(tx, seat, "construction", building, spec.construction)
    for near in game.city.neighbours[building]:
        if near != COURTYARD and tx.game.sites[near].reconstructed:
            for seat in contributors:
                _reward(tx, seat, "neighbourhood", near, BUILDINGS[near].neighbourhood)


def _reward(tx: _Transaction, seat: int, reason: str, source: str, reward: Reward) -> None:
    tx.emit(ev.Rewarded(seat, reason, source, reward.crystals, reward.scales, reward.cards))
    if reward.cards:
        _draw(tx, seat, reward.cards, aside=seat == tx.turn.seat)


def _draw(tx: _Transaction, seat: int, n: int, aside: bool) -> None:
    """Draw n cards, reshuffling the discard pile from the seed when the deck runs out (R10)."""
    while n > 0:
        if not tx.game.deck:
            if not tx.game.discard:
                return
            number = tx.game.reshuffles + 1
            order = rng.shuffled(bytes.fromhex(tx.game.seed), f"reshuffle/{number}", tx.game.discard)
            tx.emit(ev.DeckReshuffled(number, order))
        cards = tx.game.deck[:n]
        tx.emit(ev.CardsDrawn(seat, cards, len(cards), aside))
        n -= len(cards)


def _score_scales(tx: _Transaction) -> None:
    """The supply ran out: score golden scales (R8)."""
    players = tx.game.players
    awards: list[tuple[int, int | None]] = list(scale_awards([p.scales for p in players]))
    returned = tuple(seat for seat, _ in awards)
    kept = sum(p.scales for p in players if p.seat not in returned)
    tx.emit(ev.ScalesScored(tuple(awards), returned, tx.game.options.scale_supply - kept))


# -- offerings and actions ------------------------------------------------------------------


def _offering(tx: _Transaction, seat: int, pillar: Card | None, via: str) -> None:
    game = tx.game
    space = game.next_obelisk_space()
    if space is None:
        raise IllegalCommand("obelisk_full", "the obelisk has no open space")
    player = game.players[seat]
    if player.markers <= 0:
        raise IllegalCommand("no_marker", "you have no marker left")
    cost = game.options.obelisk[space] + (PILLAR_EXTRA[pillar.value] if pillar else 0)
    if player.crystals < cost:
        raise IllegalCommand("not_enough_crystals", f"this offering costs {cost} crystals")
    tx.emit(ev.OfferingMade(seat, space, cost, pillar.id if pillar else None, via))
    if tx.game.players[seat].offerings >= game.options.offerings_to_win:
        _end(tx, EndReason.OFFERINGS, (seat,))


def _offer(tx: _Transaction, c: cmd.Offer) -> None:
    pillar = None
    if c.pillar is not None:
        pillar = _pillar(tx.game, c.seat, c.pillar)
    _contribution(tx, c.seat)
    if tx.game.players[c.seat].position != COURTYARD:
        raise IllegalCommand("not_at_courtyard", "offerings are made at the Courtyard")
    if pillar is None and tx.turn.offered:
        raise IllegalCommand("pillar_required", "a further offering this turn needs a Pillar card", "pillar")
    if pillar is not None and not tx.turn.courtyard_offerings:
        raise IllegalCommand("pillar_without_offering", "a Pillar follows an offering at the Courtyard", "pillar")
    _offering(tx, c.seat, pillar, "courtyard")


def _pillar(game: Game, seat: int, card_id: str) -> Card:
    c = _card_in_hand(game, seat, card_id, "pillar")
    if c.colour is not Colour.YELLOW or c.value not in PILLAR_EXTRA:
        raise IllegalCommand("wrong_power", f"{card_id} is not a Pillar 1 or 2", "pillar")
    return c


def _use_action(tx: _Transaction, c: cmd.UseAction) -> None:
    _contribution(tx, c.seat)
    where = tx.game.players[c.seat].position
    if tx.turn.action_used:
        raise IllegalCommand("action_used", "the building's action is used once per turn")
    if where == "main_hall":
        if c.to is None:
            raise InvalidCommand("destination_required", "the Main Hall's action needs a tile to move to", "to")
        to = _tile(tx.game, c.to)
        if to == where:
            raise IllegalCommand("already_there", "your figure is already there", "to")
        tx.emit(ev.ActionUsed(c.seat, where, to))
    elif c.to is not None:
        raise InvalidCommand("unexpected_destination", "only the Main Hall's action takes a tile", "to")
    elif where == "hospital":
        tx.emit(ev.ActionUsed(c.seat, where, None))
        _draw(tx, c.seat, HOSPITAL_DRAW, aside=False)
    elif where == "golden_shrine":
        _offering(tx, c.seat, None, "golden_shrine")
    else:
        raise IllegalCommand("no_action", "your figure is not on a building with an action (R13)")


# -- reset and the end ----------------------------------------------------------------------


def _end_turn(tx: _Transaction, c: cmd.EndTurn) -> None:
    if len(c.discards) > MAX_DISCARDS:
        raise IllegalCommand("too_many_discards", f"discard at most {MAX_DISCARDS} cards", "discards")
    if len(set(c.discards)) != len(c.discards):
        raise InvalidCommand("duplicate_card", "each card may be named once", "discards")
    for cid in c.discards:
        _card_in_hand(tx.game, c.seat, cid, "discards")
    if c.discards:
        tx.emit(ev.CardsDiscarded(c.seat, tuple(c.discards)))
    _draw(tx, c.seat, len(c.discards) + RESET_DRAW, aside=False)
    aside = tx.game.players[c.seat].aside
    if aside:
        tx.emit(ev.AsideJoined(c.seat, aside, len(aside)))
    tx.emit(ev.TurnEnded(c.seat))
    _check_end(tx)
    if not tx.game.finished:
        tx.emit(ev.TurnStarted((c.seat + 1) % tx.game.options.players, tx.turn.number + 1))


def _take_back(tx: _Transaction, c: cmd.TakeBack) -> None:
    refusal = _take_back_refusal(tx.game)
    if refusal is not None:
        raise refusal
    assert tx.game.turn_start is not None
    tx.emit(ev.TurnTakenBack(c.seat, tx.game.turn_start.version))


def _take_back_refusal(game: Game) -> IllegalCommand | None:
    """Why the turn so far cannot be taken back now, if it cannot (P17): the one statement of
    the rule, for deciding the command and for listing it as legal."""
    if game.turn_start is None:
        return IllegalCommand(
            "take_back_closed",
            "this turn can no longer be taken back: a card was drawn, a building completed or an offering made (P17)",
        )
    taken = game.turn.taken_back if game.turn is not None else 0
    if game.rules >= TAKE_BACK_LIMIT_SINCE_RULES and taken >= TAKE_BACKS_PER_TURN:
        return IllegalCommand(
            "take_back_limit",
            f"this turn was taken back {taken} times, the most a turn may be (TAKE_BACKS_PER_TURN, P17): "
            "it stands as played from here",
        )
    if game.turn_start.version == game.version:
        return IllegalCommand("nothing_to_take_back", "nothing has been done this turn since it began (P17)")
    return None


def can_take_back(game: Game, seat: int) -> bool:
    """Whether ``seat`` may take back its turn so far now (P17)."""
    turn = game.turn
    return turn is not None and turn.seat == seat and not game.finished and _take_back_refusal(game) is None


def can_offer(game: Game, seat: int) -> bool:
    """Whether the seat could afford the next obelisk space with a marker left (R11)."""
    space = game.next_obelisk_space()
    p = game.players[seat]
    return space is not None and p.markers > 0 and p.crystals >= game.options.obelisk[space]


def _check_end(tx: _Transaction) -> None:
    game = tx.game
    if all(p.markers == 0 for p in game.players):
        _end(tx, EndReason.DRAW, ())
    elif all(s.reconstructed for s in game.sites.values()) and not any(can_offer(game, p.seat) for p in game.players):
        _end(tx, EndReason.REBUILT, _most_offerings_then_crystals(game))
    elif game.rules >= STALEMATE_SINCE_RULES and game.quiet_turns >= STALEMATE_ROUNDS * game.options.players:
        _end(tx, EndReason.STALEMATE, _most_offerings_then_crystals(game))


def _most_offerings_then_crystals(game: Game) -> tuple[int, ...]:
    best = max((p.offerings, p.crystals) for p in game.players)
    return tuple(p.seat for p in game.players if (p.offerings, p.crystals) == best)


def _end(tx: _Transaction, reason: EndReason, winners: tuple[int, ...]) -> None:
    tx.emit(ev.GameEnded(reason.value, winners, tx.game.seed))


_HANDLERS: dict[type, Callable[[_Transaction, object], None]] = {
    cmd.Move: _move,  # type: ignore[dict-item]
    cmd.FlyFigure: _fly_figure,  # type: ignore[dict-item]
    cmd.GainSteps: _gain_steps,  # type: ignore[dict-item]
    cmd.FlyDragon: _fly_dragon,  # type: ignore[dict-item]
    cmd.MoveDragon: _move_dragon,  # type: ignore[dict-item]
    cmd.Contribute: _contribute,  # type: ignore[dict-item]
    cmd.Offer: _offer,  # type: ignore[dict-item]
    cmd.UseAction: _use_action,  # type: ignore[dict-item]
    cmd.EndTurn: _end_turn,  # type: ignore[dict-item]
    cmd.TakeBack: _take_back,  # type: ignore[dict-item]
}
