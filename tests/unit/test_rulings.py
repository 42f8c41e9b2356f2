"""One test (at least) per ruling of docs/rulings.md, R1 to R16."""

from collections import Counter
from dataclasses import replace

import pytest

from domain import (
    Edition,
    IllegalCommand,
    Layout,
    Options,
    fold,
    legal_commands,
    new_game,
    redact,
    rng,
    view,
)
from domain import commands as cmd
from domain import events as ev
from domain.catalogue import BUILDINGS, Reward
from domain.city import CLASSIC_START, START_CELLS
from domain.peoples import CANONICAL_DECK, CARDS, Colour
from tests.situations import arrange, dragons, explicit_game, play, site

SEED = bytes.fromhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")


# R1 ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("edition,supply", [(Edition.CLASSIC, (9, 12, 15)), (Edition.CMON, (7, 10, 12))])
def test_r1_scale_supply_depends_on_edition_and_players(edition, supply):
    assert tuple(Options(n, edition).scale_supply for n in (2, 3, 4)) == supply


def test_r1_classic_standard_layout_puts_the_starting_tiles_north_west_east_south():
    g = fold(new_game(Options(3, Edition.CLASSIC), SEED))
    for tile, cell in CLASSIC_START.items():
        assert g.city.placement[tile] == cell
    assert g.city.placement["courtyard"] == (2, 2) and len(g.city.placement) == 21


def test_r1_cmon_standard_layout_shuffles_the_starting_tiles_next_to_the_courtyard():
    placements = {tuple(sorted(fold(new_game(Options(2), bytes([i]))).city.placement.items())) for i in range(20)}
    starts = set()
    for placement in placements:
        at = {cell: tile for tile, cell in placement}
        assert {at[c] for c in START_CELLS} == set(CLASSIC_START)
        starts.add(tuple(at[c] for c in START_CELLS))
    assert len(starts) > 1


def test_r1_expansion_fills_the_full_5x5_grid_and_needs_cmon():
    g = fold(new_game(Options(4, expansion=True), SEED))
    assert len(g.city.placement) == 25 and {"main_hall", "theatre"} <= set(g.city.placement)
    with pytest.raises(ValueError):
        Options(4, Edition.CLASSIC, expansion=True)


def test_r1_variant_layout_may_move_starting_tiles_away_from_the_courtyard():
    moved = False
    for i in range(10):
        g = fold(new_game(Options(2, layout=Layout.VARIANT), bytes([i])))
        at = {cell: tile for tile, cell in g.city.placement.items()}
        moved |= {at[c] for c in START_CELLS} != set(CLASSIC_START)
    assert moved


# R2 ------------------------------------------------------------------------------------------
def test_r2_80_cards_ten_per_people_four_1s_three_2s_three_3s():
    assert len(CARDS) == 80
    for colour in Colour:
        assert Counter(c.value for c in CARDS.values() if c.colour is colour) == {1: 4, 2: 3, 3: 3}


def test_r2_obelisk_and_offerings_to_win():
    assert Options(3).obelisk == (7, 7, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12)
    assert Options(2).obelisk == (7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12)
    assert [Options(n).offerings_to_win for n in (2, 3, 4)] == [6, 5, 4]


# R3 ------------------------------------------------------------------------------------------
def test_r3_setup_deals_8_cards_each_and_puts_every_figure_on_the_courtyard():
    g = fold(new_game(Options(4), SEED))
    assert all(len(p.hand) == 8 and p.position == "courtyard" for p in g.players)
    assert len(g.deck) == 80 - 32 and all(at is None for at in g.dragons.values())
    assert g.turn.seat == rng.choice(SEED, "first-player", 4)


def test_r3_the_same_seed_and_options_reproduce_the_same_setup():
    assert new_game(Options(3), SEED) == new_game(Options(3), SEED)
    assert new_game(Options(3), SEED) != new_game(Options(3), SEED[::-1])


