"""Tournaments on a Redis and on a Redis Cluster (application/tournaments/): made, joined and left,
started or cancelled at their start, paired round by round into games, the games' ends recorded,
withdrawals and no-shows; each step once, from the outbox, even when it is taken twice."""

from __future__ import annotations

import json
import time
from itertools import combinations

import pytest
from redis.cluster import RedisCluster

from application.accounts.account_service import Accounts
from application.accounts.bot_accounts import BotAccounts
from application.people.relations import NotAllowed
from application.refusals import Forbidden
from application.tournaments import tournaments as tournaments_module
from application.tournaments.documents import step_name
from application.tournaments.rounds import game_id
from application.tournaments.tournaments import (
    AlreadyEntered,
    BadTournament,
    KeptOut,
    NotEntered,
    TooManyTournaments,
    TournamentClosed,
    TournamentFull,
    end_entry_name,
)
from application.wiring import build
from domain.commands import EndTurn
from events import keys
from tests.support.tournaments import Worklist, account, spec, start_now
from tests.support.workers import Workers, wait_until


def _parts_on(url: str, monkeypatch) -> tuple:
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")  # the test cluster keeps nothing on disk
    monkeypatch.setenv("BOT_STEP_DELAY", "0")
    work = Worklist()
    work.c = build(url=url, handoff=work.handoff)
    return work.c, work


@pytest.fixture(params=["redis", "cluster"])
def parts(request, redis_url, monkeypatch):
    """The application on the run's Redis or its cluster, its work run in this process."""
    url = redis_url if request.param == "redis" else request.getfixturevalue("cluster_urls")[0]
    built = _parts_on(url, monkeypatch)
    assert isinstance(built[0].client, RedisCluster) == (request.param == "cluster")
    return built


@pytest.fixture
def parts_on_redis(redis_url, monkeypatch):
    """The same on the run's Redis alone (a long run, whose every write the tests above check on both)."""
    return _parts_on(redis_url, monkeypatch)


def _made(c, **given):
    maker = account(c, "Maker")
    return maker, c.tournaments.create(maker, spec(**given))


def test_a_tournaments_document_and_its_step_share_one_slot(parts):
    c, _ = parts
    _, made = _made(c)
    assert keys.slot(keys.tournament(made["id"])[1:].split("}")[0]) == keys.slot(
        keys.outbox_of(step_name(made["id"]))[0][1:].split("}")[0]
    )
    due = c.client.zscore(keys.outbox_of(step_name(made["id"]))[1], step_name(made["id"]))
    assert due == made["starts"], "the step waits for the start"


def test_people_join_and_leave_before_the_start_and_not_twice(parts):
    c, _ = parts
    maker, made = _made(c, max_players=2)
    ann, ben, cy = (account(c, n) for n in ("Ann", "Ben", "Cy"))
    c.tournaments.join(made["id"], ann)
    with pytest.raises(AlreadyEntered):
        c.tournaments.join(made["id"], ann)
    c.tournaments.join(made["id"], ben)
    with pytest.raises(TournamentFull):
        c.tournaments.join(made["id"], cy)
    c.tournaments.leave(made["id"], ann)
    with pytest.raises(NotEntered):
        c.tournaments.leave(made["id"], ann)
    c.tournaments.join(made["id"], cy)
    assert [e["account"] for e in c.tournaments.get(made["id"])["entrants"]] == [ben, cy]
    assert [d["id"] for d in c.tournaments.entered(cy)] == [made["id"]]


def test_nobody_joins_where_an_entrant_blocks_them_and_only_the_maker_adds_bots(parts):
    c, _ = parts
    maker, made = _made(c)
    ann, ben = account(c, "Ann"), account(c, "Ben")
    c.tournaments.join(made["id"], ann)
    c.relations.block(ann, ben)
    with pytest.raises(NotAllowed):
        c.tournaments.join(made["id"], ben)
    with pytest.raises(Forbidden):
        c.tournaments.add_bot(made["id"], ann, "random")
    _, closed = _made(c, bot_levels=False)
    with pytest.raises(KeptOut):
        c.tournaments.add_bot(closed["id"], closed["creator"]["account"], "random")
    assert [e["account"] for e in c.tournaments.get(made["id"])["entrants"]] == [ann]


