"""Open games, rematches and ratings through the API (application/lobby/open_games.py, rematches.py,
ratings.py): listed until full, joined once per person, started when full, closed when late or
cancelled; rated games rate every seat from the final order, once, with openskill's numbers."""

from __future__ import annotations

import json
import time

import pytest
from openskill.models import PlackettLuce

from application.lobby import open_games as tables
from domain.state import EndReason
from events import keys
from tests.support.lobby import account_of, auth, finished_as, open_game, people, played_out_from_the_lobby
from workers.rating_jobs import rate_now
from workers.turn_jobs import play

MODEL = PlackettLuce()


def test_an_open_game_is_listed_until_full_then_starts_in_every_players_games(api):
    ada, bo, cy = people(api, "ada", "bo", "cy")
    table = open_game(api, ada, players=3, edition="cmon", expansion=True)
    open_game(api, bo, players=2, edition="classic")
    listed = api.get("/open-games?players=3").json["open_games"]
    assert [t["id"] for t in listed] == [table["id"]] and listed[0]["free"] == 2
    assert [t["options"]["edition"] for t in api.get("/open-games?edition=classic").json["open_games"]] == ["classic"]
    version = api.get("/open-games").headers["ETag"]
    assert api.get("/open-games", headers={"If-None-Match": version}).status_code == 304

    half = api.post(f"/open-games/{table['id']}/join", headers=auth(bo)).json
    assert half["status"] == "open" and half["free"] == 1 and half["game"] is None
    assert api.get("/open-games", headers={"If-None-Match": version}).status_code == 200  # the lobby changed
    full = api.post(f"/open-games/{table['id']}/join", headers=auth(cy)).json
    assert full["status"] == "started" and full["free"] == 0 and full["game"]
    assert table["id"] not in [t["id"] for t in api.get("/open-games").json["open_games"]]
    game = full["game"]
    for token in (ada, bo, cy):
        mine = api.get("/me/games", headers=auth(token)).json["games"]
        assert [g["game"] for g in mine] == [game]
    view = api.get(f"/games/{game}", headers=auth(bo)).json
    names = [api.get("/me", headers=auth(token)).json["display_name"] for token in (ada, bo, cy)]
    assert view["settings"]["rated"] and [s["name"] for s in view["seats"]] == names
    assert view["options"] == {"players": 3, "edition": "cmon", "expansion": True, "layout": "standard"}
    assert view["viewer"] == 1  # bo's token reaches bo's seat


def test_nobody_joins_twice_a_full_or_cancelled_game_or_outside_the_rating_range(api):
    ada, bo, cy = people(api, "ada", "bo", "cy")
    table = open_game(api, ada)
    twice = api.post(f"/open-games/{table['id']}/join", headers=auth(ada))
    assert twice.status_code == 409 and twice.json["code"] == "already_seated"
    api.post(f"/open-games/{table['id']}/join", headers=auth(bo))
    late = api.post(f"/open-games/{table['id']}/join", headers=auth(cy))
    assert late.status_code == 409 and late.json["code"] == "open_game_closed"
    other = open_game(api, ada)
    assert api.delete(f"/open-games/{other['id']}", headers=auth(bo)).status_code == 403  # not bo's to cancel
    cancelled = api.delete(f"/open-games/{other['id']}", headers=auth(ada)).json
    assert cancelled["status"] == "cancelled" and cancelled["cancelled"] == "by its creator"
    refused = api.post(f"/open-games/{other['id']}/join", headers=auth(cy))
    assert refused.status_code == 409 and refused.json["code"] == "open_game_closed"
    narrow = open_game(api, ada, rating_range={"min": -1, "max": 1})
    api.app.extensions["bluemoon"].client.hset(keys.rating(account_of(api, cy)), mapping={"mu": 40, "sigma": 2})
    outside = api.post(f"/open-games/{narrow['id']}/join", headers=auth(cy))
    assert outside.status_code == 409 and outside.json["code"] == "rating_out_of_range"
    assert api.get(f"/open-games/{narrow['id']}").json["free"] == 1  # nothing changed