# R4 ------------------------------------------------------------------------------------------
def test_r4_turns_pass_in_seat_order_and_the_reset_is_mandatory_to_pass():
    g = explicit_game(3, first_player=2)
    g, events = play(g, cmd.EndTurn(2))
    assert g.turn.seat == 0 and g.turn.number == 2
    assert [type(e) for e in events][-2:] == [ev.TurnEnded, ev.TurnStarted]


# R5 ------------------------------------------------------------------------------------------
def test_r5_flit_1_flies_the_figure_anywhere_and_flit_2_adds_two_steps():
    g = explicit_game(2)
    g = arrange(g, 0, hand=("grey-1a", "grey-2a"))
    g, _ = play(g, cmd.Move(0, "fire_temple"), cmd.Move(0, "courtyard"), cmd.GainSteps(0, "grey-2a"))
    assert g.turn.steps == 2
    far = next(t for t in g.city.tiles if g.city.distances["courtyard"][t] == 2)
    g, _ = play(g, cmd.FlyFigure(0, "grey-1a", far))
    assert g.players[0].position == far and g.players[0].hand == ()
    assert set(g.discard) == {"grey-1a", "grey-2a"}  # powers are discarded, no value


def test_r5_dragon_powers_fly_anywhere_and_move_up_to_three_steps():
    g = explicit_game(2)
    g = arrange(g, 0, hand=("black-1a", "black-2a", "black-2b"))
    g, _ = play(g, cmd.FlyDragon(0, "black-1a", "courtyard"), cmd.MoveDragon(0, "black-2a", "fire_temple"))
    red = next(d for d in g.dragons if d.value == "red")
    assert g.dragons[red] == "fire_temple"
    far = next(t for t in g.city.tiles if g.city.distances["fire_temple"][t] == 4)
    with pytest.raises(IllegalCommand) as error:
        play(g, cmd.MoveDragon(0, "black-2b", far))
    assert error.value.code == "too_far"
    three = next(t for t in g.city.tiles if g.city.distances["fire_temple"][t] == 3)
    g, _ = play(g, cmd.MoveDragon(0, "black-2b", three))
    assert g.dragons[red] == three


def test_r5_a_dragon_can_be_flown_out_of_the_city():
    g = explicit_game(2)
    g = dragons(g, green="library")
    g = arrange(g, 0, hand=("red-1a",))
    g, events = play(g, cmd.FlyDragon(0, "red-1a", None))
    assert ev.DragonFlown(0, "red-1a", "green", None) in events
    assert all(at is None for at in g.dragons.values())


# R6 ------------------------------------------------------------------------------------------
def _at(building, hand, players=2, **kw):
    g = explicit_game(players, **kw)
    return arrange(g, 0, position=building, hand=hand)


def test_r6_khind_are_wild_1s_but_count_printed_value_on_green_spaces():
    g = _at("market_hall", ("green-3a", "yellow-3a", "green-1a"))
    ok, _ = play(g, cmd.Contribute(0, "market_hall", 0, ("yellow-3a", "green-1a")))  # yellow 4
    assert ok.sites["market_hall"].markers[0] == 0
    ok, _ = play(g, cmd.Contribute(0, "market_hall", 1, ("green-3a",)))  # green 2: printed 3
    with pytest.raises(IllegalCommand) as short:
        play(g, cmd.Contribute(0, "market_hall", 0, ("yellow-3a",)))
    assert short.value.code == "not_enough_value"


def test_r6_two_mimix_1s_or_2s_make_a_wild_3_and_mimix_3s_have_no_power():
    g = _at("earth_temple", ("brown-1a", "brown-2a", "brown-3a", "red-2a"))
    g2, _ = play(g, cmd.Contribute(0, "earth_temple", 0, ("brown-1a", "brown-2a", "red-2a")))  # 3 + 2
    assert g2.sites["earth_temple"].markers[0] == 0
    for bad, code in ((("brown-1a", "red-2a"), "lone_mimix"), (("brown-3a", "red-2a"), "wrong_colour")):
        with pytest.raises(IllegalCommand) as error:
            play(g, cmd.Contribute(0, "earth_temple", 2, bad))
        assert error.value.code == code