def test_a_format_the_rules_refuse_and_a_start_in_the_past_change_nothing(parts):
    c, _ = parts
    maker = account(c, "Maker")
    with pytest.raises(BadTournament) as refused:
        c.tournaments.create(maker, spec(format={"kind": "swiss", "table_size": 5, "rounds": 2}))
    assert refused.value.extra["field"] == "table_size"
    with pytest.raises(BadTournament):
        c.tournaments.create(maker, spec(starts=int(time.time() * 1000) - 1000))
    assert c.client.zcard(keys.account_tournaments(maker, "created")) == 0


def test_an_account_has_at_most_its_quota_of_tournaments_waiting_to_start(parts, monkeypatch):
    c, _ = parts
    monkeypatch.setattr(tournaments_module, "TOURNAMENTS_PER_ACCOUNT", 2)
    maker = account(c, "Maker")
    for _ in range(2):
        c.tournaments.create(maker, spec())
    with pytest.raises(TooManyTournaments) as refused:
        c.tournaments.create(maker, spec())
    assert refused.value.extra["limit"] == "QUOTA_TOURNAMENTS_PER_ACCOUNT"
    assert 0 < refused.value.extra["retry_after"] <= 61


def test_a_tournament_short_of_its_minimum_at_its_start_is_cancelled(parts):
    c, work = parts
    maker, made = _made(c, min_players=4)
    ann, bot, left = account(c, "Ann"), account(c, "Bo"), account(c, "Left")
    BotAccounts(c.store).convert(bot, 0, [], [])
    for person in (ann, bot, left):
        c.tournaments.join(made["id"], person)
    c.tournaments.leave(made["id"], left)
    c.tournaments.add_bot(made["id"], maker, "random")
    start_now(c, made["id"])
    work.due()
    found = c.tournaments.get(made["id"])
    assert (found["status"], found["reason"], found["rounds"]) == ("cancelled", "too_few_players", [])
    for person in (ann, bot):  # each entrant with an account (a bot account too), once
        assert [(e["type"], e["game"], e["data"]) for e in _tournament_news(c, person)] == [
            ("tournament.cancelled", made["id"], {"tournament": made["id"], "name": made["name"], "round": None,
                                                  "reason": "too_few_players", "place": None})
        ]  # fmt: skip
    assert _tournament_news(c, left) == [] and _tournament_news(c, maker) == []
    with pytest.raises(TournamentClosed):
        c.tournaments.join(made["id"], account(c, "Late"))
    assert not c.client.zscore(keys.outbox_of(step_name(made["id"]))[1], step_name(made["id"]))


@pytest.mark.slow
def test_a_swiss_of_bots_is_paired_played_and_finished_and_its_results_stay(parts):
    """Slow (about 3 s a store): three bots of the service play two rounds (a game and a bye each)."""
    c, work = parts
    maker, made = _made(c, format={"kind": "swiss", "table_size": 2, "rounds": 2})
    for _ in range(3):
        c.tournaments.add_bot(made["id"], maker, "random")
    start_now(c, made["id"])
    work.due()
    found = c.tournaments.get(made["id"])
    assert found["status"] == "finished"
    assert [len(r["tables"]) for r in found["rounds"]] == [1, 1] and all(len(r["byes"]) == 1 for r in found["rounds"])
    for number, round_ in enumerate(found["rounds"], 1):
        game = round_["tables"][0]["game"]
        assert game == game_id(made["id"], number, 0)
        assert c.service.state(game).finished
        assert c.service.settings(game)["origin"] == {"tournament": made["id"], "round": number}
    assert sorted(line["place"] for line in found["standings"])[0] == 1
    assert (
        sum(line["games"] for line in found["standings"]) == 4 and sum(line["byes"] for line in found["standings"]) == 2
    )