def test_bad_open_games_are_refused_with_the_field_named_and_nothing_listed(api):
    (ada,) = people(api, "ada")
    for body, field in [
        ({"players": 2, "rating_range": {"min": 5, "max": -5}}, "rating_range"),
        ({"players": 5}, "players"),
        ({"players": 3, "bots": ["greedy", "greedy"]}, "bots"),
        ({"players": 2, "edition": "classic", "expansion": True}, "expansion"),
    ]:
        answer = api.post("/open-games", json=body, headers=auth(ada))
        assert answer.status_code == 422 and field in answer.json["errors"], (body, answer.json)
    assert api.get("/open-games").json["open_games"] == []
    assert api.post("/open-games", json={"players": 2}).status_code == 401


def test_a_game_not_filled_in_time_is_cancelled_and_its_seats_released(api, monkeypatch):
    ada, bo = people(api, "ada", "bo")
    monkeypatch.setattr(tables, "OPEN_GAME_SECONDS", 1)
    table = open_game(api, ada)
    time.sleep(1.1)
    assert api.get("/open-games").json["open_games"] == []
    closed = api.get(f"/open-games/{table['id']}").json
    assert closed["status"] == "cancelled" and closed["cancelled"] == "not filled in time"
    late = api.post(f"/open-games/{table['id']}/join", headers=auth(bo))
    assert late.status_code == 409 and late.json["code"] == "open_game_closed"
    assert api.get("/me/games", headers=auth(ada)).json["games"] == []


def test_a_join_that_lists_its_table_after_the_last_seat_started_it_leaves_no_table_in_the_lobby(api, monkeypatch):
    """Bo's join swaps the document, then Cy and Di fill the table (started, unlisted) before
    Bo's join writes the lobby: a listing of Bo's half-full document would stay for good, every
    join on it refused. Checked to fail with the join listing what it wrote."""
    ada, bo, cy, di = people(api, "ada", "bo", "cy", "di")
    table = open_game(api, ada, players=4)["id"]
    lobby = api.app.extensions["bluemoon"].tables
    swapped, others = lobby._swapped, [account_of(api, late) for late in (cy, di)]

    def others_fill_it_in_between(table_id, before, after):
        done = swapped(table_id, before, after)
        monkeypatch.setattr(lobby, "_swapped", swapped)
        for late in others:
            lobby.join(table, late)
        return done

    monkeypatch.setattr(lobby, "_swapped", others_fill_it_in_between)
    seated = api.post(f"/open-games/{table}/join", headers=auth(bo)).json
    assert seated["status"] == "open" and seated["free"] == 2  # Bo's answer: the document it wrote
    assert api.get(f"/open-games/{table}").json["status"] == "started"
    assert api.get("/open-games").json["open_games"] == []
    client = api.app.extensions["bluemoon"].store.client
    assert client.zscore(keys.LOBBY_OPEN, table) is None and not client.hexists(keys.LOBBY_SUMMARIES, table)


def test_a_started_table_left_listed_is_unlisted_once_its_time_has_passed(api):
    """A listing left by a stale write before the fix above leaves the lobby when its time is up
    (its time moved rather than waited for: a loaded machine takes the seconds it likes)."""
    ada, bo = people(api, "ada", "bo")
    table = open_game(api, ada)
    client = api.app.extensions["bluemoon"].store.client
    listed = client.hget(keys.LOBBY_SUMMARIES, table["id"])
    api.post(f"/open-games/{table['id']}/join", headers=auth(bo))
    client.hset(keys.LOBBY_SUMMARIES, table["id"], listed)  # the stale write
    client.zadd(keys.LOBBY_OPEN, {table["id"]: int(time.time() * 1000) + 600_000})
    assert [t["id"] for t in api.get("/open-games").json["open_games"]] == [table["id"]]
    client.zadd(keys.LOBBY_OPEN, {table["id"]: int(time.time() * 1000) - 1})  # its time is up
    assert api.get("/open-games").json["open_games"] == []
    assert client.zscore(keys.LOBBY_OPEN, table["id"]) is None