def test_r6_a_mimix_1_and_2_pay_3_on_brown_spaces_printed_or_paired():
    g = _at("city_residence", ("brown-1a", "brown-2a"))
    with pytest.raises(IllegalCommand):
        play(g, cmd.Contribute(0, "city_residence", 0, ("brown-1a", "brown-2a")))  # 3 < 4 on brown
    g, _ = play(g, cmd.Contribute(0, "city_residence", 1, ("brown-1a", "brown-2a")))


def test_p14_two_brown_1s_pay_a_brown_3_as_a_mimix_pair_and_two_brown_2s_a_brown_4_at_face_value():
    # City Residence: brown 4, 3, 2 (amended ruling of 2026-11-26)
    g = _at("city_residence", ("brown-1a", "brown-1b", "brown-2a", "brown-2b"))
    paid, _ = play(g, cmd.Contribute(0, "city_residence", 1, ("brown-1a", "brown-1b")))
    assert paid.sites["city_residence"].markers[1] == 0
    paid, _ = play(g, cmd.Contribute(0, "city_residence", 0, ("brown-2a", "brown-2b")))
    assert paid.sites["city_residence"].markers[0] == 0
    with pytest.raises(IllegalCommand) as short:
        play(g, cmd.Contribute(0, "city_residence", 0, ("brown-1a", "brown-1b")))  # a pair is 3, not 4
    assert short.value.code == "not_enough_value"
    offered = {(c.space, c.cards) for c in legal_commands(g, 0) if isinstance(c, cmd.Contribute)}
    assert (1, ("brown-1a", "brown-1b")) in offered and (0, ("brown-2a", "brown-2b")) in offered


def test_p14_three_brown_1s_are_not_offered_for_a_brown_3_since_two_pay_it():
    g = _at("city_residence", ("brown-1a", "brown-1b", "brown-1c"))
    offered = {c.cards for c in legal_commands(g, 0) if isinstance(c, cmd.Contribute) and c.space == 1}
    assert offered == {("brown-1a", "brown-1b")}
    offered_for_4 = {c.cards for c in legal_commands(g, 0) if isinstance(c, cmd.Contribute) and c.space == 0}
    assert offered_for_4 == {("brown-1a", "brown-1b", "brown-1c")}  # a pair and a single 1: 3 + 1


def test_r6_hoax_1_recolours_up_to_four_cards_of_one_colour_and_hoax_2_one_card():
    g = _at("fire_temple", ("white-1a", "white-2a", "red-1a", "red-2a", "red-3a", "blue-3a", "blue-2a"))
    g2, _ = play(
        g,
        cmd.Contribute(
            0, "fire_temple", 0, ("red-2a", "red-3a"), hoax=(cmd.Recolour("white-1a", ("red-2a", "red-3a")),)
        ),
    )
    assert set(g2.discard) == {"white-1a", "red-2a", "red-3a"}
    g2, _ = play(g, cmd.Contribute(0, "fire_temple", 2, ("blue-3a",), hoax=(cmd.Recolour("white-2a", ("blue-3a",)),)))
    for hoax in (
        (cmd.Recolour("white-2a", ("red-2a", "red-3a")),),  # Hoax 2 takes one card
        (cmd.Recolour("white-1a", ("red-3a", "blue-2a")),),  # one colour per Hoax
        (cmd.Recolour("red-1a", ("red-3a", "red-2a")),),  # not a Hoax
    ):
        with pytest.raises(IllegalCommand):
            play(g, cmd.Contribute(0, "fire_temple", 0, ("red-2a", "red-3a", "blue-2a"), hoax=hoax))


