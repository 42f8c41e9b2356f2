"""Tournaments' rules on examples worked by hand (docs/tournaments.md)."""

import pytest

from domain.tournaments import (
    BYE_POINTS,
    POINTS,
    Entrant,
    Format,
    Outcome,
    Round,
    Table,
    absent_after,
    count_absences,
    pair_swiss,
    round_robin,
    round_without,
    standings,
    table_points,
    table_sizes,
    validate,
)


def field(n):
    """p1 … pn, rated from the top down."""
    return [Entrant(f"p{i}", 2000 - 10 * i) for i in range(1, n + 1)]


def won(*players):
    """A table finished in seat order, no shared places."""
    return Outcome(tuple(players), tuple(range(1, len(players) + 1)))


def seats(r):
    return [t.players for t in r.tables]


def test_a_four_player_round_robin_by_the_circle_method_and_its_standings():
    rounds = round_robin(field(4), 2)
    assert [seats(r) for r in rounds] == [
        [("p1", "p4"), ("p2", "p3")],
        [("p1", "p3"), ("p2", "p4")],
        [("p1", "p2"), ("p3", "p4")],
    ]
    assert all(r.byes == () for r in rounds)
    outcomes = [
        won("p1", "p4"),
        Outcome(("p2", "p3"), (1, 1)),
        won("p1", "p3"),
        won("p4", "p2"),
        won("p2", "p1"),
        won("p3", "p4"),
    ]
    lines = standings(field(4), rounds, outcomes, set(), table_size=2)
    # points: p1 1+1+0, p2 ½+0+1, p3 ½+0+1, p4 0+1+0; Buchholz: the others' points;
    # Sonneborn–Berger, the points of whom one beat (half for a draw): p1 1 + 1½, p2 ½·1½ + 2,
    # p3 ½·1½ + 1, p4 1½ (p2): p2 and p3 are equal on points and Buchholz, apart on Sonneborn–Berger
    assert [(s.player, s.points, s.buchholz, s.sonneborn_berger, s.place) for s in lines] == [
        ("p1", 2.0, 4.0, 2.5, 1),
        ("p2", 1.5, 4.5, 2.75, 2),
        ("p3", 1.5, 4.5, 1.75, 3),
        ("p4", 1.0, 5.0, 1.5, 4),
    ]
    assert all(s.games == 3 and s.byes == 0 and not s.withdrawn for s in lines)


def test_a_round_robin_round_after_a_withdrawal_leaves_the_lone_player_a_bye():
    rounds = round_robin(field(4), 2)
    assert round_without(rounds[1], {"p4"}) == Round(2, (Table(("p1", "p3")),), ("p2",))
    five_at_fours = round_robin(field(5), 4)[0]
    assert five_at_fours == Round(1, (Table(("p1", "p2", "p3", "p4")),), ("p5",))
    assert round_without(five_at_fours, {"p2", "p5"}) == Round(1, (Table(("p1", "p3", "p4")),), ())


def test_an_eight_player_swiss_avoids_the_repeats_top_down_seating_would_make():
    entrants, history, outcomes = field(8), [], []
    results = [
        [won("p1", "p2"), won("p3", "p4"), won("p5", "p6"), won("p7", "p8")],
        [won("p1", "p3"), won("p5", "p7"), won("p2", "p4"), won("p6", "p8")],
        [won("p1", "p5"), won("p2", "p3"), won("p6", "p7"), won("p4", "p8")],
    ]
    for number, finished in enumerate(results, 1):
        r = pair_swiss(entrants, history, outcomes, set(), number, table_size=2)
        assert sorted(map(set, seats(r)), key=sorted) == sorted((set(o.players) for o in finished), key=sorted)
        history.append(r)
        outcomes.extend(finished)
    # p1 3; p2, p5, p6 2; p3, p4, p7 1; p8 0. Top down would be p1–p2 (met in round 1); p1 has met
    # p2 and p5, so meets p6; then p2–p5; p3–p4 and p4–p8 are repeats, so p3–p8 and p4–p7
    fourth = pair_swiss(entrants, history, outcomes, set(), 4, table_size=2)
    assert seats(fourth) == [("p1", "p6"), ("p2", "p5"), ("p3", "p8"), ("p4", "p7")]
    assert fourth.byes == ()


