"""Tournaments' rules over random fields and results: who sits where, repeats, byes, standings."""

import random
import re
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.tournaments import (
    MAX_ROUND_ROBIN_PLAYERS,
    MAX_SWISS_PLAYERS,
    Entrant,
    Outcome,
    pair_swiss,
    round_robin,
    standings,
    table_points,
    table_sizes,
)
from domain.tournaments.round_robin import schedule
from domain.tournaments.swiss import meetings
from tests.support.properties import SETTINGS as GAMES_SETTINGS

SETTINGS = settings(GAMES_SETTINGS, max_examples=60)  # a tournament is quicker than a game
DOCS = (Path(__file__).resolve().parents[2] / "docs" / "tournaments.md").read_text()


def random_outcome(players, rng):
    """Places as a game gives them: a random finishing score each, equal scores sharing a place."""
    finish = [rng.randint(0, len(players)) for _ in players]
    return Outcome(tuple(players), tuple(1 + sum(o > f for o in finish) for f in finish))


def repeats(tables, met):
    return sum(met[frozenset(pair)] for t in tables for pair in combinations(t, 2))


def seatings(players, sizes):
    """Every way to seat ``players`` at tables of ``sizes`` (a multiset), tables as frozensets."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in set(sizes):
        left = list(sizes)
        left.remove(size)
        for others in combinations(rest, size - 1):
            remaining = [p for p in rest if p not in others]
            for seating in seatings(remaining, left):
                yield [(first, *others), *seating]


def fewest_repeats(active, history, table_size):
    """The fewest repeats any round could have, with the bye (if any) on any player with the
    fewest byes: what pairing must reach."""
    sizes, bye_count = table_sizes(len(active), table_size)
    met = meetings(history)
    had = Counter(p for r in history for p in r.byes)
    fewest = min(had[p] for p in active)
    choices = [p for p in active if had[p] == fewest] if bye_count else [None]
    return min(repeats(s, met) for bye in choices for s in seatings([p for p in active if p != bye], sizes))


tables = st.sampled_from([2, 3, 4]).flatmap(
    lambda k: st.tuples(st.just(k), st.lists(st.integers(0, 3), min_size=2, max_size=k))
)


@SETTINGS
@given(tables)
def test_a_tables_points_follow_its_places_within_the_range_of_a_full_table(table):
    table_size, finish = table
    players = tuple(f"e{i}" for i in range(len(finish)))
    outcome = Outcome(players, tuple(1 + sum(o > f for o in finish) for f in finish))
    points = table_points(outcome, table_size)
    for (p, place), (q, other) in combinations(zip(players, outcome.places), 2):
        assert (points[p] > points[q]) == (place < other) and (points[p] == points[q]) == (place == other)
    # each pair of tablemates shares what a pair at a full table shares: the total is fixed
    assert sum(points.values()) == (table_size - 1) * len(players) / 2
    if outcome.places.count(1) == 1:
        assert max(points.values()) == table_size - 1
    if outcome.places.count(max(outcome.places)) == 1:
        assert min(points.values()) == 0


tournaments = st.fixed_dictionaries(
    {
        "players": st.integers(2, 13),
        "table_size": st.sampled_from([2, 3, 4]),
        "rounds": st.integers(1, 7),
        "seed": st.integers(0, 2**32),
        "withdraw_each_round": st.floats(0, 0.15),
    }
)


def play(players, table_size, rounds, seed, withdraw_each_round, check=lambda **_: None):
    """A Swiss played with random results and random withdrawals, each round handed to ``check``."""
    rng = random.Random(seed)
    entrants = [Entrant(f"e{i}", rng.choice([1200.0, 1500.0, rng.uniform(800, 2200)])) for i in range(players)]
    history, outcomes, withdrawn = [], [], set()
    for number in range(1, rounds + 1):
        r = pair_swiss(entrants, history, outcomes, withdrawn, number, table_size=table_size)
        check(entrants=entrants, history=history, outcomes=outcomes, withdrawn=withdrawn, round=r, rng=rng)
        history.append(r)
        outcomes.extend(random_outcome(t.players, rng) for t in r.tables)
        withdrawn |= {e.player for e in entrants if rng.random() < withdraw_each_round}
    return entrants, history, outcomes, withdrawn


@SETTINGS
@given(tournaments)
def test_everyone_still_in_sits_once_a_round_at_a_table_of_the_layout(t):
    def check(entrants, withdrawn, round, **_):
        active = [e.player for e in entrants if e.player not in withdrawn]
        seated = round.players()
        assert sorted(seated) == sorted(active)  # nobody twice, nobody left out, nobody withdrawn
        assert all(len(set(table.players)) == len(table.players) >= 2 for table in round.tables)
        sizes, byes = table_sizes(len(active), t["table_size"])
        assert (sorted(len(table.players) for table in round.tables), len(round.byes)) == (sorted(sizes), byes)

    play(**t, check=check)


@SETTINGS
@given(tournaments.filter(lambda t: t["players"] <= 10))
def test_a_round_has_as_few_repeat_tablemates_as_any_seating_could(t):
    def check(entrants, history, withdrawn, round, **_):
        active = [e.player for e in entrants if e.player not in withdrawn]
        if len(active) >= 2:
            made = repeats([table.players for table in round.tables], meetings(history))
            assert made == fewest_repeats(active, history, t["table_size"])

    play(**t, check=check)


@SETTINGS
@given(tournaments)
def test_nobody_has_a_second_bye_while_someone_still_in_has_had_none(t):
    def check(entrants, history, withdrawn, round, **_):
        had = Counter(p for r in history for p in r.byes)
        active = [e.player for e in entrants if e.player not in withdrawn]
        for player in round.byes:
            assert had[player] == min(had[p] for p in active)

    play(**t, check=check)


@SETTINGS
@given(tournaments)
def test_pairing_and_standings_depend_on_nothing_but_their_inputs(t):
    def check(entrants, history, outcomes, withdrawn, round, rng):
        again = pair_swiss(
            rng.sample(entrants, len(entrants)),
            list(history),
            rng.sample(outcomes, len(outcomes)),
            set(withdrawn),
            round.number,
            table_size=t["table_size"],
        )
        assert again == round
        lines = standings(entrants, history, outcomes, withdrawn, table_size=t["table_size"])
        shuffled = standings(
            rng.sample(entrants, len(entrants)),
            history,
            rng.sample(outcomes, len(outcomes)),
            withdrawn,
            table_size=t["table_size"],
        )
        assert shuffled == lines

    play(**t, check=check)


@SETTINGS
@given(tournaments)
def test_standings_are_sorted_with_places_shared_only_on_equal_merit_and_every_point_counted(t):
    entrants, history, outcomes, withdrawn = play(**t)
    k = t["table_size"]
    lines = standings(entrants, history, outcomes, withdrawn, table_size=k)
    merit = [(s.points, s.buchholz, s.sonneborn_berger) for s in lines]
    assert merit == sorted(merit, reverse=True)
    for line, m in zip(lines, merit):
        assert line.place == 1 + sum(other > m for other in merit)
    assert sorted(s.player for s in lines) == sorted(e.player for e in entrants)
    earned = sum(sum(table_points(o, k).values()) for o in outcomes) + (k - 1) * sum(len(r.byes) for r in history)
    assert sum(s.points for s in lines) == earned
    assert {s.player for s in lines if s.withdrawn} == withdrawn
    assert sum(s.games for s in lines) == sum(len(o.players) for o in outcomes)


def check_round_robin(players, table_size):
    """Every pair meets, everyone sits once a round at the layout's tables, byes are even, and
    the schedule does not depend on the order the entrants come in."""
    entrants = [Entrant(f"e{i}", 1500.0 - i) for i in range(players)]
    schedule = round_robin(entrants, table_size)
    assert [r.number for r in schedule] == list(range(1, len(schedule) + 1))
    for r in schedule:
        assert sorted(r.players()) == sorted(e.player for e in entrants)
        assert (tuple(len(t.players) for t in r.tables), len(r.byes)) == table_sizes(players, table_size)
    met = meetings(schedule)
    assert all(met[frozenset(pair)] for pair in combinations([e.player for e in entrants], 2))
    byes = Counter(p for r in schedule for p in r.byes)
    assert len({byes[e.player] for e in entrants}) == 1
    assert round_robin(list(reversed(entrants)), table_size) == schedule
    return schedule


@pytest.mark.parametrize(("players", "table_size"), [(4, 2), (5, 2), (10, 3), (11, 3), (10, 4), (11, 4), (5, 4)])
def test_a_round_robin_seats_every_pair_together_and_everyone_once_a_round(players, table_size):
    check_round_robin(players, table_size)


def test_a_round_robin_schedule_worked_out_again_is_the_same():
    """Schedules are kept once worked out; working one out afresh gives the same rounds."""
    assert schedule.__wrapped__(10, 4) == schedule(10, 4)


ALL_FIELDS = [(n, k) for k, cap in MAX_ROUND_ROBIN_PLAYERS.items() for n in range(k, cap + 1)]


@pytest.mark.slow
@pytest.mark.parametrize(("players", "table_size"), ALL_FIELDS)
def test_every_round_robin_a_format_allows_covers_every_pair_in_the_rounds_the_rules_say(players, table_size):
    """Slow: works out all 37 schedules a format allows, some a second of local search each."""
    assert str(len(check_round_robin(players, table_size))) == documented_rounds()[table_size][players]


def documented_rounds():
    """docs/tournaments.md's table of a round robin's rounds: table size to players to rounds."""
    lines = DOCS.split("## Round robin")[1].splitlines()
    header = next(line for line in lines if line.startswith("| players |"))
    players = [int(cell) for cell in header.strip("|").split("|")[1:]]
    rows = (re.fullmatch(r"\| tables of (\d) \|(.*)\|", line) for line in lines)
    return {int(row[1]): dict(zip(players, (c.strip() for c in row[2].split("|")))) for row in rows if row}


@pytest.mark.parametrize("table_size", [2, 3, 4])
def test_a_forty_player_swiss_of_three_rounds_with_random_places(table_size):
    """40 players, three rounds, random places (shared ones too), no withdrawals: nobody meets
    anyone twice, nobody has a bye (40 seat at tables of 2, at 12 of 3 and 2 of 2, or at 10 of
    4), everyone plays three games and the standings add up."""
    entrants, history, outcomes, _ = play(40, table_size, 3, seed=table_size, withdraw_each_round=0)
    assert all(sorted(r.players()) == sorted(e.player for e in entrants) and not r.byes for r in history)
    assert max(meetings(history).values()) == 1
    lines = standings(entrants, history, outcomes, set(), table_size=table_size)
    assert [s.games for s in lines] == [3] * 40
    assert sum(s.points for s in lines) == sum(sum(table_points(o, table_size).values()) for o in outcomes)
    assert [s.place for s in lines] == sorted(s.place for s in lines) and lines[0].place == 1


@pytest.mark.slow
@pytest.mark.parametrize(("table_size", "rounds"), [(2, 15), (4, 10)])
def test_the_largest_swiss_a_format_allows_plays_its_rounds_without_repeats(table_size, rounds):
    """Slow: 256 players paired 10 to 15 times, a few rounds running the search to its budget."""
    entrants, history, outcomes, _ = play(MAX_SWISS_PLAYERS, table_size, rounds, seed=7, withdraw_each_round=0)
    assert max(meetings(history).values()) == 1
    assert all(len(r.players()) == MAX_SWISS_PLAYERS for r in history)