def test_r6_a_recoloured_card_gains_no_power():
    # a brown 2 recoloured to red counts as a red 2, never as half of a Mimix pair
    g = _at("earth_temple", ("white-2a", "brown-2a", "brown-1a", "red-1a"))
    with pytest.raises(IllegalCommand) as error:
        play(
            g,
            cmd.Contribute(
                0,
                "earth_temple",
                1,
                ("brown-2a", "brown-1a", "red-1a"),
                hoax=(cmd.Recolour("white-2a", ("brown-2a",)),),
            ),
        )
    assert error.value.code == "lone_mimix"
    g, _ = play(
        g, cmd.Contribute(0, "earth_temple", 2, ("brown-2a", "red-1a"), hoax=(cmd.Recolour("white-2a", ("brown-2a",)),))
    )
    assert g.sites["earth_temple"].markers[2] == 0


def test_r6_royal_palace_takes_any_colour_but_one_colour_per_space():
    g = _at("royal_palace", ("blue-3a", "blue-1a", "red-3a"))
    g2, events = play(g, cmd.Contribute(0, "royal_palace", 0, ("blue-3a", "blue-1a"), colour="blue"))
    assert events[-1].colour == "blue" if isinstance(events[-1], ev.ContributionMade) else True
    with pytest.raises(IllegalCommand) as mixed:
        play(g, cmd.Contribute(0, "royal_palace", 0, ("blue-3a", "red-3a"), colour="blue"))
    assert mixed.value.code == "wrong_colour"


def test_r6_dragons_pay_one_scale_each_on_the_first_contribution_of_the_turn_only():
    g = _at("earth_temple", ("red-3a", "red-2a", "red-1a", "red-3b"))
    g = dragons(g, red="earth_temple", green="earth_temple")
    g, events = play(
        g,
        cmd.Contribute(0, "earth_temple", 0, ("red-3a", "red-2a")),
        cmd.Contribute(0, "earth_temple", 2, ("red-3b",)),
    )
    assert [e.scales for e in events if isinstance(e, ev.Rewarded)] == [2]
    assert g.players[0].scales == 2


def test_r6_no_change_is_given_and_each_contribution_uses_its_own_cards():
    g = _at("earth_temple", ("red-3a", "red-3b"))
    g, _ = play(g, cmd.Contribute(0, "earth_temple", 2, ("red-3a", "red-3b")))  # overpays 6 for 3
    assert g.players[0].hand == () and g.sites["earth_temple"].markers == (None, None, 0)


# R7 ------------------------------------------------------------------------------------------
def test_r7_majority_tie_goes_to_the_leftmost_marker_and_markers_return():
    g = explicit_game(3)
    g = site(g, "city_residence", markers=(2, 1, None))
    g = arrange(g, 0, position="city_residence", hand=("brown-2a",))
    g, events = play(g, cmd.Contribute(0, "city_residence", 2, ("brown-2a",)))
    assert ev.BuildingCompleted("city_residence", 2, (0, 1, 2)) in events
    assert all(p.markers == 10 for p in g.players)


def test_r7_neighbourhood_bonus_once_per_rebuilt_neighbour_and_none_from_the_courtyard():
    g = explicit_game(2)
    g = site(g, "water_temple", markers=(0, 0, None))
    for near in g.city.neighbours["water_temple"]:
        if near != "courtyard":
            g = site(g, near, reconstructed=True)
    g = arrange(g, 0, position="water_temple", hand=("blue-3a",))
    g, events = play(g, cmd.Contribute(0, "water_temple", 2, ("blue-3a",)))
    neighbourhood = [e.source for e in events if isinstance(e, ev.Rewarded) and e.reason == "neighbourhood"]
    assert sorted(neighbourhood) == sorted(n for n in g.city.neighbours["water_temple"] if n != "courtyard")