def test_an_odd_field_gives_the_bye_to_the_lowest_ranked_who_has_not_had_one():
    entrants = field(5)
    first = pair_swiss(entrants, [], [], set(), 1, table_size=2)
    assert (seats(first), first.byes) == ([("p1", "p2"), ("p3", "p4")], ("p5",))
    outcomes = [won("p1", "p2"), won("p4", "p3")]
    # p1, p4 and p5 (the bye: a win's point) have 1; p2 and p3 0: p3 is last and has had no bye
    second = pair_swiss(entrants, [first], outcomes, set(), 2, table_size=2)
    assert (seats(second), second.byes) == ([("p1", "p4"), ("p5", "p2")], ("p3",))
    lines = standings(entrants, [first], outcomes, set(), table_size=2)
    # the bye's Buchholz is the player's own score (1), the others beat a player with 0
    assert [(s.player, s.points, s.buchholz, s.byes, s.games, s.place) for s in lines[:3]] == [
        ("p5", 1.0, 1.0, 1, 0, 1),
        ("p1", 1.0, 0.0, 0, 1, 2),
        ("p4", 1.0, 0.0, 0, 1, 2),
    ]


def test_a_withdrawn_player_is_not_paired_and_keeps_their_line():
    entrants = field(4)
    first = pair_swiss(entrants, [], [], set(), 1, table_size=2)
    outcomes = [won("p1", "p2"), won("p3", "p4")]
    second = pair_swiss(entrants, [first], outcomes, {"p4"}, 2, table_size=2)
    assert (seats(second), second.byes) == ([("p1", "p3")], ("p2",))
    lines = standings(entrants, [first, second], outcomes, {"p4"}, table_size=2, absences={"p4": 2})
    assert [(s.player, s.withdrawn, s.absences) for s in lines][-1] == ("p4", True, 2)
    assert all(s.absences == 0 for s in lines[:-1])


@pytest.mark.parametrize(
    ("players", "table_size", "sizes", "byes"),
    [
        (10, 3, (3, 3, 2, 2), 0),
        (11, 3, (3, 3, 3, 2), 0),
        (10, 4, (4, 3, 3), 0),
        (11, 4, (4, 4, 3), 0),
        (5, 4, (4,), 1),
        (2, 4, (2,), 0),
        (9, 2, (2, 2, 2, 2), 1),
        (1, 3, (), 1),
    ],
)
def test_short_tables_rather_than_byes(players, table_size, sizes, byes):
    assert table_sizes(players, table_size) == (sizes, byes)


def test_ten_players_at_tables_of_three_play_two_short_tables_scored_on_the_same_range():
    first = pair_swiss(field(10), [], [], set(), 1, table_size=3)
    assert seats(first) == [("p1", "p2", "p3"), ("p4", "p5", "p6"), ("p7", "p8"), ("p9", "p10")]
    assert table_points(Outcome(("p1", "p2", "p3"), (1, 2, 2)), 3) == {"p1": 2.0, "p2": 0.5, "p3": 0.5}
    assert table_points(won("p7", "p8"), 3) == {"p7": 2.0, "p8": 0.0}
    assert table_points(Outcome(("p9", "p10"), (1, 1)), 3) == {"p9": 1.0, "p10": 1.0}


def test_eleven_players_at_tables_of_four_and_a_short_tables_points():
    first = pair_swiss(field(11), [], [], set(), 1, table_size=4)
    assert seats(first) == [("p1", "p2", "p3", "p4"), ("p5", "p6", "p7", "p8"), ("p9", "p10", "p11")]
    assert POINTS[4] == (3.0, 2.0, 1.0, 0.0)
    assert table_points(won("p9", "p10", "p11"), 4) == {"p9": 3.0, "p10": 1.5, "p11": 0.0}
    assert table_points(Outcome(("p9", "p10", "p11"), (1, 1, 3)), 4) == {"p9": 2.25, "p10": 2.25, "p11": 0.0}
    assert table_points(Outcome(("p1", "p2", "p3", "p4"), (1, 2, 2, 4)), 4) == {
        "p1": 3.0,
        "p2": 1.5,
        "p3": 1.5,
        "p4": 0.0,
    }


def test_ten_players_at_tables_of_four_meet_as_few_old_tablemates_as_can_be():
    """After 4, 3, 3 every table of four must seat two who met (four need one from each first-round
    table, and there are three); the round has exactly one such pair."""
    entrants = field(10)
    first = pair_swiss(entrants, [], [], set(), 1, table_size=4)
    assert seats(first) == [("p1", "p2", "p3", "p4"), ("p5", "p6", "p7"), ("p8", "p9", "p10")]
    outcomes = [won(*t.players) for t in first.tables]
    second = pair_swiss(entrants, [first], outcomes, set(), 2, table_size=4)
    met_before = [(a, b) for t in second.tables for a in t.players for b in t.players if a < b]
    old = {frozenset(p) for t in first.tables for p in [(a, b) for a in t.players for b in t.players if a < b]}
    assert sum(frozenset(pair) in old for pair in met_before) == 1
    assert sorted(len(t.players) for t in second.tables) == [3, 3, 4]