def _started_with_four(c, prefix: str) -> tuple[dict, list[str]]:
    """A one-round Swiss at tables of two with four people entered, due to start now."""
    _, made = _made(c, format={"kind": "swiss", "table_size": 2, "rounds": 1}, turn_deadline=3600)
    people = [account(c, f"{prefix}{i}") for i in range(4)]
    for person in people:
        c.tournaments.join(made["id"], person)
    start_now(c, made["id"])
    return made, people


def test_a_round_half_made_when_its_worker_died_is_made_once_by_the_next_claim(parts, monkeypatch):
    """The pairing's swap names every table's game; a job that dies after making the first of
    them (here: raises) leaves the step due now, and the next claim makes the others: one game a
    table, one pairing a round."""
    c, work = parts
    made, people = _started_with_four(c, "P")
    made_games: list[str] = []
    real_make = c.rounds._make

    def dies_after_one(doc, number, table):
        if made_games:
            raise RuntimeError("the worker died here")
        made_games.append(table["game"])
        real_make(doc, number, table)

    monkeypatch.setattr(c.rounds, "_make", dies_after_one)
    with pytest.raises(RuntimeError):
        c.rounds.advance(made["id"])
    half = c.tournaments.get(made["id"])["rounds"]
    assert len(half) == 1 and not half[0]["made"]
    assert c.client.zscore(keys.outbox_of(step_name(made["id"]))[1], step_name(made["id"])) <= time.time() * 1000
    monkeypatch.setattr(c.rounds, "_make", real_make)
    work.due()
    again = c.tournaments.get(made["id"])["rounds"]
    assert len(again) == 1 and again[0]["made"] and again[0]["tables"] == half[0]["tables"]
    for table in again[0]["tables"]:
        assert c.service.store.version(table["game"]) >= 1
        assert {c.accounts.seat_in(p, table["game"]) for p in table["players"]} == {0, 1}
    assert {p for t in again[0]["tables"] for p in t["players"]} == set(people)


def test_a_worker_killed_between_a_tables_game_and_its_seats_leaves_the_seats_to_the_next_claim(parts, monkeypatch):
    """The kill drill below, made certain: the job dies once the first table's game is made and
    before its first seat is kept in its person's account. The next claim finds the game made and
    keeps its seats (AccountService.seat_all): each person's game is in their account."""
    c, work = parts
    made, people = _started_with_four(c, "S")
    kept = Accounts.add_seat

    def dies(self, account, game, seat):
        raise RuntimeError("the worker died here")

    monkeypatch.setattr(Accounts, "add_seat", dies)
    with pytest.raises(RuntimeError):
        c.rounds.advance(made["id"])
    (half,) = c.tournaments.get(made["id"])["rounds"]
    first = half["tables"][0]
    assert c.service.store.version(first["game"]) and c.accounts.seat_in(first["players"][0], first["game"]) is None
    monkeypatch.setattr(Accounts, "add_seat", kept)
    work.due()
    (whole,) = c.tournaments.get(made["id"])["rounds"]
    assert whole["made"]
    for table in whole["tables"]:
        assert [c.accounts.seat_in(p, table["game"]) for p in table["players"]] == [0, 1]


