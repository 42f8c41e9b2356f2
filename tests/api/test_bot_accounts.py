"""Bot accounts from the side of people and of whoever holds a bot's token
(application/accounts/bot_accounts.py): an account becomes one once, and only before it has a rated
game as a person; its token plays only with the ``bot`` scope beside ``play``, which a person's
token cannot hold; open games keep bot accounts out unless they let them in (rated ones do not,
unless asked), and a list can leave out the games bots sit at; a bot account is labelled wherever
its name shows, rated like anyone, and listed apart on the leaderboard."""

from __future__ import annotations

import pytest

from domain.state import EndReason
from events import keys
from tests.support.accounts import OWN, page_of
from tests.support.lobby import account_of, auth, finished_as, open_game, people
from workers.rating_jobs import rate_now


def bot_account(api, email: str = "robo@example.com", scopes: list[str] | None = None) -> str:
    """An account turned into a bot account on its page; a token of it (default scopes, else ``scopes``)."""
    page = page_of(api, email)
    became = page.post("/me/bot", headers=OWN)
    assert became.status_code == 200 and became.json["bot"] is True, became.json
    return made_token(page, scopes)


def made_token(page, scopes: list[str] | None = None) -> str:
    body = {"name": "the bot", **({"scopes": scopes} if scopes is not None else {})}
    made = page.post("/me/tokens", json=body, headers=OWN)
    assert made.status_code == 201, made.json
    return made.json["token"]


def refused(answer, status: int, code: str) -> dict:
    assert answer.status_code == status and answer.json["code"] == code, answer.json
    return answer.json


def test_an_account_becomes_a_bot_account_once_by_its_session_alone(api):
    page = page_of(api, "robo@example.com")
    person_token = made_token(page)
    assert page.get("/me").json["bot"] is False
    gone = keys.account_seats(page.get("/me").json["account"])
    api.app.extensions["bluemoon"].client.hset(gone, "a-game-no-longer-kept", 0)  # no rated game: no matter
    refused(api.post("/me/bot", headers=auth(person_token)), 403, "session_required")  # a program cannot do it
    assert page.get("/me").json["bot"] is False
    assert page.post("/me/bot", headers=OWN).json["bot"] is True
    refused(page.post("/me/bot", headers=OWN), 409, "already_bot_account")
    assert page.get("/me").json["bot"] is True and page.get("/auth/session").json["profile"]["bot"] is True
    made = page.post("/me/tokens", json={"name": "the bot"}, headers=OWN).json
    assert made["scopes"] == ["read", "play", "webhooks", "alerts", "bot"]  # a bot account's defaults hold `bot`


def test_an_account_with_a_rated_game_as_a_person_cannot_become_a_bot_account(api):
    ada, bo, cy = people(api, "ada", "bo", "cy")
    table = open_game(api, ada)
    game = api.post(f"/open-games/{table['id']}/join", headers=auth(bo)).json["game"]
    components = api.app.extensions["bluemoon"]
    playing = page_of(api, "ada@example.com")  # in a rated game not yet ended
    refused(playing.post("/me/bot", headers=OWN), 409, "played_as_person")
    state = finished_as(api, game, EndReason.OFFERINGS, (1,), [(3, 9), (6, 2)])
    components.ratings.rate_game(game, state, components.service.seats(game))
    played = page_of(api, "bo@example.com")  # a rated game played
    refused(played.post("/me/bot", headers=OWN), 409, "played_as_person")
    open_game(api, cy, rated=False)
    waiting = page_of(api, "cy@example.com")  # at an open game waiting for players
    refused(waiting.post("/me/bot", headers=OWN), 409, "played_as_person")
    for page in (playing, played, waiting):
        assert page.get("/me").json["bot"] is False  # nothing changed
    assert [p["player"] for p in api.get("/leaderboard").json["players"]] != []
    assert api.get("/leaderboard").json["bot_accounts"] == []


def test_a_bot_accounts_token_plays_only_with_the_bot_scope_and_a_persons_token_cannot_hold_it(api):
    page = page_of(api, "robo@example.com")
    before = made_token(page, ["read", "play"])  # made while the account was a person's
    assert page.post("/me/bot", headers=OWN).status_code == 200
    without_bot, without_play, bot = (made_token(page, s) for s in (["read", "play"], ["read", "bot"], ["play", "bot"]))
    for token in (before, without_bot):
        answer = api.post("/open-games", json={"players": 2}, headers=auth(token))
        assert refused(answer, 403, "insufficient_scope")["scope"] == "bot"
        assert answer.headers["WWW-Authenticate"] == 'Bearer error="insufficient_scope", scope="bot"'
        assert api.get("/me", headers=auth(token)).status_code == 200  # it still reads
    assert (
        refused(api.post("/open-games", json={"players": 2}, headers=auth(without_play)), 403, "insufficient_scope")[
            "scope"
        ]
        == "play"
    )
    assert api.get("/open-games").json["open_games"] == []  # nothing opened
    assert api.post("/open-games", json={"players": 2}, headers=auth(bot)).status_code == 201

    person = page_of(api, "ada@example.com")
    asked = person.post("/me/tokens", json={"name": "not a bot", "scopes": ["play", "bot"]}, headers=OWN)
    assert refused(asked, 422, "invalid_request")["errors"].keys() == {"scopes"}, asked.json
    assert person.get("/me/tokens", headers=OWN).json["tokens"] == []


