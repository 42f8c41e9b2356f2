"""Challenges on a Redis Cluster (application/challenges/challenges.py): each write is one slot's
(the challenge's hash, each account's lists, the pair's place, the outbox of the challenge's
shard), so a challenge is sent, listed, accepted into a game, declined and expired there too."""

from __future__ import annotations

import pytest
from redis.cluster import RedisCluster

from application.background.handoff import CallbackHandoff
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.challenges import challenge, components, mine
from tests.support.lobby import account_of, auth, people
from tests.support.person_stream import kinds, news, write_news_at_once


@pytest.fixture
def api(cluster_urls, monkeypatch):
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")  # the test cluster keeps nothing on disk
    app = create_app({"REDIS_URL": cluster_urls[0], "RATE_LIMIT": 0, "HANDOFF": CallbackHandoff(lambda t: None)})
    assert isinstance(app.extensions["bluemoon"].client, RedisCluster)
    return CheckedClient(app)


def test_a_challenge_is_sent_listed_answered_and_expired_on_a_cluster(api):
    write_news_at_once(api)
    ann, ben = people(api, "ann.cluster", "ben.cluster")
    ben_id = account_of(api, ben)
    first = challenge(api, ann, ben_id, rated=False)
    assert mine(api, ben)["incoming"] == [first["id"]]
    game = api.post(f"/challenges/{first['id']}/accept", headers=auth(ben)).json["game"]
    assert api.get(f"/games/{game}", headers=auth(ben)).json["viewer"] == 1
    second = challenge(api, ann, ben_id)
    assert (
        api.post(f"/challenges/{second['id']}/decline", json={"reason": "not_now"}, headers=auth(ben)).status_code
        == 200
    )
    third = challenge(api, ann, ben_id)
    expires = components(api).challenges.get(third["id"], ben_id)["expires"]
    assert components(api).challenges.expire(third["id"], at=expires)["status"] == "expired"
    assert mine(api, ann) == mine(api, ben) == {"incoming": [], "outgoing": []}
    told = kinds(news(api, ann))
    assert {"challenge.accepted", "challenge.declined", "challenge.expired"} <= set(told)