def test_a_withdrawal_plays_the_game_out_by_the_clock_and_ends_the_pairings(parts):
    c, work = parts
    maker, made = _made(c, format={"kind": "swiss", "table_size": 2, "rounds": 2}, turn_deadline=3600)
    ann, ben = account(c, "Ann"), account(c, "Ben")
    for person in (ann, ben):
        c.tournaments.join(made["id"], person)
    start_now(c, made["id"])
    work.due()
    (table,) = c.tournaments.get(made["id"])["rounds"][0]["tables"]
    assert c.tournaments.next_game(ann) == [{"tournament": made["id"], "round": 1, "game": table["game"]}]
    with pytest.raises(NotEntered):
        c.tournaments.withdraw(made["id"], maker)  # not in it: nobody withdraws another
    c.tournaments.withdraw(made["id"], ann)
    work.drain()
    found = c.tournaments.get(made["id"])
    assert c.service.state(table["game"]).finished
    assert found["rounds"][0]["tables"][0]["places"] is not None
    assert found["status"] == "finished", "one player left: no second round"
    assert [e["withdrawn"] for e in found["entrants"]] == [True, False]
    assert c.tournaments.next_game(ann) == []


def test_games_unfinished_at_the_rounds_deadline_are_played_out_and_no_shows_withdrawn_after_two(parts):
    c, work = parts
    maker, made = _made(c, format={"kind": "swiss", "table_size": 2, "rounds": 3}, turn_deadline=3600)
    ann, ben = account(c, "Ann"), account(c, "Ben")
    for person in (ann, ben):
        c.tournaments.join(made["id"], person)
    start_now(c, made["id"])
    for number in (1, 2):
        work.due()
        raw, doc = c.tournaments.document(made["id"])
        rounds = [*doc["rounds"][:-1], {**doc["rounds"][-1], "deadline": int(time.time() * 1000) - 1}]
        assert c.tournaments.documents.swap(raw, {**doc, "rounds": rounds})  # as time would
        work.due()
        found = c.tournaments.get(made["id"])
        assert found["rounds"][number - 1]["tables"][0]["no_shows"] == [ann, ben]
        assert [e["no_shows"] for e in found["entrants"]] == [number, number]
    assert found["status"] == "finished" and len(found["rounds"]) == 2
    assert all(e["withdrawn"] for e in found["entrants"])
    assert [line["absences"] for line in found["standings"]] == [2, 2]


def _each_seat_moves_once(c, game: str) -> None:
    """Each seat of the game plays one turn of its own (ends it), as a person at the table would."""
    for _ in range(len(c.service.settings(game)["seats"])):
        state = c.service.state(game)
        seat = state.turn.seat
        c.service.submit(game, EndTurn(seat), expected=state.version, key=f"own-{state.version}")


@pytest.mark.slow
def test_a_swiss_of_forty_people_and_bot_accounts_is_played_to_its_end(parts_on_redis):
    """Slow (about 15 s): 40 entrants, ten of them bot accounts, three rounds at tables of
    four. In each round everyone plays a turn of their own, then the round's deadline passes and
    its games are played out by the clock (as late turns are), which starts the next round."""
    c, work = parts_on_redis
    maker, made = _made(c, format={"kind": "swiss", "table_size": 4, "rounds": 3}, max_players=40, min_players=4,
                        turn_deadline=86400)  # fmt: skip
    entrants = [account(c, f"P{i}") for i in range(40)]
    for bot in entrants[:10]:
        BotAccounts(c.store).convert(bot, 0, [], [])
    for person in entrants:
        c.tournaments.join(made["id"], person)
    start_now(c, made["id"])
    work.due()
    for number in (1, 2, 3):
        raw, doc = c.tournaments.document(made["id"])
        assert len(doc["rounds"]) == number and len(doc["rounds"][-1]["tables"]) == 10
        for table in doc["rounds"][-1]["tables"]:
            _each_seat_moves_once(c, table["game"])
        rounds = [*doc["rounds"][:-1], {**doc["rounds"][-1], "deadline": int(time.time() * 1000) - 1}]
        assert c.tournaments.documents.swap(raw, {**doc, "rounds": rounds})  # as time would
        work.due()
    found = c.tournaments.get(made["id"])
    assert found["status"] == "finished" and len(found["rounds"]) == 3
    assert not any(e["withdrawn"] or e["no_shows"] for e in found["entrants"])
    assert sorted(line["games"] for line in found["standings"]) == [3] * 40
    assert sum(line["points"] for line in found["standings"]) == 3 * 10 * (3 + 2 + 1 + 0)
    met = [frozenset(t["players"]) for r in found["rounds"] for t in r["tables"]]
    assert len({pair for table in met for pair in combinations(sorted(table), 2)}) == 3 * 10 * 6, "no one met twice"


