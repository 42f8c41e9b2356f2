"""People over the API (issue 38 items 2, 4, 6): follow, mute and block by account, the friends
list with its people's current games, what a person allows, profiles, private notes, and the
refusals an attacker meets from the outside: a blocked person cannot follow nor join the open
games of whoever blocked them; a suspended account creates and joins nothing; no one reads
another's note."""

from __future__ import annotations

import pytest

from application.people.notes import MOST_NOTE_CHARACTERS
from tests.support.accounts import OWN, page_of
from tests.support.lobby import auth, open_game, people


def account(page) -> str:
    return page.get("/me").json["account"]


@pytest.fixture
def ada_and_bob(api):
    """Two people, each in their own browser (the page's session)."""
    return page_of(api, "ada-people@example.com"), page_of(api, "bob-people@example.com")


def test_a_follow_puts_the_person_on_the_friends_list_with_their_current_game_and_whose_turn(api, ada_and_bob):
    ada, bob = ada_and_bob
    bob.patch("/me", json={"display_name": "Bob"}, headers=OWN)
    seats = [{"kind": "human"}, {"kind": "bot", "level": "greedy"}]
    game = bob.post("/games", json={"seats": seats, "setup": {"first_player": 0}}, headers=OWN).json["game"]
    assert ada.put(f"/me/follows/{account(bob)}", headers=OWN).status_code == 204
    assert ada.put(f"/me/follows/{account(bob)}", headers=OWN).status_code == 204  # again: nothing new
    (friend,) = ada.get("/me/follows").json["friends"]
    assert friend["name"] == "Bob" and friend["player"] == account(bob)
    (current,) = friend["games"]
    assert current["game"] == game and current["watch"] == f"/play/{game}"
    assert current["their_turn"] is True and current["turn_name"] == "Bob"
    assert bob.get(f"/players/{account(bob)}").json["followers"] == 1
    assert ada.delete(f"/me/follows/{account(bob)}", headers=OWN).status_code == 204
    assert ada.get("/me/follows").json["friends"] == []


def test_the_friends_list_is_paged(api):
    ada = page_of(api, "ada-pages@example.com")
    others = [account(page_of(api, f"friend-{i}@example.com")) for i in range(3)]
    for other in others:
        ada.put(f"/me/follows/{other}", headers=OWN)
    first = ada.get("/me/follows?limit=2").json
    rest = ada.get(f"/me/follows?limit=2&after={first['next']}").json
    assert [f["player"] for f in first["friends"] + rest["friends"]] == others and rest["next"] is None


@pytest.mark.parametrize("relation", ["follows", "mutes", "blocks"])
def test_oneself_is_refused_naming_the_field_and_an_unknown_account_is_404(api, relation):
    ada = page_of(api, f"ada-self-{relation}@example.com")
    refused = ada.put(f"/me/{relation}/{account(ada)}", headers=OWN)
    assert refused.status_code == 400 and refused.json["field"] == "account", refused.json
    assert ada.put(f"/me/{relation}/no-such-account", headers=OWN).status_code == 404
    assert ada.get(f"/me/{relation}").json[{"follows": "friends"}.get(relation, "people")] == []


def test_a_blocked_person_cannot_follow_and_is_never_told_they_are_blocked(api, ada_and_bob):
    ada, mallory = ada_and_bob
    mallory.put(f"/me/follows/{account(ada)}", headers=OWN)
    assert ada.put(f"/me/blocks/{account(mallory)}", headers=OWN).status_code == 204
    assert mallory.get("/me/follows").json["friends"] == []  # the block ended the following
    refused = mallory.put(f"/me/follows/{account(ada)}", headers=OWN)
    assert refused.status_code == 403 and refused.json["code"] == "not_allowed"
    assert "block" not in str(refused.json).lower()
    assert [p["player"] for p in ada.get("/me/blocks").json["people"]] == [account(mallory)]
    ada.delete(f"/me/blocks/{account(mallory)}", headers=OWN)
    assert mallory.put(f"/me/follows/{account(ada)}", headers=OWN).status_code == 204


def test_mutes_are_listed_and_taken_back(api, ada_and_bob):
    ada, bob = ada_and_bob
    ada.put(f"/me/mutes/{account(bob)}", headers=OWN)
    assert [p["player"] for p in ada.get("/me/mutes").json["people"]] == [account(bob)]
    ada.delete(f"/me/mutes/{account(bob)}", headers=OWN)
    assert ada.get("/me/mutes").json["people"] == []


