"""Redis can come back without its last writes (an ``everysec`` crash, a failover, a restore).
The service must then serve the stream as it is, never the newer state a process remembers."""

from __future__ import annotations

from events import keys


def end_turn(api, game, tokens, version, key):
    seat = api.get(f"/games/{game}").json["turn"]["seat"]
    return api.post(
        f"/games/{game}/commands",
        token=tokens[seat],
        json={"type": "end_turn", "discards": []},
        headers={"If-Match": f'"{version}"', "Idempotency-Key": key},
    )


def lose_writes_after(client, game: str, version: int) -> None:
    """Put the game back as Redis would have it had it lost everything after ``version``."""
    stream = keys.stream(game)
    kept = client.xrange(stream, "-", f"0-{version}")
    lost_keys = [k for k, v in client.hgetall(keys.commands(game)).items() if int(v.rsplit(b"|", 1)[1]) > version]
    client.delete(stream, keys.snapshot(game))
    for entry_id, fields in kept:
        client.xadd(stream, fields, id=entry_id)
    if lost_keys:
        client.hdel(keys.commands(game), *lost_keys)


def test_a_stream_shorter_than_the_cached_state_is_served_as_it_is(api_real, real_redis):
    api = api_real
    created = api.post(
        "/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}
    ).json
    game, tokens = created["game"], [s["token"] for s in created["seats"]]
    version = created["version"]
    versions = [version]
    for i in range(3):
        r = end_turn(api, game, tokens, versions[-1], f"k{i}")
        assert r.status_code == 200
        versions.append(r.json["version"])
    assert api.get(f"/games/{game}").json["version"] == versions[-1]  # this process caches that state

    lose_writes_after(real_redis, game, versions[1])
    assert real_redis.xlen(keys.stream(game)) == versions[1]  # the loss happened

    assert api.get(f"/games/{game}").json["version"] == versions[1]
    r = end_turn(api, game, tokens, versions[1], "after-the-loss")
    assert r.status_code == 200, r.json  # not a 412 against a version that no longer exists
    assert api.get(f"/games/{game}/events?after=0").json["version"] == r.json["version"]