def test_r7_cards_won_are_drawn_and_the_figures_and_dragons_stay():
    g = explicit_game(2)
    g = site(g, "library", markers=(0, None))
    g = dragons(g, blue="library")
    g = arrange(g, 0, position="library", hand=("white-3a",))
    g = arrange(g, 1, position="library")
    g, events = play(g, cmd.Contribute(0, "library", 1, ("white-3a",)))
    assert len(g.players[0].aside) == 2  # majority 2k
    assert g.players[1].position == "library" and "library" in g.dragons.values()


# R8 ------------------------------------------------------------------------------------------
def test_r8_scales_are_credited_when_the_supply_is_empty():
    g = explicit_game(2)
    g = replace(g, scale_supply=1)
    g = arrange(g, 0, scales=3, position="thermae", hand=("blue-3a",))
    g = arrange(g, 1, scales=3)
    g = dragons(g, red="thermae", blue="thermae", green="thermae")
    g, events = play(g, cmd.Contribute(0, "thermae", 0, ("blue-3a",)))
    scored = next(e for e in events if isinstance(e, ev.ScalesScored))
    assert dict(scored.crystals) == {0: 6, 1: 3}  # 3 + 3 dragons = 6 though one token was left
    assert g.scale_supply == 7 and [p.scales for p in g.players] == [0, 0]


def test_r8_players_tied_for_most_get_3_each_and_small_holders_keep_theirs():
    g = explicit_game(3)
    g = replace(g, scale_supply=1)
    g = arrange(g, 0, scales=3, position="thermae", hand=("blue-3a",))
    g = arrange(g, 1, scales=5)
    g = arrange(g, 2, scales=2)
    g = dragons(g, red="thermae", blue="thermae")
    g, events = play(g, cmd.Contribute(0, "thermae", 0, ("blue-3a",)))
    scored = next(e for e in events if isinstance(e, ev.ScalesScored))
    assert dict(scored.crystals) == {0: 3, 1: 3}
    assert [p.scales for p in g.players] == [0, 0, 2] and g.scale_supply == 10 - 2


def test_r8_scale_scoring_waits_until_the_building_has_been_scored():
    g = explicit_game(2)
    g = replace(g, scale_supply=1)
    g = site(g, "thermae", markers=(1, None))
    g = dragons(g, red="thermae")
    g = arrange(g, 0, position="thermae", hand=("black-3a",))
    g = arrange(g, 1, scales=2)
    g, events = play(g, cmd.Contribute(0, "thermae", 1, ("black-3a",)))
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("BuildingCompleted") < kinds.index("ScalesScored")
    # seat 0: 1 dragon; seat 1: majority (leftmost) 1s + 2 held = 3; tied at... 1 vs 3
    assert dict(next(e for e in events if isinstance(e, ev.ScalesScored)).crystals) == {1: 6}


# R9 ------------------------------------------------------------------------------------------
def test_r9_pillars_allow_further_offerings_at_one_or_two_crystals_more():
    g = explicit_game(3)
    g = arrange(g, 0, crystals=30, hand=("yellow-1a", "yellow-2a"))
    g, events = play(g, cmd.Offer(0), cmd.Offer(0, "yellow-1a"), cmd.Offer(0, "yellow-2a"))
    assert [e.cost for e in events if isinstance(e, ev.OfferingMade)] == [7, 8, 9]
    assert g.players[0].crystals == 30 - 24 and g.players[0].offerings == 3


def test_r9_one_offering_per_turn_without_a_pillar_and_dragons_give_nothing_there():
    g = explicit_game(2)
    g = dragons(g, red="courtyard")
    g = arrange(g, 0, crystals=20)
    g, events = play(g, cmd.Offer(0))
    assert not any(isinstance(e, ev.Rewarded) for e in events)
    with pytest.raises(IllegalCommand) as again:
        play(g, cmd.Offer(0))
    assert again.value.code == "pillar_required"


