"""`/legal` round-trips (issue 34 item 12): every command it lists, posted back unchanged at its
version, is accepted. Seeded random games of every edition, with and without the expansion, 2-4
seats, played through the HTTP layer; at each state one command of each kind listed (the kind:
its type, and whether its ``to`` is null, it offers a Pillar or pays with Hoax) is posted: the
one that moves the game on in the game itself, each other on a fresh copy of the game at that
version, until the game has seen that kind accepted EACH_KIND times (copies cost an append each:
the rare kinds are tried wherever they come up, the common ones not at every state); and at a
few states (EVERY_ONE of them) every listed command, each on its own copy. Requests go
through the Flask app in process without the contract check of every response (tests/api/client.py
checks it elsewhere), on the test run's Redis."""

from __future__ import annotations

import random
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest

import application.games.game_service
from domain import events as ev
from domain.options import HAND_SIZE

GAMES = [  # (edition, expansion, players, seed): every edition, the expansion on and off
    ("classic", False, 2, 1),
    ("cmon", False, 3, 3),
    ("cmon", True, 2, 4),
    ("cmon", True, 4, 8),
]
COMMANDS_A_GAME = 150  #: commands the game itself moves on by: states enough to visit each kind
EACH_KIND = 6  #: a kind accepted this often in one game is no longer tried on copies
EVERY_ONE = 0.02  #: the share of states at which every listed command is tried, each on its copy


def kind(command: dict[str, Any]) -> tuple[str, bool, bool]:
    """A listed command's kind: its type; whether its ``to`` is null (fly_dragon's outside of
    the city, use_action's no destination); whether it names a Pillar or Hoax cards."""
    return (
        command["type"],
        "to" in command and command["to"] is None,
        bool(command.get("pillar") or command.get("hoax")),
    )


class Copies:
    """Fresh copies of a game at a version: a game made over HTTP with the original's grid,
    deck and first player (every seat the creator's, so the setup may be given), then the
    original's later events appended to it as they are, so that its state is the original's."""

    def __init__(self, api, game: str, players: int) -> None:
        self.api, self.game, self.players = api, game, players
        self.store = api.app.extensions["bluemoon"].store
        opening = self.store.read(game, 0, 3 + players)
        created, shuffled, started = opening[0].event, opening[1].event, opening[-1].event
        assert isinstance(created, ev.GameCreated) and isinstance(shuffled, ev.DeckShuffled)
        assert isinstance(started, ev.TurnStarted) and len(shuffled.order) >= players * HAND_SIZE
        self.opening = len(opening)
        self.request = {
            "seats": [{"kind": "human"}] * players,
            "edition": created.edition,
            "expansion": created.expansion,
            "layout": "explicit",
            "setup": {
                "grid": [{"tile": t, "row": r, "col": c} for t, r, c in created.grid],
                "deck": list(shuffled.order),
                "first_player": started.seat,
            },
        }

    def at(self, version: int) -> tuple[str, list[str]]:
        """A new game whose state is the original's at ``version``, and its seat tokens."""
        made = self.api.http.post("/games", json=self.request)
        assert made.status_code == 201, made.json
        copy, tokens = made.json["game"], [s["token"] for s in made.json["seats"]]
        assert made.json["version"] == self.opening
        later = [s.event for s in self.store.read(self.game, self.opening, version)]
        if later:
            self.store.append(copy, self.opening, later, actor="system", command_id="copy", command_hash="copy")
        return copy, tokens


def post(api, game: str, token: str, command: dict[str, Any], version: int) -> Any:
    headers = {"If-Match": f'"{version}"', "Authorization": f"Bearer {token}"}
    return api.http.post(f"/games/{game}/commands", json=command, headers=headers)