def test_a_token_reads_the_lists_but_only_the_session_changes_them(api):
    (token,) = people(api, "tok-people")
    assert api.get("/me/follows", headers=auth(token)).status_code == 200
    refused = api.put("/me/follows/anyone", headers=auth(token))
    assert refused.status_code == 403 and refused.json["code"] == "session_required"


def test_a_person_blocked_by_someone_seated_cannot_join_the_open_game(api):
    """From the attacker's side: Mallory, blocked by the creator (or by a person already seated),
    is refused a seat with not_allowed, which does not say why; the table keeps its seat free."""
    creator, seated, mallory, other = people(api, "creator-ob", "seated-ob", "mallory-ob", "other-ob")
    blocked_by_creator = open_game(api, creator, players=3)
    blocking = page_of(api, "creator-ob@example.com")
    blocking.put(f"/me/blocks/{api.get('/me', headers=auth(mallory)).json['account']}", headers=OWN)
    refused = api.post(f"/open-games/{blocked_by_creator['id']}/join", headers=auth(mallory))
    assert refused.status_code == 403 and refused.json["code"] == "not_allowed", refused.json
    assert "block" not in refused.json["detail"]
    assert api.get(f"/open-games/{blocked_by_creator['id']}").json["free"] == 2
    assert api.post(f"/open-games/{blocked_by_creator['id']}/join", headers=auth(other)).status_code == 200

    table = open_game(api, other, players=3)
    api.post(f"/open-games/{table['id']}/join", headers=auth(seated))
    page_of(api, "seated-ob@example.com").put(
        f"/me/blocks/{api.get('/me', headers=auth(mallory)).json['account']}", headers=OWN
    )
    refused = api.post(f"/open-games/{table['id']}/join", headers=auth(mallory))
    assert refused.status_code == 403 and refused.json["code"] == "not_allowed"


def test_a_suspended_account_cannot_open_join_or_create_games(api):
    host, suspended = people(api, "host-sus", "suspended-sus")
    table = open_game(api, host)
    who = api.get("/me", headers=auth(suspended)).json["account"]
    api.app.extensions["bluemoon"].suspensions.suspend(who, 3600, "spam", by="operator")
    seats = {"seats": [{"kind": "human"}, {"kind": "bot", "level": "greedy"}]}
    for answer in (
        api.post(f"/open-games/{table['id']}/join", headers=auth(suspended)),
        api.post("/open-games", json={"players": 2}, headers=auth(suspended)),
        api.post("/games", json=seats, headers=auth(suspended)),
    ):
        assert answer.status_code == 403 and answer.json["code"] == "account_suspended", answer.json
    assert api.get(f"/open-games/{table['id']}").json["free"] == 1


def test_privacy_is_read_and_changed_field_by_field(api):
    ada = page_of(api, "ada-privacy@example.com")
    assert ada.get("/me/privacy").json == {"challenges": "everyone", "friends_public": True}
    changed = ada.patch("/me/privacy", json={"challenges": "nobody"}, headers=OWN).json
    assert changed == {"challenges": "nobody", "friends_public": True}
    refused = ada.patch("/me/privacy", json={"challenges": "friends"}, headers=OWN)
    assert refused.status_code == 422 and "challenges" in refused.json["errors"]


def test_a_profile_shows_public_facts_and_friends_only_when_public(api, ada_and_bob):
    ada, bob = ada_and_bob
    ada.patch("/me", json={"display_name": "Ada"}, headers=OWN)
    seats = [{"kind": "human"}, {"kind": "bot", "level": "greedy"}]
    ada.post("/games", json={"seats": seats}, headers=OWN)
    ada.post("/games", json={"seats": [*seats, {"kind": "bot", "level": "random"}], "edition": "classic"}, headers=OWN)
    ada.put(f"/me/follows/{account(bob)}", headers=OWN)
    profile = api.get(f"/players/{account(ada)}").json  # someone signed out
    assert profile["name"] == "Ada" and "email" not in str(profile)
    assert profile["counts"] == {
        "games": 2,
        "finished": 0,
        "by_edition": {"classic": 1, "cmon": 1},
        "by_players": {"2": 1, "3": 1},
    }
    assert len(profile["recent_games"]) == 2 and profile["history"] == []
    assert [f["player"] for f in profile["friends"]] == [account(bob)]
    ada.patch("/me/privacy", json={"friends_public": False}, headers=OWN)
    assert bob.get(f"/players/{account(ada)}").json["friends"] is None
    assert ada.get(f"/players/{account(ada)}").json["friends"] is not None  # their own
    assert api.get("/players/no-such-player").status_code == 404