@pytest.mark.slow
def test_a_worker_killed_in_the_middle_of_a_rounds_making_leaves_it_made_once(redis_url, tmp_path, monkeypatch):
    """Slow (about 10 s): a real worker starts the tournament, pairs its first round and pauses
    after making the round's first game (TOURNAMENT_PAUSE_MS); it is SIGKILLed there, with its
    horse. The round is paired once, half made; a new worker makes the rest, and every table has
    its one game with its players seated as the pairing said."""
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")
    c = build(url=redis_url)  # this process hands nothing on: the workers' dispatcher does
    maker, made = _made(c, format={"kind": "swiss", "table_size": 2, "rounds": 1}, turn_deadline=3600)
    people = [account(c, f"K{i}") for i in range(6)]
    for person in people:
        c.tournaments.join(made["id"], person)
    workers = Workers(redis_url, f"tournament-{made['id'][:8]}", logs=tmp_path)
    try:
        pausing = workers.start(TOURNAMENT_PAUSE_MS="60000")
        start_now(c, made["id"])
        first = game_id(made["id"], 1, 0)
        wait_until(lambda: c.service.store.version(first), 30, "the round's first game")
        workers.kill_with_horse(pausing)
        (half,) = c.tournaments.get(made["id"])["rounds"]
        assert not half["made"] and [bool(c.service.store.version(t["game"])) for t in half["tables"]] == [
            True,
            False,
            False,
        ]
        workers.start()
        wait_until(lambda: c.tournaments.get(made["id"])["rounds"][0]["made"], 40, "the round made by the next worker")
    finally:
        workers.stop_all()
    (whole,) = c.tournaments.get(made["id"])["rounds"]
    assert whole["tables"] == half["tables"], "paired once"
    for table in whole["tables"]:
        assert [c.accounts.seat_in(p, table["game"]) for p in table["players"]] == [0, 1]
        assert [e.actor for e in c.service.store.read(table["game"])][:1] == ["system"]
        assert c.service.settings(table["game"])["origin"] == {"tournament": made["id"], "round": 1}


def test_each_persons_next_game_is_on_their_stream_and_their_turn_alerted(parts):
    """A round's game is a game.started on each of its people's streams, naming the tournament and
    the round; the one whose turn it is gets the turn alert any game's turn writes."""
    c, work = parts
    maker, made = _made(c, turn_deadline=3600)
    ann, ben = account(c, "Ann"), account(c, "Ben")
    for person in (ann, ben):
        c.tournaments.join(made["id"], person)
    start_now(c, made["id"])
    work.due()
    (table,) = c.tournaments.get(made["id"])["rounds"][0]["tables"]
    for person in (ann, ben):
        started = [e.document() for e in c.person_streams.read(person, 0, 50) if e.type == "game.started"]
        assert [(e["game"], e["data"]["tournament"], e["data"]["round"]) for e in started] == [
            (table["game"], made["id"], 1)
        ]
    turn = c.service.state(table["game"]).turn
    alerted = c.store.outbox_entry(f"al:{table['game']}:{turn.seat}")
    assert alerted is not None and json.loads(alerted[0])["account"] == table["players"][turn.seat]