# R10 -----------------------------------------------------------------------------------------
def test_r10_an_empty_deck_is_reshuffled_from_the_seed_including_the_reset_discards():
    g = explicit_game(2)
    g = replace(g, deck=g.deck[:1], discard=g.deck[1:5])
    discards = g.players[0].hand[:2]
    g, events = play(g, cmd.EndTurn(0, discards))
    shuffle = next(e for e in events if isinstance(e, ev.DeckReshuffled))
    assert shuffle.number == 1 and set(discards) <= set(shuffle.order)
    expected_pile = g.discard  # emptied by the reshuffle
    assert expected_pile == ()
    before = explicit_game(2)
    pile = before.deck[1:5] + discards
    assert shuffle.order == rng.shuffled(bytes.fromhex(g.seed), "reshuffle/1", pile)
    assert sum(e.count for e in events if isinstance(e, ev.CardsDrawn)) == 4


def test_r10_when_deck_and_discard_are_empty_draw_what_there_is():
    g = arrange(explicit_game(2), 0, hand=("blue-1a",))
    g = replace(g, deck=("red-3c",), discard=())
    g, events = play(g, cmd.EndTurn(0))
    assert g.players[0].hand == ("blue-1a", "red-3c")


# R11 -----------------------------------------------------------------------------------------
def test_r11_reaching_the_offerings_wins_at_once_mid_turn():
    g = explicit_game(4)
    g = arrange(g, 0, crystals=50, offerings=3, hand=("yellow-1a",))
    g, events = play(g, cmd.Offer(0))
    assert g.result.winners == (0,) and g.result.reason.value == "offerings"
    assert isinstance(events[-1], ev.GameEnded) and events[-1].seed == SEED_HEX(g)
    with pytest.raises(IllegalCommand) as over:
        play(g, cmd.EndTurn(0))
    assert over.value.code == "game_over"


def SEED_HEX(g):
    return g.seed


def test_r11_all_rebuilt_and_nobody_can_offer_ends_with_most_offerings_then_crystals():
    g = explicit_game(3, grid={"mill": (0, 1)})
    for b in g.sites:
        if b != "mill":
            g = site(g, b, reconstructed=True)
    g = site(g, "mill", markers=(1, None))
    g = replace(g, obelisk=(0, 1, 2) * 4 + (None,))  # four offerings each, next space costs 12
    for seat in range(3):
        g = arrange(g, seat, offerings=4, markers=6 - (seat == 1))
    g = arrange(g, 0, position="mill", hand=("red-3a",))
    g, events = play(g, cmd.Contribute(0, "mill", 1, ("red-3a",)))
    # seat 1 gets the majority crystal on top of what seat 0 gets: it has more crystals left
    assert g.players[1].crystals == g.players[0].crystals + 1 < 12
    assert g.result.reason.value == "rebuilt" and g.result.winners == (1,)


def test_r11_play_goes_on_while_someone_can_still_offer():
    g = explicit_game(2)
    for b in g.sites:
        g = site(g, b, reconstructed=True)
    g = arrange(g, 1, crystals=7)
    g, _ = play(g, cmd.EndTurn(0))
    assert not g.finished
    g = arrange(g, 1, position="courtyard")
    g, events = play(g, cmd.Offer(1))
    assert g.finished and g.result.winners == (1,)


def test_r11_every_marker_on_the_board_is_a_draw():
    g = explicit_game(2)
    g = arrange(g, 0, markers=1, position="earth_temple", hand=("red-3a",))
    g = arrange(g, 1, markers=0)
    g, events = play(g, cmd.Contribute(0, "earth_temple", 2, ("red-3a",)))
    assert g.result.reason.value == "draw" and g.result.winners == ()