def test_the_profile_page_shares_the_address_for_a_browser(api, ada_and_bob):
    ada, _ = ada_and_bob
    page = api.app.test_client().get(f"/players/{account(ada)}", headers={"Accept": "text/html,*/*;q=0.8"})
    assert page.status_code == 200 and page.mimetype == "text/html" and b"/web/player.js" in page.data
    assert api.get(f"/players/{account(ada)}", headers={"Accept": "*/*"}).mimetype == "application/json"


def test_notes_are_their_authors_alone(api, ada_and_bob):
    ada, bob = ada_and_bob
    game = ada.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}, headers=OWN).json["game"]
    text = "<b>not markup</b>\nsecond line"
    kept = ada.put(f"/me/notes/players/{account(bob)}", json={"text": text}, headers=OWN)
    assert kept.status_code == 200 and kept.json["text"] == text
    ada.put(f"/me/notes/games/{game}", json={"text": "a game note"}, headers=OWN)
    assert ada.get(f"/me/notes/players/{account(bob)}").json["text"] == text
    # a stranger, from the outside: the same addresses answer their own notes, none kept
    assert bob.get(f"/me/notes/players/{account(bob)}").json == {
        "subject": "player",
        "about": account(bob),
        "text": "",
        "updated": None,
    }
    assert bob.get(f"/me/notes/games/{game}").json["text"] == ""
    assert api.get(f"/me/notes/games/{game}").status_code == 401
    assert text not in api.get(f"/players/{account(bob)}").get_data(as_text=True)
    ada.delete(f"/me/notes/games/{game}", headers=OWN)
    assert ada.get(f"/me/notes/games/{game}").json["updated"] is None
    assert ada.put("/me/notes/games/no-such-game", json={"text": "x"}, headers=OWN).status_code == 404


@pytest.mark.parametrize("bad", ["\u202eevil", "a\u2066b", "tab\there", "bell\x07", "c1\x85", "zero\u200bwidth"])
def test_a_note_refuses_control_and_bidi_characters_naming_the_field(api, bad):
    ada = page_of(api, "ada-bad-note@example.com")
    refused = ada.put(f"/me/notes/players/{account(ada)}", json={"text": bad}, headers=OWN)
    assert refused.status_code == 422 and "text" in refused.json["errors"], refused.json
    assert ada.get(f"/me/notes/players/{account(ada)}").json["updated"] is None  # nothing kept


def test_a_note_is_at_most_the_documented_length(api):
    ada = page_of(api, "ada-long-note@example.com")
    path = f"/me/notes/players/{account(ada)}"
    assert ada.put(path, json={"text": "x" * MOST_NOTE_CHARACTERS}, headers=OWN).status_code == 200
    refused = ada.put(path, json={"text": "x" * (MOST_NOTE_CHARACTERS + 1)}, headers=OWN)
    assert refused.status_code == 422 and "text" in refused.json["errors"]
    assert len(ada.get(path).json["text"]) == MOST_NOTE_CHARACTERS


@pytest.mark.parametrize("bad", ["\u202eAda", "Ada\u2069", "A\x00da", "Ada\x9b"])
def test_display_names_refuse_control_and_bidi_characters(api, bad):
    ada = page_of(api, "ada-bad-name@example.com")
    refused = ada.patch("/me", json={"display_name": bad}, headers=OWN)
    assert refused.status_code == 422 and "display_name" in refused.json["errors"]


def test_a_deleted_account_takes_its_notes_and_relations_with_it(api, ada_and_bob):
    ada, bob = ada_and_bob
    ada.put(f"/me/follows/{account(bob)}", headers=OWN)
    ada.put(f"/me/notes/players/{account(bob)}", json={"text": "kept for me"}, headers=OWN)
    who, client = account(ada), api.app.extensions["bluemoon"].client
    assert ada.delete("/me", headers=OWN).status_code == 204
    assert not [k for k in client.keys(f"{{acct:{who}}}:*") if k.endswith((b":notes", b":follows"))]
    assert bob.get(f"/players/{account(bob)}").json["followers"] == 0


def test_a_name_stored_before_the_rule_reaches_profiles_and_friends_lists_harmless(api, ada_and_bob):
    ada, bob = ada_and_bob
    client = api.app.extensions["bluemoon"].client
    client.hset(f"{{acct:{account(bob)}}}:account", "name", "Bob\u202e\nevil")  # as an old release kept it
    ada.put(f"/me/follows/{account(bob)}", headers=OWN)
    assert api.get(f"/players/{account(bob)}").json["name"] == "Bob evil"
    assert ada.get("/me/follows").json["friends"][0]["name"] == "Bob evil"
    assert ada.get(f"/players/{account(ada)}").json["friends"][0]["name"] == "Bob evil"