def _paired_before_its_games(c, monkeypatch) -> tuple[str, str]:
    """A running one-round tournament of Ann and Ben whose step died after pairing them, before
    their game was made: the tournament's id and Ann's account."""
    maker, made = _made(c, format={"kind": "swiss", "table_size": 2, "rounds": 1}, turn_deadline=3600)
    ann, ben = account(c, "Ann"), account(c, "Ben")
    for person in (ann, ben):
        c.tournaments.join(made["id"], person)
    start_now(c, made["id"])
    with monkeypatch.context() as patched:
        patched.setattr(c.rounds, "_make", lambda *_: (_ for _ in ()).throw(RuntimeError("died before the games")))
        with pytest.raises(RuntimeError):
            c.rounds.advance(made["id"])
    return made["id"], ann


def test_a_withdrawal_while_the_round_is_being_made_still_plays_that_game_out(parts, monkeypatch):
    c, work = parts
    made, ann = _paired_before_its_games(c, monkeypatch)
    c.tournaments.withdraw(made, ann)  # paired, its game not made yet
    work.due()
    found = c.tournaments.get(made)
    (table,) = found["rounds"][0]["tables"]
    assert c.service.state(table["game"]).finished and table["places"] is not None
    assert found["status"] == "finished"


def test_a_withdrawal_that_races_the_round_being_made_plays_the_new_game_out(parts, monkeypatch):
    """The withdrawal reads the round unmade; the step makes its games before the withdrawal is
    written (the swap then fails and is tried again): the new game is asked to end all the same.
    Checked to fail when the games are looked for only in the first read."""
    c, work = parts
    made, ann = _paired_before_its_games(c, monkeypatch)
    swap = c.tournaments.documents.swap

    def round_made_first(raw, doc):
        monkeypatch.setattr(c.tournaments.documents, "swap", swap)
        c.rounds.advance(made)  # the step, between the withdrawal's read and its write
        return swap(raw, doc)

    monkeypatch.setattr(c.tournaments.documents, "swap", round_made_first)
    c.tournaments.withdraw(made, ann)
    (table,) = c.tournaments.get(made)["rounds"][0]["tables"]
    assert table["game"] and c.store.outbox_entry(end_entry_name(table["game"])) is not None
    work.due()
    assert c.service.state(table["game"]).finished


def _play_round_by_the_clock(c, work, tournament: str) -> None:
    """Each seat of the round's games plays a turn of its own; then the round's deadline passes."""
    raw, doc = c.tournaments.document(tournament)
    for table in doc["rounds"][-1]["tables"]:
        if table["places"] is None:  # (one a withdrawal ended is over)
            _each_seat_moves_once(c, table["game"])
    rounds = [*doc["rounds"][:-1], {**doc["rounds"][-1], "deadline": int(time.time() * 1000) - 1}]
    assert c.tournaments.documents.swap(raw, {**doc, "rounds": rounds})  # as time would
    work.due()


@pytest.mark.slow
def test_a_round_robin_plays_its_schedule_and_a_withdrawn_players_partner_has_a_bye(parts):
    """Slow (about 3 s a store): four people play its three rounds, each game played out by the clock."""
    c, work = parts
    maker, made = _made(
        c, format={"kind": "round_robin", "table_size": 2}, turn_deadline=3600, min_players=4, max_players=4
    )
    people = [account(c, f"R{i}") for i in range(4)]
    for person in people:
        c.tournaments.join(made["id"], person)
    start_now(c, made["id"])
    work.due()
    _play_round_by_the_clock(c, work, made["id"])
    c.tournaments.withdraw(made["id"], people[0])  # in round 2: that game is played out by the clock
    work.drain()
    for _ in range(2):
        _play_round_by_the_clock(c, work, made["id"])
    found = c.tournaments.get(made["id"])
    assert found["status"] == "finished" and [len(r["tables"]) for r in found["rounds"]] == [2, 2, 1]
    assert [len(r["byes"]) for r in found["rounds"]] == [0, 0, 1], "round 3: the withdrawn player's partner"
    assert len({frozenset(t["players"]) for r in found["rounds"] for t in r["tables"]}) == 5
    assert all(people[0] not in t["players"] for t in found["rounds"][2]["tables"])