def _rated(api, table_seats: list[str], bots: tuple[str, ...], reason, winners, points):
    """A rated game from the lobby with these people (and bots), ended with ``points``; rated
    by the rating job as the worker would run it. Returns the game and the recorded ratings."""
    table = open_game(api, table_seats[0], players=len(table_seats) + len(bots), bots=list(bots))
    for token in table_seats[1:]:
        started = api.post(f"/open-games/{table['id']}/join", headers=auth(token)).json
    components = api.app.extensions["bluemoon"]
    game = started["game"]
    state = finished_as(api, game, reason, winners, points)
    recorded = components.ratings.rate_game(game, state, components.service.seats(game))
    return game, recorded


@pytest.mark.parametrize(
    "reason, winners, points",
    [
        (EndReason.OFFERINGS, (1,), [(3, 9), (6, 2)]),  # 2 players
        (EndReason.REBUILT, (0,), [(5, 12), (4, 20), (4, 20)]),  # 3 players, the losers tied
        (EndReason.STALEMATE, (2, 3), [(1, 3), (2, 0), (4, 7), (4, 7)]),  # 4 players, a shared win
        (EndReason.DRAW, (), [(0, 0), (1, 5), (2, 2), (0, 9)]),  # a draw: one shared place
    ],
    ids=["2-players", "3-players-tied-losers", "4-players-shared-win", "4-players-draw"],
)
def test_ratings_follow_the_final_order_with_openskills_own_numbers(api, reason, winners, points):
    tokens = people(api, *[f"p{i}" for i in range(len(points))])
    game, recorded = _rated(api, tokens, (), reason, winners, points)
    expected_places = {
        EndReason.OFFERINGS: [2, 1],
        EndReason.REBUILT: [1, 2, 2],
        EndReason.STALEMATE: [4, 3, 1, 1],
        EndReason.DRAW: [1, 1, 1, 1],
    }[reason]
    assert recorded["places"] == expected_places
    fresh = [[MODEL.rating()] for _ in tokens]
    oracle = MODEL.rate(fresh, ranks=expected_places)
    for token, team in zip(tokens, oracle):
        mine = api.get("/me/rating", headers=auth(token)).json
        assert mine["mu"] == pytest.approx(team[0].mu, abs=1e-4)
        assert mine["sigma"] == pytest.approx(team[0].sigma, abs=1e-4)
        assert mine["rating"] == pytest.approx(team[0].ordinal(), abs=0.01) and mine["games"] == 1
        assert [h["game"] for h in mine["history"]] == [game]
    board = api.get("/leaderboard").json["players"]
    assert [p["rating"] for p in board] == sorted((p["rating"] for p in board), reverse=True) and len(board) == len(
        tokens
    )


def test_a_bot_seat_rates_its_level_and_a_game_is_rated_only_once(api):
    ada, bo = people(api, "ada", "bo")
    components = api.app.extensions["bluemoon"]
    before = components.ratings.current("bot:greedy")
    game, recorded = _rated(api, [ada, bo], ("greedy",), EndReason.OFFERINGS, (2,), [(1, 1), (2, 2), (6, 0)])
    state = finished_as(api, game, EndReason.OFFERINGS, (2,), [(1, 1), (2, 2), (6, 0)])
    again = components.ratings.rate_game(game, state, components.service.seats(game))
    assert again == recorded  # the recorded result, not a second rating
    mine = api.get("/me/rating", headers=auth(ada)).json
    assert mine["games"] == 1 and len(mine["history"]) == 1
    bot = api.get("/players/bot:greedy/rating").json
    oracle = MODEL.rate(
        [[MODEL.rating()], [MODEL.rating()], [MODEL.create_rating([before.mu, before.sigma])]], ranks=[3, 2, 1]
    )
    assert bot["mu"] == pytest.approx(oracle[2][0].mu, abs=1e-4) and bot["games"] == before.games + 1
    assert "greedy" in [b["player"][4:] for b in api.get("/leaderboard").json["bots"]]