# R12 -----------------------------------------------------------------------------------------
def test_r12_cards_won_by_others_join_at_once_mine_after_the_reset_draw():
    g = explicit_game(2)
    g = site(g, "caravansera", markers=(1, None))
    g = arrange(g, 0, position="caravansera", hand=("green-3a",))
    g = arrange(g, 1, hand=())
    g, events = play(g, cmd.Contribute(0, "caravansera", 1, ("green-3a",)))
    # seat 1 has the leftmost marker: majority 1k joins its hand at once
    assert len(g.players[1].hand) == 1 and g.players[0].aside == ()
    g = explicit_game(2)
    g = site(g, "caravansera", markers=(0, None))
    g = arrange(g, 0, position="caravansera", hand=("green-3a",))
    g, events = play(g, cmd.Contribute(0, "caravansera", 1, ("green-3a",)))
    assert len(g.players[0].aside) == 1 and g.players[0].hand == ()
    g, events = play(g, cmd.EndTurn(0))
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("CardsDrawn") < kinds.index("AsideJoined")
    assert len(g.players[0].hand) == 3


# R13 -----------------------------------------------------------------------------------------
def test_r13_hospital_draws_two_cards_into_the_hand_at_once():
    g = _at("hospital", ("blue-3a",), expansion=True)
    g, events = play(g, cmd.UseAction(0))
    assert len(g.players[0].hand) == 3
    with pytest.raises(IllegalCommand) as twice:
        play(g, cmd.UseAction(0))
    assert twice.value.code == "action_used"


def test_r13_golden_shrine_offers_from_afar_without_pillars():
    g = _at("golden_shrine", ("yellow-1a",), expansion=True)
    g = arrange(g, 0, crystals=20)
    g, events = play(g, cmd.UseAction(0))
    assert ev.OfferingMade(0, 0, 7, None, "golden_shrine") in events
    with pytest.raises(IllegalCommand) as pillar:
        play(g, cmd.Offer(0, "yellow-1a"))
    assert pillar.value.code in ("not_at_courtyard", "pillar_without_offering")


def test_r13_theatre_has_no_action_and_actions_work_on_rebuilt_tiles_too():
    g = _at("theatre", (), expansion=True)
    with pytest.raises(IllegalCommand) as none:
        play(g, cmd.UseAction(0))
    assert none.value.code == "no_action"
    g = _at("hospital", (), expansion=True)
    g = site(g, "hospital", reconstructed=True)
    g, _ = play(g, cmd.UseAction(0))
    assert len(g.players[0].hand) == 2


# R14 -----------------------------------------------------------------------------------------
def test_r14_catalogue_holds_every_building_with_provenance():
    assert len(BUILDINGS) == 24
    assert BUILDINGS["university"].majority == Reward(scales=1)
    assert BUILDINGS["golden_shrine"].construction == Reward(1, 1, 1)
    assert BUILDINGS["royal_palace"].spaces[0].colour is None
    assert all(set(b.provenance.values()) <= {"S", "R"} and len(b.provenance) == 5 for b in BUILDINGS.values())


# R15 -----------------------------------------------------------------------------------------
def test_r15_generator_matches_the_published_test_vectors():
    s = rng.Stream(SEED, "deck")
    assert [s.below(80 - i) for i in range(5)] == [25, 25, 17, 70, 27]
    assert rng.shuffled(SEED, "test", list(range(10))) == (9, 1, 4, 8, 6, 2, 5, 3, 0, 7)
    assert rng.shuffled(SEED, "deck", CANONICAL_DECK)[:3] == ("brown-3b", "brown-2a", "yellow-3a")
    assert rng.choice(SEED, "first-player", 4) == 3
    assert rng.commitment(SEED) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


def test_r15_the_first_event_commits_to_the_seed_and_hides_it():
    events = new_game(Options(2), SEED)
    first = events[0]
    assert first.commitment == rng.commitment(SEED)
    assert redact(first, 0).seed is None and redact(first, None).seed is None


