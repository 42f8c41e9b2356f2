"""Every worked example of the three rulebooks, from an explicit setup, with the exact numbers."""

import pytest

from domain import Edition, IllegalCommand, legal_commands
from domain import commands as cmd
from domain import events as ev
from tests.situations import arrange, dragons, explicit_game, play, site


def test_2006_university_with_two_dragons_scores_scales_majority_and_neighbours():
    # University north-east of the Courtyard: Fire Temple (rebuilt) to its west, Royal Palace
    # (rubble) to its south, Market Hall (rebuilt) to its north, Hospice to its east.
    g = explicit_game(2, Edition.CLASSIC, grid={"university": (1, 3), "market_hall": (0, 3), "hospice": (1, 4)})
    g = site(g, "fire_temple", reconstructed=True)
    g = site(g, "market_hall", reconstructed=True)
    g = site(g, "university", markers=(None, 1))  # the opponent paid the white 2 box
    g = dragons(g, red="university")
    g = arrange(g, 0, position="hospice", hand=("blue-1a", "white-2a", "white-3a", "red-1a", "red-2a"))
    opponent_hand = len(g.players[1].hand)

    g, events = play(
        g,
        cmd.Move(0, "university"),
        cmd.FlyDragon(0, "blue-1a", "university"),
        cmd.Contribute(0, "university", 0, ("white-2a", "white-3a")),
    )
    you, opponent = g.players
    assert ev.Rewarded(0, "dragons", "university", 0, 2, 0) in events
    assert ev.BuildingCompleted("university", 0, (0, 1)) in events  # your marker is farther left
    assert you.scales == 2 + 1 and opponent.scales == 0
    assert you.crystals == 1 + 3 and opponent.crystals == 1 + 3  # construction + Fire Temple
    assert len(you.aside) == 2 and len(opponent.hand) == opponent_hand + 2  # Market Hall cards
    assert not any(e.source == "royal_palace" for e in events if isinstance(e, ev.Rewarded))
    assert g.sites["university"].reconstructed and g.players[0].markers == 10
    assert g.dragons[next(iter(g.dragons))] == "university" and you.position == "university"
    assert g.scale_supply == 9 - 3

    g, _ = play(g, cmd.EndTurn(0, ("red-1a", "red-2a")))
    assert len(g.players[0].hand) == 0 + 4 + 2 and g.players[0].aside == ()


def test_2006_scale_scoring_with_5_4_2_scales_and_one_left():
    g = explicit_game(3, Edition.CLASSIC)
    g = arrange(g, 0, scales=5, position="thermae", hand=("blue-3a",))
    g = arrange(g, 1, scales=4)
    g = arrange(g, 2, scales=2)
    g = dragons(g, red="thermae", blue="thermae")
    from dataclasses import replace

    g = replace(g, scale_supply=1)
    g, events = play(g, cmd.Contribute(0, "thermae", 0, ("blue-3a",)))
    assert ev.Rewarded(0, "dragons", "thermae", 0, 2, 0) in events
    scored = next(e for e in events if isinstance(e, ev.ScalesScored))
    assert dict(scored.crystals) == {0: 6, 1: 3}
    assert [p.scales for p in g.players] == [0, 0, 2]
    assert [p.crystals for p in g.players] == [6, 3, 0]
    assert g.scale_supply == 12 - 2


def test_2018_natasha_moves_up_and_left_but_never_diagonally_then_pays_the_city_residence_3():
    g = explicit_game(2, grid={"hospice": (2, 4), "watchtower": (1, 4), "city_residence": (1, 3)})
    g = arrange(g, 0, position="hospice", hand=("brown-1a", "brown-2a", "brown-3a", "red-1a"))
    with pytest.raises(IllegalCommand) as diagonal:
        play(g, cmd.Move(0, "city_residence"))
    assert diagonal.value.code == "not_adjacent"
    g, _ = play(g, cmd.Move(0, "watchtower"), cmd.Move(0, "city_residence"))
    with pytest.raises(IllegalCommand) as tired:
        play(g, cmd.Move(0, "watchtower"))
    assert tired.value.code == "no_steps_left"
    g, _ = play(g, cmd.Contribute(0, "city_residence", 1, ("brown-1a", "brown-2a")))
    open_spaces = [i for i, m in enumerate(g.sites["city_residence"].markers) if m is None]
    assert open_spaces == [0, 2]  # the 4 and the 2 remain


def test_2018_aman_pays_the_earth_temple_5_and_3_with_red_3_2_2_1():
    g = explicit_game(2)
    g = arrange(g, 0, position="earth_temple", hand=("red-3a", "red-2a", "red-2b", "red-1a"))
    g, _ = play(
        g,
        cmd.Contribute(0, "earth_temple", 0, ("red-3a", "red-2a")),
        cmd.Contribute(0, "earth_temple", 2, ("red-2b", "red-1a")),
    )
    assert g.sites["earth_temple"].markers == (0, None, 0)
    assert g.players[0].hand == () and g.players[0].markers == 8


def test_2018_laura_makes_one_university_contribution_with_white_3_3_1_then_resets():
    g = explicit_game(2)
    g = arrange(g, 0, position="university", hand=("white-3a", "white-3b", "white-1a", "red-1a", "red-2a"))
    g, _ = play(g, cmd.Contribute(0, "university", 0, ("white-3a", "white-3b")))
    with pytest.raises(IllegalCommand) as refused:
        play(g, cmd.Contribute(0, "university", 1, ("white-1a",)))
    assert refused.value.code == "not_enough_value"
    # The example overlooks one trick: her white 1 may instead be played as a Hoax to recolour
    # the red cards she holds. Every contribution still legal needs that Hoax.
    left = [c for c in legal_commands(g, 0) if isinstance(c, cmd.Contribute)]
    assert left and all(c.hoax and c.hoax[0].card == "white-1a" for c in left)
    before = len(g.players[0].hand)
    g, events = play(g, cmd.EndTurn(0, ("red-1a", "red-2a")))
    drawn = [e for e in events if isinstance(e, ev.CardsDrawn)]
    assert sum(e.count for e in drawn) == 4
    assert len(g.players[0].hand) == before - 2 + 4
    assert g.turn.seat == 1