def test_a_rated_game_is_rated_by_the_outbox_entry_its_last_append_wrote(api):
    """Played to the end through the API (the people end their turns, the bot builds); the
    append that ends it writes the rating's outbox entry, and its job rates the game once."""
    ada, bo = people(api, "ada", "bo")
    game, claims = played_out_from_the_lobby(api, ada, bo)
    components = api.app.extensions["bluemoon"]
    assert len(claims) == 1 and claims[0].name == f"rt:{game}"
    assert rate_now(components.service, components.ratings, claims[0].name, claims[0].payload) == "rated"
    assert rate_now(components.service, components.ratings, claims[0].name, claims[0].payload) == "rated"
    assert components.client.hget(keys.outbox_of(claims[0].name)[0], claims[0].name) is None  # done
    for token in (ada, bo):
        assert api.get("/me/rating", headers=auth(token)).json["games"] == 1


def test_a_seat_played_by_the_deadline_bot_is_still_rated_as_its_person(api):
    ada, bo = people(api, "ada", "bo")
    table = open_game(api, ada, turn_deadline=3600, deadline_level="greedy")
    game = api.post(f"/open-games/{table['id']}/join", headers=auth(bo)).json["game"]
    service = api.app.extensions["bluemoon"].service
    for _ in range(400):  # both people are away: every turn is the deadline's bot's
        state = service.state(game)
        if state.finished:
            break
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")
    state = service.state(game)
    assert state.finished
    components = api.app.extensions["bluemoon"]
    recorded = components.ratings.rate_game(game, state, service.seats(game))
    assert {s["player"] for s in recorded["seats"]} == {account_of(api, ada), account_of(api, bo)}
    seeded = api.app.extensions["bluemoon"].ratings.current("bot:greedy")
    assert api.get("/players/bot:greedy/rating").json["games"] == seeded.games  # the bot only stood in
    assert api.get("/players/bot:greedy/rating").json["history"] == []


def test_a_cancelled_or_unrated_game_changes_no_rating(api):
    ada, bo = people(api, "ada", "bo")
    table = open_game(api, ada)
    api.delete(f"/open-games/{table['id']}", headers=auth(ada))
    unrated = open_game(api, ada, rated=False)
    game = api.post(f"/open-games/{unrated['id']}/join", headers=auth(bo)).json["game"]
    components = api.app.extensions["bluemoon"]
    assert not api.get(f"/games/{game}").json["settings"]["rated"]
    claims = []
    components.service.dispatcher.handoff.on["rating"] = claims.append
    service = components.service
    while not service.state(game).finished:
        state = service.state(game)
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")
    assert claims == []
    assert components.client.keys("{rating:*") == [] and api.get("/leaderboard").json["players"] == []


def test_a_rematch_starts_when_every_person_accepts_with_the_same_seats(api):
    ada, bo = people(api, "ada", "bo")
    table = open_game(api, ada, players=3, bots=["random"], rated=False)
    game = api.post(f"/open-games/{table['id']}/join", headers=auth(bo)).json["game"]
    early = api.post(f"/games/{game}/rematch", headers=auth(ada))
    assert early.status_code == 409 and early.json["code"] == "not_finished"
    service = api.app.extensions["bluemoon"].service
    while not service.state(game).finished:
        state = service.state(game)
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")
    offered = api.post(f"/games/{game}/rematch", headers=auth(ada)).json
    assert offered == {"accepted": [0], "waiting_for": [1], "game": None, "invites": {}, "token": None}
    again = api.post(f"/games/{game}/rematch", headers=auth(ada))
    assert again.status_code == 409 and again.json["code"] == "already_accepted"
    accepted = api.post(f"/games/{game}/rematch", headers=auth(bo)).json
    new = accepted["game"]
    assert new and accepted["waiting_for"] == [] and api.get(f"/games/{game}/rematch").json["game"] == new
    old_view, new_view = api.get(f"/games/{game}").json, api.get(f"/games/{new}", headers=auth(bo)).json
    assert [(s["kind"], s["name"], s["level"]) for s in new_view["seats"]] == [
        (s["kind"], s["name"], s["level"]) for s in old_view["seats"]
    ]
    assert new_view["options"] == old_view["options"] and new_view["viewer"] == 1
    assert new_view["status"] == "active"