def choose(commands: list[dict[str, Any]], rnd: random.Random) -> dict[str, Any]:
    """The command that moves the game on: a kind chosen evenly (the Reset less often, a
    take-back never: copies try it), so that figures reach the expansion's buildings, dragons
    fly and Pillars are offered."""
    kinds = sorted({kind(c) for c in commands if c["type"] not in ("end_turn", "take_back")})
    if not kinds or rnd.random() < 0.15:
        return next(c for c in commands if c["type"] == "end_turn")
    chosen = rnd.choice(kinds)
    return rnd.choice([c for c in commands if kind(c) == chosen])


@pytest.mark.slow
@pytest.mark.parametrize(("edition", "expansion", "players", "seed"), GAMES)
def test_every_kind_of_command_legal_lists_is_accepted_posted_back_unchanged(
    api_real, monkeypatch, edition, expansion, players, seed
):
    """Slow: hundreds of commands a game, and a copy of the game for each kind tried (1-5 s a
    game on 2 busy cores)."""
    api, rnd = api_real, random.Random(seed)
    seeds = random.Random(-seed)  # the games' secret seeds too, so that a run is played again as it was
    monkeypatch.setattr(application.games.game_service, "os", SimpleNamespace(urandom=seeds.randbytes))
    made = api.post("/games", json={"seats": [{"kind": "human"}] * players, "edition": edition, "expansion": expansion})
    game, tokens = made.json["game"], [s["token"] for s in made.json["seats"]]
    seat = api.get(f"/games/{game}").json["turn"]["seat"]
    copies = Copies(api, game, players)
    accepted: Counter[tuple[str, bool, bool]] = Counter()
    for _ in range(COMMANDS_A_GAME):
        legal = api.http.get(f"/games/{game}/legal", headers={"Authorization": f"Bearer {tokens[seat]}"}).json
        version, commands = legal["version"], legal["commands"]
        onward = choose(commands, rnd)
        if rnd.random() < EVERY_ONE:  # now and then a state whose every listed command is tried
            tried = [c for c in commands if c != onward]
        else:
            kinds = sorted(k for k in {kind(c) for c in commands} - {kind(onward)} if accepted[k] < EACH_KIND)
            tried = [rnd.choice([c for c in commands if kind(c) == other]) for other in kinds]
        for command in tried:
            copy, copy_tokens = copies.at(version)
            answer = post(api, copy, copy_tokens[seat], command, version)
            assert answer.status_code == 200, (command, answer.json)
            accepted[kind(command)] += 1
        answer = post(api, game, tokens[seat], onward, version)
        assert answer.status_code == 200, (onward, answer.json)
        accepted[kind(onward)] += 1
        view = answer.json["view"]
        if view["status"] == "finished":
            break
        seat = view["turn"]["seat"]
    assert {"move", "contribute", "end_turn"} <= {t for t, _, _ in accepted}, sorted(accepted)
    if expansion:  # the Hospital's or the Golden Shrine's action, as /legal lists it: to null
        assert ("use_action", True, False) in accepted, sorted(accepted)


@pytest.mark.parametrize(("building", "done"), [("hospital", "ActionUsed"), ("golden_shrine", "OfferingMade")])
def test_the_action_legal_lists_with_no_destination_is_accepted_as_listed(api, building, done):
    """The commands /legal lists at the Hospital and the Golden Shrine, ``"to": null`` (a
    scenario puts the figure there, with crystals enough for the Shrine's offering)."""
    position = {
        "hands": [["black-1a", "black-2a"], ["black-1b"]],
        "figures": [building, "courtyard"],
        "crystals": [9, 0],
        "scales": [0, 0],
    }
    made = api.post("/games", json={"seats": [{"kind": "human"}] * 2, "expansion": True, "scenario": position}).json
    game, token = made["game"], made["seats"][0]["token"]
    legal = api.get(f"/games/{game}/legal", token=token).json
    listed = [c for c in legal["commands"] if c["type"] == "use_action"]
    assert listed == [{"type": "use_action", "to": None}]
    posted = post(api, game, token, listed[0], legal["version"])
    assert posted.status_code == 200, posted.json
    assert done in [e["type"] for e in posted.json["events"]]
