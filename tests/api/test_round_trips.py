"""What a request costs Redis: a seat's view of a game this process knows is one round trip
(application/games/reads.py), and a command one read and one append, the append writing the
lobby's summary with the events (events/redis_store.py)."""

from __future__ import annotations

import pytest
from redis.connection import AbstractConnection
from redis.crc import key_slot

from application.games.reads import read_keys
from events.projection import GameIndex
from tests.support.games import game_and_tokens


@pytest.fixture
def round_trips(monkeypatch):
    """How many times this process sent Redis something (a command or a pipeline of them)."""
    sent = [0]
    send = AbstractConnection.send_packed_command

    def counted(self, command, check_health=True):
        sent[0] += 1
        return send(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)
    return sent


def test_a_seats_view_of_a_game_this_process_knows_is_one_round_trip(api_real, round_trips):
    game, tokens = game_and_tokens(api_real)
    assert api_real.get(f"/games/{game}", token=tokens[0]).status_code == 200  # this process keeps the state
    for token in (tokens[0], tokens[1], None):
        before = round_trips[0]
        answer = api_real.get(f"/games/{game}", token=token)
        assert answer.status_code == 200
        assert round_trips[0] - before == 1


def test_a_command_is_one_read_and_one_append_which_writes_the_lobbys_summary(api_real, round_trips, real_redis):
    game, tokens = game_and_tokens(api_real)
    view = api_real.get(f"/games/{game}").json
    for i in range(4):
        before = round_trips[0]
        played = api_real.post(
            f"/games/{game}/commands",
            token=tokens[view["turn"]["seat"]],
            json={"type": "end_turn", "discards": []},
            headers={"If-Match": f'"{view["version"]}"', "Idempotency-Key": f"k{i}"},
        )
        assert played.status_code == 200, played.json
        assert round_trips[0] - before == 2
        view = played.json["view"]
        summary = GameIndex(real_redis).get(game)
        assert summary is not None and summary["version"] == view["version"] == played.json["version"]
        assert summary["turn"] == view["turn"]["seat"]


def test_a_retried_command_is_answered_from_the_record_read_with_the_caller(api_real, round_trips):
    game, tokens = game_and_tokens(api_real)
    view = api_real.get(f"/games/{game}").json
    post = {
        "token": tokens[view["turn"]["seat"]],
        "json": {"type": "end_turn", "discards": []},
        "headers": {"If-Match": f'"{view["version"]}"', "Idempotency-Key": "once"},
    }
    first = api_real.post(f"/games/{game}/commands", **post)
    again = api_real.post(f"/games/{game}/commands", **post)
    assert first.status_code == again.status_code == 200
    assert (first.json["duplicate"], again.json["duplicate"]) == (False, True)
    assert again.json["version"] == first.json["version"] and again.json["events"] == first.json["events"]
    other_seat = {**post, "token": tokens[1 - view["turn"]["seat"]]}  # the same key, another seat's: its own
    assert api_real.post(f"/games/{game}/commands", **other_seat).json["code"] == "stale_version"


def test_a_lost_read_script_is_given_to_redis_again(api_real, real_redis):
    game, tokens = game_and_tokens(api_real)
    assert api_real.get(f"/games/{game}", token=tokens[0]).status_code == 200
    real_redis.script_flush()  # as after a restart or a failover to a replica that never ran it
    answer = api_real.get(f"/games/{game}", token=tokens[0])
    assert answer.status_code == 200 and answer.json["game"] == game


def test_the_read_script_touches_one_slot(game_id):
    assert len({key_slot(name.encode()) for name in read_keys(game_id)}) == 1


def test_a_known_seat_tokens_owner_is_not_asked_again(api_real, monkeypatch):
    """A token is set once and never given to another seat: once Redis has named its owner, a
    request with it sends the read script alone."""
    game, tokens = game_and_tokens(api_real)
    sent: list[bytes] = []
    send = AbstractConnection.send_packed_command

    def recorded(self, command, check_health=True):
        sent.append(b"".join(command) if isinstance(command, list) else command)
        return send(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", recorded)
    assert api_real.get(f"/games/{game}", token=tokens[0]).status_code == 200
    assert any(b"\r\nGET\r\n" in packed for packed in sent)
    sent.clear()
    assert api_real.get(f"/games/{game}", token=tokens[0]).status_code == 200
    assert len(sent) == 1 and b"EVALSHA" in sent[0] and b"\r\nGET\r\n" not in sent[0]
    assert api_real.get(f"/games/{game}", token="not-a-token").json["code"] == "forbidden"