def test_a_rematch_of_a_game_played_with_seat_tokens_gives_each_seat_its_new_token(api):
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    game, tokens = created["game"], [s["token"] for s in created["seats"]]
    service = api.app.extensions["bluemoon"].service
    while not service.state(game).finished:
        state = service.state(game)
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")
    first = api.post(f"/games/{game}/rematch", headers=auth(tokens[1])).json
    second = api.post(f"/games/{game}/rematch", headers=auth(tokens[0])).json
    new = second["game"]
    assert first["token"] and second["token"] and first["token"] != second["token"]
    assert api.get(f"/games/{new}", headers=auth(first["token"])).json["viewer"] == 1
    assert api.get(f"/games/{new}", headers=auth(second["token"])).json["viewer"] == 0
    assert api.get(f"/games/{new}", headers=auth(tokens[0])).status_code == 403  # the old token is the old game's
    nobody = api.post(f"/games/{game}/rematch", headers=auth("not-a-token"))
    assert nobody.status_code == 403 and json.loads(nobody.data)["code"] == "forbidden"


def test_games_are_listed_by_their_players_names_and_a_join_renames_the_seat(api):
    created = api.post(
        "/games",
        json={"seats": [{"kind": "human", "name": "Ada"}, {"kind": "open"}, {"kind": "bot", "level": "greedy"}]},
    ).json
    game = created["game"]
    listed = {g["game"]: g for g in api.get("/games").json["games"]}
    assert listed[game]["names"] == ["Ada", "open seat", "greedy bot"]
    api.post(created["seats"][1]["invite_url"], json={"invite": created["seats"][1]["invite"], "name": "Bo"})
    listed = {g["game"]: g for g in api.get("/games").json["games"]}
    assert listed[game]["names"] == ["Ada", "Bo", "greedy bot"]  # before anyone has moved


def test_an_open_game_with_a_time_bank_starts_with_it_and_its_rematch_keeps_it(api):
    ada, bo = people(api, "ada", "bo")
    clock = {"bank_seconds": 259_200, "increment_seconds": 86_400, "cap_seconds": 432_000}
    both = api.post("/open-games", json={"players": 2, "clock": clock, "turn_deadline": 3600}, headers=auth(ada))
    assert both.status_code == 422 and "clock" in both.json["errors"]
    table = open_game(api, ada, clock=clock, rated=False)
    assert table["clock"] == clock and table["deadline_level"] == "pass"
    game = api.post(f"/open-games/{table['id']}/join", headers=auth(bo)).json["game"]
    view = api.get(f"/games/{game}", headers=auth(bo)).json
    assert view["settings"]["clock"] == clock
    waiting = next(c for c in view["clocks"] if c["seat"] != view["turn"]["seat"])
    running = next(c for c in view["clocks"] if c["seat"] == view["turn"]["seat"])
    assert waiting["bank_ms"] == 259_200_000 and 259_100_000 < running["bank_ms"] <= 259_200_000  # it runs down
    assert view["turn"]["deadline"] is not None  # the first turn's deadline: its seat's bank
    service = api.app.extensions["bluemoon"].service
    while not service.state(game).finished:
        state = service.state(game)
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")
    api.post(f"/games/{game}/rematch", headers=auth(ada))
    new = api.post(f"/games/{game}/rematch", headers=auth(bo)).json["game"]
    assert api.get(f"/games/{new}").json["settings"]["clock"] == clock
