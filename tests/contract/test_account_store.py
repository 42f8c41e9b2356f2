"""The account store (application/accounts/account_service.py, application/accounts/passkeys.py) behaves the same on every
backend: fakeredis, one real Redis, and a Redis Cluster (where each account is one slot and each
lookup a key of its own)."""

from __future__ import annotations

import fakeredis
import pytest
import redis
from redis.cluster import RedisCluster

from application.accounts.account_service import Accounts, SignInRefused
from application.accounts.passkeys import PasskeyRefused, Passkeys, RelyingParty
from cli.soft_authenticator import SoftPasskey
from events.redis_store import RedisStore

PARTY = RelyingParty("localhost", "http://localhost")


@pytest.fixture(params=["fakeredis", "redis", "cluster"])
def accounts(request):
    if request.param == "fakeredis":
        client = fakeredis.FakeRedis()
    elif request.param == "redis":
        client = redis.Redis.from_url(request.getfixturevalue("redis_url"))
    else:
        client = RedisCluster.from_url(request.getfixturevalue("cluster_urls")[0])
    yield Accounts(RedisStore(client))
    client.close()


def test_an_account_from_link_to_deletion(accounts, game_id):
    email = f"{game_id}@example.com"
    account = accounts.use_link(accounts.ask_link(email, "203.0.113.1"))
    assert accounts.profile(account)["email"] == email
    assert accounts.use_link(accounts.ask_link(email.upper(), "203.0.113.1")) == account
    session = accounts.open_session(account)
    assert accounts.session_account(session) == account
    made = accounts.create_token(account, "bot")
    assert accounts.token_account(made.token).account == account and accounts.tokens(account)[0]["last_used"]
    accounts.add_seat(account, game_id, 1)
    assert accounts.seats(account) == {game_id: 1} and accounts.seat_in(account, game_id) == 1
    other = accounts.use_link(accounts.ask_link("x" + email, "203.0.113.2"))
    assert other != account
    assert accounts.use_device_code(accounts.device_code(account), "203.0.113.3") == account
    passkeys, soft = Passkeys(accounts), SoftPasskey(PARTY.origin)
    begun = passkeys.begin_registration(PARTY, account, "")
    passkeys.finish_registration(PARTY, begun["ceremony"], soft.create(begun["options"]))
    begun = passkeys.begin_sign_in(PARTY)
    assert passkeys.finish_sign_in(PARTY, begun["ceremony"], soft.get(begun["options"])) == account
    accounts.delete(account)
    assert accounts.session_account(session) is None and accounts.token_account(made.token) is None
    with pytest.raises(PasskeyRefused):
        begun = passkeys.begin_sign_in(PARTY)
        passkeys.finish_sign_in(PARTY, begun["ceremony"], soft.get(begun["options"]))
    assert accounts.use_link(accounts.ask_link(email, "203.0.113.1")) != account  # a new account for the address
    with pytest.raises(SignInRefused):
        accounts.use_device_code("ABCD-EFGH", "203.0.113.4")