def test_2018_carol_scores_the_water_temple_7_crystals_and_aman_5():
    g = explicit_game(
        2,
        grid={
            "water_temple": (1, 1),
            "citadel": (0, 1),
            "aqueduct": (1, 0),
            "monastery_tower": (1, 2),
            "trading_house": (2, 1),
        },
    )
    g = site(g, "citadel", reconstructed=True)
    g = site(g, "aqueduct", reconstructed=True)
    g = site(g, "water_temple", markers=(0, 1, None))  # Carol is seat 0, Aman seat 1
    g = arrange(g, 0, position="water_temple", hand=("blue-3a",))
    g, events = play(g, cmd.Contribute(0, "water_temple", 2, ("blue-3a",)))
    assert ev.BuildingCompleted("water_temple", 0, (0, 1)) in events
    assert g.players[0].crystals == 7 and g.players[1].crystals == 5
    assert g.players[0].scales == 0 and g.players[1].scales == 0


def test_2018_aman_completes_the_monastery_tower_and_scales_score_8_4_5_2():
    seats = {"aman": 0, "natasha": 1, "laura": 2, "carol": 3}
    g = explicit_game(4, grid={"monastery_tower": (1, 1), "water_temple": (0, 1)})
    # the Monastery Tower's other neighbours stay rubble
    g = site(g, "water_temple", reconstructed=True)
    g = site(g, "monastery_tower", markers=(seats["carol"], seats["natasha"], None))
    g = dragons(g, blue="monastery_tower")
    for who, scales in {"aman": 5, "natasha": 3, "laura": 2, "carol": 1}.items():
        g = arrange(g, seats[who], scales=scales)
    from dataclasses import replace

    g = replace(g, scale_supply=1)
    g = arrange(g, 0, position="monastery_tower", hand=("grey-2a",))
    g, events = play(g, cmd.Contribute(0, "monastery_tower", 2, ("grey-2a",)))
    completed = next(e for e in events if isinstance(e, ev.BuildingCompleted))
    assert completed.majority == seats["carol"]  # tied 1-1-1, Carol's marker is leftmost
    scored = next(e for e in events if isinstance(e, ev.ScalesScored))
    assert dict(scored.crystals) == {seats["aman"]: 6, seats["natasha"]: 3, seats["carol"]: 3}
    assert set(scored.returned) == {seats["aman"], seats["natasha"], seats["carol"]}
    assert [p.scales for p in g.players] == [0, 0, 2, 0]  # Laura keeps her 2
    assert [p.crystals for p in g.players] == [2 + 6, 2 + 3, 0, 2 + 3]
    assert g.scale_supply == 12 - 2


def test_2018_scale_totals_before_scoring_are_8_5_2_4():
    g = explicit_game(4, grid={"monastery_tower": (1, 1), "water_temple": (0, 1)})
    g = site(g, "water_temple", reconstructed=True)
    g = site(g, "monastery_tower", markers=(3, 1, None))
    g = dragons(g, blue="monastery_tower")
    for seat, scales in enumerate((5, 3, 2, 1)):
        g = arrange(g, seat, scales=scales)
    from dataclasses import replace

    g = replace(g, scale_supply=1)
    g = arrange(g, 0, position="monastery_tower", hand=("grey-2a",))
    events = play(g, cmd.Contribute(0, "monastery_tower", 2, ("grey-2a",)))[1]
    before = [5, 3, 2, 1]
    for e in events:
        if isinstance(e, ev.Rewarded):
            before[e.seat] += e.scales
        if isinstance(e, ev.ScalesScored):
            break
    assert before == [8, 5, 2, 4]


def test_2018_laura_offers_9_crystals_at_the_first_open_9_space():
    g = explicit_game(4)
    from dataclasses import replace

    g = replace(g, obelisk=(1, 2, 3, 1, 2, 3) + (None,) * 7)
    g = arrange(g, 0, position="royal_palace", crystals=11)
    g, events = play(g, cmd.Move(0, "courtyard"), cmd.Offer(0))
    assert ev.OfferingMade(0, 6, 9, None, "courtyard") in events
    assert g.obelisk[6] == 0 and g.obelisk[7] is None
    assert g.players[0].crystals == 2 and g.players[0].offerings == 1


def test_2018_natasha_contributes_to_the_main_hall_then_moves_to_the_courtyard_but_cannot_offer():
    g = explicit_game(2, expansion=True)
    g = arrange(g, 0, position="main_hall", crystals=9, hand=("red-1a", "blue-3a"))
    g, events = play(
        g,
        cmd.Contribute(0, "main_hall", 0, ("red-1a",), colour="red"),
        cmd.UseAction(0, "courtyard"),
    )
    assert g.players[0].position == "courtyard"
    for refused in (cmd.Offer(0), cmd.UseAction(0, "hospital")):
        with pytest.raises(IllegalCommand) as error:
            play(g, refused)
        assert error.value.code == "relocated"
    assert {type(c) for c in legal_commands(g, 0)} == {cmd.EndTurn}
    g, _ = play(g, cmd.EndTurn(0), cmd.EndTurn(1))
    g, events = play(g, cmd.Offer(0))  # her next turn
    assert g.players[0].offerings == 1 and g.players[0].crystals == 2