def _tournament_news(c, person: str) -> list[dict]:
    """The person's tournament news, oldest first (application/person_stream/news.py)."""
    return [e.document() for e in c.person_streams.read(person, 0, 500) if e.type.startswith("tournament.")]


def _past_the_deadline(c, work, tournament: str) -> None:
    """The round's deadline passes (as time would): its unfinished games are played out by the clock."""
    raw, doc = c.tournaments.document(tournament)
    rounds = [*doc["rounds"][:-1], {**doc["rounds"][-1], "deadline": int(time.time() * 1000) - 1}]
    assert c.tournaments.documents.swap(raw, {**doc, "rounds": rounds})
    work.due()


def _odd_swiss(c, prefix: str) -> tuple[str, dict, list[str]]:
    """A one-round Swiss at tables of two of two people and a bot account, started: its maker (not
    entered), the tournament and its entrants."""
    maker, made = _made(c, format={"kind": "swiss", "table_size": 2, "rounds": 1}, turn_deadline=3600)
    people = [account(c, f"{prefix}{i}") for i in range(3)]
    BotAccounts(c.store).convert(people[2], 0, [], [])  # told like a person: it has an account
    for person in people:
        c.tournaments.join(made["id"], person)
    start_now(c, made["id"])
    return maker, made, people


def test_a_bye_and_the_finish_are_told_to_each_entrant_once_and_to_nobody_else(parts):
    """Three entrants at tables of two: one sits the round out, and hears it (no game tells them);
    at the end each entrant hears their place in the final standings, once. The tournament's
    maker, not entered, hears nothing."""
    c, work = parts
    maker, made, people = _odd_swiss(c, "B")
    work.due()
    (round_,) = c.tournaments.get(made["id"])["rounds"]
    (bye,) = round_["byes"]
    for person in people:
        told = [(e["type"], e["game"], e["data"]["round"]) for e in _tournament_news(c, person)]
        assert told == ([("tournament.bye", made["id"], 1)] if person == bye else [])
    _past_the_deadline(c, work, made["id"])
    found = c.tournaments.get(made["id"])
    assert found["status"] == "finished"
    place = {line["player"]: line["place"] for line in found["standings"]}
    for person in people:
        finished = [e for e in _tournament_news(c, person) if e["type"] == "tournament.finished"]
        assert [(e["game"], e["data"]) for e in finished] == [
            (made["id"], {"tournament": made["id"], "name": made["name"], "round": None, "reason": None,
                          "place": place[person]})
        ]  # fmt: skip
    assert _tournament_news(c, maker) == []


def test_a_worker_killed_while_telling_the_finish_leaves_it_to_the_next_claim_told_once(parts, monkeypatch):
    """The swap that finishes the tournament keeps its step due until its people are told: a job
    that dies after writing the first person's news (here: raises) leaves the rest to the next
    claim, and nobody hears it twice."""
    c, work = parts
    _, made, people = _odd_swiss(c, "K")
    work.due()
    real_add = c.service.outbox.add
    added: list[str] = []

    def dies_after_one(name, payload, due_ms):
        if ":finished:" in name:
            if added:
                raise RuntimeError("the worker died here")
            added.append(name)
        return real_add(name, payload, due_ms)

    monkeypatch.setattr(c.service.outbox, "add", dies_after_one)
    with pytest.raises(RuntimeError):
        _past_the_deadline(c, work, made["id"])
    assert c.tournaments.get(made["id"])["status"] == "finished" and len(added) == 1
    monkeypatch.setattr(c.service.outbox, "add", real_add)
    work.due()
    for person in people:
        assert [e["type"] for e in _tournament_news(c, person) if e["type"] == "tournament.finished"] == [
            "tournament.finished"
        ]