def test_a_bye_is_worth_a_win_at_a_full_table():
    assert BYE_POINTS == {2: 1.0, 3: 2.0, 4: 3.0}


def test_two_absences_withdraw_a_player_once():
    no_shows = [{"p3"}, set(), {"p3", "p5"}]
    assert count_absences(no_shows) == {"p3": 2, "p5": 1}
    assert absent_after(no_shows, withdrawn=set()) == {"p3"}
    assert absent_after(no_shows, withdrawn={"p3"}) == set()


@pytest.mark.parametrize(
    ("format", "problems"),
    [
        (Format("swiss", 2, 4, 40, rounds=3), []),
        (Format("round_robin", 4, 4, 16), []),
        (Format("swiss", 2, 4, 40), [("rounds", "a Swiss needs at least 1 round")]),
        (Format("swiss", 2, 4, 40, rounds=16), [("rounds", "at most 15 rounds")]),
        (
            Format("swiss", 4, 3, 2, rounds=3),
            [("min_players", "at least the table size, 4"), ("max_players", "at least min_players")],
        ),
        (Format("round_robin", 2, 2, 13), [("max_players", "at most 12 players")]),
        (
            Format("round_robin", 3, 3, 8, rounds=2),
            [("rounds", "a round robin's rounds follow from its players: leave it out")],
        ),
        (
            Format("knockout", 5, 2, 8),
            [("kind", "must be one of swiss, round_robin"), ("table_size", "must be 2, 3 or 4")],
        ),
    ],
)
def test_a_format_is_checked_field_by_field(format, problems):
    assert validate(format) == problems


def test_an_outcome_counts_places_as_ruling_p18_does():
    with pytest.raises(ValueError, match="1, 2, 2, 4"):
        Outcome(("a", "b", "c"), (1, 3, 3))


def test_standings_at_tables_of_four_with_a_short_table_and_shared_places():
    entrants = field(7)
    first = pair_swiss(entrants, [], [], set(), 1, table_size=4)
    assert seats(first) == [("p1", "p2", "p3", "p4"), ("p5", "p6", "p7")]
    outcomes = [Outcome(("p1", "p2", "p3", "p4"), (1, 2, 2, 4)), won("p5", "p6", "p7")]
    lines = standings(entrants, [first], outcomes, set(), table_size=4)
    # points: 3, 1½, 1½, 0 and, the short table scaled by 3/2, 3, 1½, 0. Buchholz: p1 1½ + 1½ + 0;
    # p5 3/2 · (1½ + 0); p7 3/2 · (3 + 1½). Sonneborn–Berger: p1 1½ + 1½ (beat p2, p3, p4);
    # p2 ½ · 1½ (shared with p3); p5 3/2 · 1½ (beat p6; p7 has 0)
    assert [(s.player, s.points, s.buchholz, s.sonneborn_berger, s.place) for s in lines] == [
        ("p1", 3.0, 3.0, 3.0, 1),
        ("p5", 3.0, 2.25, 2.25, 2),
        ("p2", 1.5, 4.5, 0.75, 3),
        ("p3", 1.5, 4.5, 0.75, 3),
        ("p6", 1.5, 4.5, 0.0, 5),
        ("p7", 0.0, 6.75, 0.0, 6),
        ("p4", 0.0, 6.0, 0.0, 7),
    ]


def test_results_that_do_not_fit_the_rounds_are_refused():
    entrants = field(4)
    first = pair_swiss(entrants, [], [], set(), 1, table_size=2)
    with pytest.raises(ValueError, match="no unfinished table"):
        standings(entrants, [first], [won("p1", "p3")], set(), table_size=2)
    with pytest.raises(ValueError, match="no unfinished table"):
        standings(entrants, [first], [won("p1", "p2"), won("p2", "p1")], set(), table_size=2)
    with pytest.raises(ValueError, match="not entrants"):
        standings(entrants[:3], [first], [], set(), table_size=2)
    with pytest.raises(ValueError, match="round 3 follows rounds 1 to 2"):
        pair_swiss(entrants, [first], [], set(), 3, table_size=2)
