"""Apply one event to a state. Trusted, pure and never random: events carry every outcome."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from . import events as ev
from .catalogue import BUILDINGS, COURTYARD
from .city import City
from .options import Edition, Layout, Options
from .peoples import Dragon
from .scales import scale_awards
from .state import EndReason, Game, Phase, Player, Result, Site, Turn
from .state import copy_with as replace


def _player(game: Game, seat: int, **changes: Any) -> tuple[Player, ...]:
    players = list(game.players)
    players[seat] = replace(players[seat], **changes)
    return tuple(players)


def _without(cards: tuple[str, ...], gone: tuple[str, ...]) -> tuple[str, ...]:
    """``cards`` but ``gone``. One card (a power, a Pillar) is cut out where it stands: card ids
    are unique, and that is quicker than filtering a hand of up to ~35 cards through a set."""
    if not gone:
        return cards
    if len(gone) == 1 and gone[0] in cards:
        i = cards.index(gone[0])
        rest = cards[:i] + cards[i + 1 :]
        if gone[0] not in rest:
            return rest
    dropped = set(gone)
    return tuple(c for c in cards if c not in dropped)


def _turn(game: Game, **changes: Any) -> Turn:
    assert game.turn is not None
    return replace(game.turn, **changes)


@lru_cache(maxsize=256)
def _city(grid: tuple[tuple[str, int, int], ...]) -> City:
    """One City per grid: its adjacency and distances are worked out once, not on every fold."""
    return City({tile: (r, c) for tile, r, c in grid})


def _created(_: Game | None, e: ev.GameCreated) -> Game:
    options = Options(e.players, Edition(e.edition), e.expansion, Layout(e.layout))
    city = _city(e.grid)
    sites = {t: Site(t, (None,) * len(BUILDINGS[t].spaces)) for t in city.placement if t != COURTYARD}
    return Game(
        options=options,
        city=city,
        seed=e.seed or "",
        commitment=e.commitment,
        sites=sites,
        players=tuple(Player(seat, COURTYARD) for seat in range(e.players)),
        dragons=dict.fromkeys(Dragon),
        obelisk=(None,) * len(options.obelisk),
        scale_supply=options.scale_supply,
        scenario="scenario" in e.explicit,
        given=e.explicit,
        rules=e.rules,
    )


def _shuffled(g: Game, e: ev.DeckShuffled) -> Game:
    return replace(g, deck=e.order or ())


def _dealt(g: Game, e: ev.CardsDealt) -> Game:
    cards = e.cards or ()
    assert g.deck[: len(cards)] == cards, "dealt cards must come from the top of the deck"
    return replace(g, deck=g.deck[len(cards) :], players=_player(g, e.seat, hand=cards))


def _position(g: Game, e: ev.PositionSet) -> Game:
    crystals = dict(e.crystals)
    on_board = [0] * len(g.players)
    sites = dict(g.sites)
    for building, space, seat in e.markers:
        marks = list(sites[building].markers)
        marks[space] = seat
        sites[building] = replace(sites[building], markers=tuple(marks))
        on_board[seat] += 1
    for building, site in sites.items():
        if site.markers and all(m is not None for m in site.markers):
            sites[building] = replace(site, reconstructed=True)
    for building in e.rebuilt:
        sites[building] = replace(sites[building], reconstructed=True)
    players = tuple(
        replace(
            p,
            position=e.figures[p.seat],
            crystals=crystals.get(p.seat) or 0,
            scales=e.scales[p.seat],
            offerings=e.obelisk.count(p.seat),
            markers=p.markers - on_board[p.seat] - e.obelisk.count(p.seat),
        )
        for p in g.players
    )
    obelisk = tuple(e.obelisk) + (None,) * (len(g.obelisk) - len(e.obelisk))
    dragons = {Dragon(d): tile for d, tile in e.dragons}
    return replace(
        g, sites=sites, players=players, obelisk=obelisk, dragons=dragons, discard=e.discard, scale_supply=e.supply
    )


#: A new turn's defaults; copying it is quicker than Turn(...), a frozen dataclass's __init__
#: setting each of its nine fields through object.__setattr__.
_NEW_TURN = Turn(seat=0)


def _turn_started(g: Game, e: ev.TurnStarted) -> Game:
    return replace(g, turn=replace(_NEW_TURN, seat=e.seat, number=e.number))


def _moved(g: Game, e: ev.FigureMoved) -> Game:
    return replace(g, players=_player(g, e.seat, position=e.to), turn=_turn(g, steps=g.turn.steps - 1))  # type: ignore[union-attr]


def _discard_from_hand(g: Game, seat: int, cards: tuple[str, ...], **changes: Any) -> Game:
    hand = _without(g.players[seat].hand, cards)
    return replace(g, players=_player(g, seat, hand=hand, **changes), discard=g.discard + cards)


def _flown(g: Game, e: ev.FigureFlown) -> Game:
    return _discard_from_hand(g, e.seat, (e.card,), position=e.to)


def _steps(g: Game, e: ev.StepsGained) -> Game:
    g = _discard_from_hand(g, e.seat, (e.card,))
    return replace(g, turn=_turn(g, steps=g.turn.steps + e.steps))  # type: ignore[union-attr]


def _dragon(g: Game, e: ev.DragonFlown | ev.DragonMoved) -> Game:
    g = _discard_from_hand(g, e.seat, (e.card,))
    dragons = dict(g.dragons)
    dragons[Dragon(e.dragon)] = e.to
    return replace(g, dragons=dragons)


def _phase(g: Game, e: ev.ContributionPhaseBegan) -> Game:
    return replace(g, turn=_turn(g, phase=Phase.CONTRIBUTION))


def _contributed(g: Game, e: ev.ContributionMade) -> Game:
    spent = e.cards + tuple(h for h, _ in e.hoax)
    p = g.players[e.seat]
    g = _discard_from_hand(g, e.seat, spent, markers=p.markers - 1)
    site = g.sites[e.building]
    markers = list(site.markers)
    markers[e.space] = e.seat
    sites = dict(g.sites)
    sites[e.building] = replace(site, markers=tuple(markers))
    return replace(g, sites=sites, turn=_turn(g, scales_given=True))


_CATALOGUE_REWARDS = frozenset({"majority", "construction", "neighbourhood"})  #: Rewarded reasons


def _rewarded(g: Game, e: ev.Rewarded) -> Game:
    p = g.players[e.seat]
    changes: dict[str, Any] = {"scales": p.scales + e.scales}
    if e.reason in _CATALOGUE_REWARDS:  # the amount is printed on the public tile
        changes["counted"] = p.counted + getattr(BUILDINGS[e.source], e.reason).crystals
    if e.crystals:
        changes["crystals"] = p.crystals + e.crystals
    return replace(g, players=_player(g, e.seat, **changes), scale_supply=max(0, g.scale_supply - e.scales))


def _completed(g: Game, e: ev.BuildingCompleted) -> Game:
    site = g.sites[e.building]
    players = list(g.players)
    for owner in site.markers:
        if owner is not None:
            players[owner] = replace(players[owner], markers=players[owner].markers + 1)
    sites = dict(g.sites)
    sites[e.building] = Site(e.building, (None,) * len(site.markers), reconstructed=True)
    return replace(g, sites=sites, players=tuple(players))


def _scored(g: Game, e: ev.ScalesScored) -> Game:
    players = list(g.players)
    for seat, crystals in e.crystals:
        players[seat] = replace(players[seat], crystals=players[seat].crystals + (crystals or 0))
    for seat, crystals in scale_awards([p.scales for p in g.players]):  # public: scale counts are
        players[seat] = replace(players[seat], counted=players[seat].counted + crystals)
    for seat in e.returned:
        players[seat] = replace(players[seat], scales=0)
    return replace(g, players=tuple(players), scale_supply=e.supply)


def _offered(g: Game, e: ev.OfferingMade) -> Game:
    p = g.players[e.seat]
    obelisk = list(g.obelisk)
    obelisk[e.space] = e.seat
    spent = (e.pillar,) if e.pillar else ()
    g = _discard_from_hand(
        g,
        e.seat,
        spent,
        crystals=p.crystals - e.cost,
        counted=p.counted - e.cost,
        markers=p.markers - 1,
        offerings=p.offerings + 1,
    )
    assert g.turn is not None
    turn = replace(
        g.turn,
        offered=True,
        courtyard_offerings=g.turn.courtyard_offerings + (e.via == "courtyard"),
        action_used=g.turn.action_used or e.via != "courtyard",
    )
    return replace(g, obelisk=tuple(obelisk), turn=turn)


def _action(g: Game, e: ev.ActionUsed) -> Game:
    turn = _turn(g, action_used=True, relocated=e.to is not None)
    if e.to is not None:
        return replace(g, players=_player(g, e.seat, position=e.to), turn=turn)
    return replace(g, turn=turn)


def _discarded(g: Game, e: ev.CardsDiscarded) -> Game:
    return _discard_from_hand(g, e.seat, e.cards)


def _reshuffled(g: Game, e: ev.DeckReshuffled) -> Game:
    return replace(g, deck=e.order or (), discard=(), reshuffles=e.number)


def _drawn(g: Game, e: ev.CardsDrawn) -> Game:
    cards = e.cards or ()
    assert g.deck[: len(cards)] == cards, "drawn cards must come from the top of the deck"
    p = g.players[e.seat]
    change = {"aside": p.aside + cards} if e.aside else {"hand": p.hand + cards}
    return replace(g, deck=g.deck[len(cards) :], players=_player(g, e.seat, **change))


def _joined(g: Game, e: ev.AsideJoined) -> Game:
    p = g.players[e.seat]
    return replace(g, players=_player(g, e.seat, hand=p.hand + p.aside, aside=()))


def _ended(g: Game, e: ev.TurnEnded) -> Game:
    assert g.turn is not None
    built = g.turn.scales_given or g.turn.offered  # a contribution, or an offering, this turn
    return replace(g, quiet_turns=0 if built else g.quiet_turns + 1)


def _taken_back(g: Game, e: ev.TurnTakenBack) -> Game:
    """The turn's starting state again (P17), which remembers one more take-back this turn; it
    stays the point a later take-back returns to."""
    assert g.turn_start is not None and g.turn_start.version == e.to, "a take-back returns to the turn's start"
    assert g.turn is not None and g.turn_start.turn is not None
    return replace(g.turn_start, turn=replace(g.turn_start.turn, taken_back=g.turn.taken_back + 1))


def _game_ended(g: Game, e: ev.GameEnded) -> Game:
    return replace(g, result=Result(EndReason(e.reason), e.winners), seed=e.seed)


_APPLY: dict[type, Callable[[Any, Any], Game]] = {
    ev.GameCreated: _created,
    ev.DeckShuffled: _shuffled,
    ev.CardsDealt: _dealt,
    ev.PositionSet: _position,
    ev.TurnStarted: _turn_started,
    ev.FigureMoved: _moved,
    ev.FigureFlown: _flown,
    ev.StepsGained: _steps,
    ev.DragonFlown: _dragon,
    ev.DragonMoved: _dragon,
    ev.ContributionPhaseBegan: _phase,
    ev.ContributionMade: _contributed,
    ev.Rewarded: _rewarded,
    ev.BuildingCompleted: _completed,
    ev.ScalesScored: _scored,
    ev.OfferingMade: _offered,
    ev.ActionUsed: _action,
    ev.CardsDiscarded: _discarded,
    ev.DeckReshuffled: _reshuffled,
    ev.CardsDrawn: _drawn,
    ev.AsideJoined: _joined,
    ev.TurnEnded: _ended,
    ev.TurnTakenBack: _taken_back,
    ev.GameEnded: _game_ended,
}

#: After these a turn can no longer be taken back (P17): a card came from the deck, the deck
#: was shuffled, a building was completed (others score), an offering was made, the turn or
#: the game ended. Contributions, steps and powers can be taken back.
_FINAL: frozenset[type] = frozenset(
    {
        ev.CardsDealt,
        ev.PositionSet,
        ev.BuildingCompleted,
        ev.ScalesScored,
        ev.OfferingMade,
        ev.CardsDiscarded,
        ev.DeckReshuffled,
        ev.CardsDrawn,
        ev.AsideJoined,
        ev.TurnEnded,
        ev.GameEnded,
    }
)
#: Events after which the new state is itself the point a take-back returns to.
_CHECKPOINT: frozenset[type] = frozenset({ev.TurnStarted, ev.TurnTakenBack})


def evolve(state: Game | None, event: ev.Event) -> Game:
    """The state after ``event``; ``state`` is None only before GameCreated."""
    kind = type(event)
    game = _APPLY[kind](state, event)
    version = (state.version if state else 0) + 1
    if game is state:
        game = replace(game, version=version)
    # ``game`` is a fresh object nobody else holds yet: stamp it in place rather than copying
    # it once more (this halves the cost of a fold).
    fields = game.__dict__
    fields["version"] = version
    if kind in _CHECKPOINT:
        fields["turn_start"] = None
        fields["turn_start"] = replace(game)
    elif kind in _FINAL and fields["turn_start"] is not None:
        fields["turn_start"] = None
    return game


def fold(events: Iterable[ev.Event], state: Game | None = None) -> Game:
    """The state after every event in order."""
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise ValueError("no events to fold")
    return state
