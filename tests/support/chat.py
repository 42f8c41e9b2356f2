"""Games whose seats are held by accounts, as chat tests need them (mutes and blocks are
between accounts): each person's personal access token, account id and seat token."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from tests.support.accounts import OWN, personal_token
from tests.support.games import created


@dataclass(frozen=True)
class Person:
    token: str  #: a personal access token (read, play, webhooks, alerts)
    account: str
    seat_token: str | None = None  #: the seat's token, for a seated person


def person(api, name: str) -> Person:
    """A new account (a unique email each time: the run's Redis is shared)."""
    token = personal_token(api, f"{name}-{uuid.uuid4().hex[:10]}@example.com")
    return Person(token, api.get("/me", token=token).json["account"])


def seated_game(api, *names: str, body: dict | None = None) -> tuple[str, list[Person]]:
    """A game of humans, one seat each for a new account named by ``names``, each seat kept in its
    account (``POST /me/seats``)."""
    made = created(api, body or {"seats": [{"kind": "human", "name": n.title()} for n in names]})
    people = []
    for name, seat in zip(names, made["seats"]):
        one = person(api, name)
        kept = api.post(
            "/me/seats", json={"tokens": [seat["token"]], "account": one.account}, token=one.token, headers=OWN
        )
        assert kept.status_code == 200, kept.json
        people.append(Person(one.token, one.account, seat["token"]))
    return made["game"], people
