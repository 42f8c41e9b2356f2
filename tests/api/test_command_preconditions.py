"""How a command states the version it was played against, exactly: an integer and only one
(If-Match and expected_version must agree), within what a JSON client can hold; a move's tile is
a tile; a refusal names fields of the request only; If-None-Match as HTTP writes it."""

from __future__ import annotations

import pytest

from tests.support.games import two_humans


@pytest.fixture
def mover(api):
    return two_humans(api)


@pytest.mark.parametrize("version", ["5", 2**70, -1, True])
def test_an_expected_version_that_is_no_version_is_refused_by_name(api, mover, version):
    game, tokens, _ = mover
    end = {"type": "end_turn", "expected_version": version}
    refused = api.post(f"/games/{game}/commands", json=end, token=tokens[0])
    assert refused.status_code == 422 and "expected_version" in refused.json["errors"]
    assert api.get(f"/games/{game}").json["version"] == 5  # nothing was played


def test_if_match_and_expected_version_that_disagree_are_refused_not_one_believed(api, mover):
    game, tokens, version = mover
    end = {"type": "end_turn", "expected_version": version}
    refused = api.post(f"/games/{game}/commands", json=end, token=tokens[0], headers={"If-Match": '"9"'})
    assert refused.status_code == 422 and "expected_version" in refused.json["errors"]
    agreed = api.post(f"/games/{game}/commands", json=end, token=tokens[0], headers={"If-Match": f'"{version}"'})
    assert agreed.status_code == 200


def test_a_move_to_null_is_refused_as_no_tile(api, mover):
    game, tokens, version = mover
    refused = api.post(
        f"/games/{game}/commands", json={"type": "move", "to": None, "expected_version": version}, token=tokens[0]
    )
    assert refused.status_code == 422 and "fly_dragon" in refused.json["errors"]["to"][0]


def test_not_your_turn_names_no_field_a_command_does_not_have(api, mover):
    game, tokens, version = mover
    refused = api.post(
        f"/games/{game}/commands", json={"type": "end_turn", "expected_version": version}, token=tokens[1]
    )
    assert refused.status_code == 409 and refused.json["code"] == "not_your_turn" and "field" not in refused.json


def test_if_none_match_takes_a_star_and_a_list_of_etags(api, mover):
    game, tokens, _ = mover
    tag = api.get(f"/games/{game}", token=tokens[0]).headers["ETag"]
    for header in ("*", f'"1.0000", {tag}', f"W/{tag}"):
        assert api.get(f"/games/{game}", token=tokens[0], headers={"If-None-Match": header}).status_code == 304, header
    assert api.get(f"/games/{game}", token=tokens[0], headers={"If-None-Match": '"1.0000", "2"'}).status_code == 200