# R16 -----------------------------------------------------------------------------------------
def test_r16_a_view_shows_only_my_hand_and_crystals_and_never_the_deck_or_seed():
    g = arrange(explicit_game(3), 1, crystals=9)
    mine = view(g, 0)
    assert mine["players"][0]["hand"] == sorted(g.players[0].hand)
    assert mine["players"][1]["hand"] is None and mine["players"][1]["crystals"] is None
    assert mine["players"][1]["hand_size"] == 8 and mine["seed"] is None
    text = repr(view(g, None))
    assert all(card not in text for card in g.deck) and g.seed not in text
    assert all(card not in text for p in g.players for card in p.hand)


def test_r16_events_are_redacted_per_viewer():
    events = new_game(Options(2), SEED)
    dealt = [e for e in events if isinstance(e, ev.CardsDealt)]
    assert redact(dealt[0], 0).cards == dealt[0].cards
    assert redact(dealt[0], 1).cards is None and redact(dealt[0], None).count == 8
    assert redact(events[1], 0).order is None
    assert redact(events[1], 0, revealed=True).order == events[1].order


def test_r16_crystal_amounts_are_private_in_events():
    rewarded = ev.Rewarded(1, "construction", "mill", 3, 0, 1)
    assert redact(rewarded, 1).crystals == 3 and redact(rewarded, 0).crystals is None
    assert redact(rewarded, None).crystals is None and redact(rewarded, 0, revealed=True).crystals == 3
    scored = ev.ScalesScored(((0, 6), (1, 3)), (0, 1), 7)
    assert redact(scored, 1).crystals == ((0, None), (1, 3)) and redact(scored, None).crystals == ((0, None), (1, None))


# P16 -----------------------------------------------------------------------------------------
def test_p16_every_turn_without_a_contribution_or_offering_is_counted_and_building_resets_it():
    g = explicit_game(2)
    g, _ = play(g, cmd.EndTurn(0), cmd.EndTurn(1))
    assert g.quiet_turns == 2 and view(g, None)["quiet_turns"] == 2
    g = arrange(g, 0, position="earth_temple", hand=("red-3a",))
    g, _ = play(g, cmd.Contribute(0, "earth_temple", 2, ("red-3a",)), cmd.EndTurn(0))
    assert g.quiet_turns == 0
    g = arrange(g, 1, position="courtyard", crystals=7)
    g, _ = play(g, cmd.EndTurn(1), cmd.EndTurn(0), cmd.Offer(1), cmd.EndTurn(1))
    assert g.quiet_turns == 0 and g.players[1].offerings == 1


def test_p16_ten_quiet_rounds_end_the_game_with_most_offerings_then_crystals():
    g = explicit_game(3)
    g = arrange(g, 0, offerings=2, crystals=5)
    g = arrange(g, 1, offerings=2, crystals=8)
    g = arrange(g, 2, offerings=1, crystals=30)
    g = replace(g, quiet_turns=28)  # 10 rounds of 3 turns: the 30th quiet turn ends it
    g, _ = play(g, cmd.EndTurn(0))
    assert not g.finished and g.quiet_turns == 29
    g, events = play(g, cmd.EndTurn(1))
    assert g.result.reason.value == "stalemate" and g.result.winners == (1,)
    assert isinstance(events[-1], ev.GameEnded) and not any(isinstance(e, ev.TurnStarted) for e in events)


def test_p16_a_contribution_in_the_last_quiet_turn_saves_the_game():
    g = explicit_game(2)
    g = replace(g, quiet_turns=19)
    g = arrange(g, 0, position="earth_temple", hand=("red-3a",))
    g, _ = play(g, cmd.Contribute(0, "earth_temple", 2, ("red-3a",)), cmd.EndTurn(0))
    assert not g.finished and g.quiet_turns == 0


def test_p16_a_game_created_under_rules_1_plays_on_as_it_always_did():
    g = replace(explicit_game(2), rules=1, quiet_turns=40)
    g, events = play(g, cmd.EndTurn(g.turn.seat))
    assert not g.finished and g.quiet_turns == 41 and isinstance(events[-1], ev.TurnStarted)