def test_a_bot_account_joins_an_open_game_that_lets_it_in_and_is_refused_by_one_that_does_not(api):
    ada, bo = people(api, "ada", "bo")
    robo = bot_account(api)
    rated = open_game(api, ada)  # rated, bot accounts left out: kept out
    assert rated["bot_accounts"] is False
    refused(api.post(f"/open-games/{rated['id']}/join", headers=auth(robo)), 409, "bot_accounts_kept_out")
    assert api.get(f"/open-games/{rated['id']}").json == rated  # nothing changed
    assert api.post(f"/open-games/{rated['id']}/join", headers=auth(bo)).json["status"] == "started"  # a person's seat

    unrated = open_game(api, ada, rated=False)  # unrated, left out: let in
    asked = open_game(api, bo, bot_accounts=True)  # rated, let in when asked
    for table in (unrated, asked):
        assert table["bot_accounts"] is True
        joined = api.post(f"/open-games/{table['id']}/join", headers=auth(robo)).json
        assert joined["status"] == "started" and [s.get("account_bot") for s in joined["seats"]] == [None, True]
        seats = api.get(f"/games/{joined['game']}", headers=auth(robo)).json["seats"]
        assert [(s["kind"], s.get("account_bot")) for s in seats] == [("human", None), ("human", True)]


def test_people_can_leave_out_the_open_games_of_bot_accounts(api):
    (ada,) = people(api, "ada")
    robo = bot_account(api)
    mine, its = open_game(api, ada), open_game(api, robo, rated=False)
    assert its["seats"][0]["account_bot"] is True and "account_bot" not in mine["seats"][0]
    assert [t["id"] for t in api.get("/open-games").json["open_games"]] == [its["id"], mine["id"]]
    assert [t["id"] for t in api.get("/open-games?bot_accounts=false").json["open_games"]] == [mine["id"]]
    assert refused(api.get("/open-games?bot_accounts=maybe"), 422, "invalid_request")["errors"].keys() == {
        "bot_accounts"
    }


@pytest.mark.slow
def test_a_whole_rated_game_between_a_person_and_a_bot_account_over_the_api(api):
    """Slow (about 2.5 s): a whole game, command by command over the API. The bot account opens a rated game that lets bot accounts in (with one of the service's bot
    levels, which builds, so that the game ends soon) and plays its seat with its token, as the
    person does; the game ends and is rated: the bot account is listed apart from people."""
    (ada,) = people(api, "ada")
    robo = bot_account(api)
    table = open_game(api, robo, players=3, bots=["greedy"], bot_accounts=True)
    game = api.post(f"/open-games/{table['id']}/join", headers=auth(ada)).json["game"]
    components = api.app.extensions["bluemoon"]
    claims = []
    components.service.dispatcher.handoff.on["rating"] = claims.append
    by_seat = {0: robo, 1: ada}
    for _ in range(500):
        api.run_workers()
        view = api.get(f"/games/{game}", headers=auth(ada)).json
        if view["status"] == "finished":
            break
        end = {"type": "end_turn", "expected_version": view["version"]}
        played = api.post(f"/games/{game}/commands", json=end, headers=auth(by_seat[view["turn"]["seat"]]))
        assert played.status_code == 200, played.json
    assert view["status"] == "finished"
    assert [(s["kind"], s.get("account_bot")) for s in view["seats"]] == [
        ("human", True),
        ("human", None),
        ("bot", None),
    ]
    (claim,) = claims
    assert rate_now(components.service, components.ratings, claim.name, claim.payload) == "rated"
    bot_player, person = account_of(api, robo), account_of(api, ada)
    board = api.get("/leaderboard").json
    assert [(p["player"], p.get("bot")) for p in board["players"]] == [(person, None)]
    assert [(p["player"], p["bot"]) for p in board["bot_accounts"]] == [(bot_player, True)]
    assert all(b["bot"] for b in board["bots"])  # the service's own levels, as before
    rating = api.get(f"/players/{bot_player}/rating").json
    assert rating["bot"] is True and rating["games"] == 1 and [h["game"] for h in rating["history"]] == [game]
    assert components.client.zscore(keys.LEADERBOARD, bot_player) is None


def test_a_view_polled_with_its_etag_hears_that_a_seat_became_a_bot_accounts(api):
    """An account may become a bot account while it plays unrated games: their views say so at
    once, and a poll with the ETag it held is not told that nothing changed."""
    ada, robo = people(api, "ada", "robo")
    table = open_game(api, ada, rated=False)
    game = api.post(f"/open-games/{table['id']}/join", headers=auth(robo)).json["game"]
    before = api.get(f"/games/{game}", headers=auth(ada))
    assert [s.get("account_bot") for s in before.json["seats"]] == [None, None]
    assert page_of(api, "robo@example.com").post("/me/bot", headers=OWN).status_code == 200
    after = api.get(f"/games/{game}", headers={**auth(ada), "If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200 and [s.get("account_bot") for s in after.json["seats"]] == [None, True]
