"""Every maker of a game under a chosen id (an open game filled, an accepted challenge, a
rematch; a tournament's round in tests/integration/test_tournaments.py) may be killed after the
game is made and before its seats are kept in the people's accounts. The next call that finds the
game made keeps the seats (AccountService.seat_all): the game is in each person's games, once."""

from __future__ import annotations

import pytest

from application.accounts.account_service import Accounts
from tests.support.accounts import personal_token
from tests.support.challenges import challenge
from tests.support.lobby import account_of, auth, open_game, people
from workers.turn_jobs import play


class Killed(BaseException):
    """The maker's process dying: nothing above it catches it (a BaseException, as SIGKILL is)."""


class Kill:
    """Armed, the next seat kept kills the maker: its game is made, none of its seats are kept."""

    def __init__(self) -> None:
        self.armed = False
        self.games: list[str] = []


@pytest.fixture
def kill(monkeypatch) -> Kill:
    kept, armed = Accounts.add_seat, Kill()

    def add_seat(self, account, game, seat):
        if armed.armed:
            armed.armed = False
            armed.games.append(game)
            raise Killed
        return kept(self, account, game, seat)

    monkeypatch.setattr(Accounts, "add_seat", add_seat)
    return armed


def _games(api, token: str) -> list[str]:
    return [g["game"] for g in api.get("/me/games", headers=auth(token)).json["games"]]


def test_an_open_game_filled_by_a_maker_that_died_is_in_both_persons_games_on_the_next_read(api, kill):
    ada, bo = people(api, "ada.kill", "bo.kill")
    table = open_game(api, ada, players=2, rated=False)
    kill.armed = True
    with pytest.raises(Killed):
        api.post(f"/open-games/{table['id']}/join", headers=auth(bo))
    (game,) = kill.games
    assert _games(api, ada) == [] and _games(api, bo) == [], "the kill left the game with no seat kept"
    assert api.get(f"/open-games/{table['id']}").json["game"] == game
    assert _games(api, ada) == [game] and _games(api, bo) == [game]


def test_an_accepted_challenge_whose_maker_died_is_in_both_persons_games_when_accepted_again(api, kill):
    ann, ben = people(api, "ann.kill", "ben.kill")
    sent = challenge(api, ann, account_of(api, ben), rated=False)
    kill.armed = True
    with pytest.raises(Killed):
        api.post(f"/challenges/{sent['id']}/accept", headers=auth(ben))
    (game,) = kill.games
    assert _games(api, ann) == [] and _games(api, ben) == []
    again = api.post(f"/challenges/{sent['id']}/accept", headers=auth(ben))
    assert again.status_code == 200 and again.json["game"] == game
    assert _games(api, ann) == [game] and _games(api, ben) == [game]


def test_a_rematch_whose_maker_died_is_in_the_persons_games_and_its_open_seats_invite_still_works(api, kill):
    ada = personal_token(api, "ada.rematch@example.com")
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "open"}]}, token=ada).json
    game = created["game"]
    service = api.app.extensions["bluemoon"].service
    while not service.state(game).finished:  # every turn the deadline's bot's
        state = service.state(game)
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")
    kill.armed = True
    with pytest.raises(Killed):
        api.post(f"/games/{game}/rematch", token=ada)
    (new,) = kill.games
    assert new not in _games(api, ada)
    status = api.get(f"/games/{game}/rematch", token=ada).json
    assert status["game"] == new and new in _games(api, ada)
    joined = api.post(f"/games/{new}/seats/1/join", json={"invite": status["invites"]["1"], "name": "Cy"})
    assert joined.status_code == 201, "the invite shown is the one the game was made with"
