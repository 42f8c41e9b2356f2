"""Rematches: after the end, the same seats and options again, once every person accepts.

Any seat of a finished game may offer; its offer is its own acceptance. A seat no one joined
is open in the new game too, and its invite is shown to the old game's seats only (a seat's token,
or the person holding the seat): game ids are public, so anyone else reading the rematch would
take a stranger's seat with it. Each accepting seat
gets its seat in the new game now: a person's seat goes to their account, a seat held by a
token gets a new token, shown this once (the page keeps it), whose digest the new game's seat
will take. When the last human seat accepts, the new game's id is chosen in the same slot
(``HSETNX``), so it is made once, whoever reads the rematch first after that. Each acceptance that
leaves people awaited tells each of them (``rematch.offered`` in their stream:
application/person_stream/), through the outbox; a retried acceptance asks again, and the
stream takes each once.
"""

from __future__ import annotations

import json
import secrets
import uuid
from typing import Any

from application.accounts.account_service import Accounts
from application.games.game_service import GameService, SeatSpec, digest
from application.person_stream.entries import entries
from application.person_stream.news import rematch_offered
from application.refusals import NotFinished, ServiceError
from domain import Edition, Layout, Options
from events import keys
from events.redis_store import RedisStore, text

GAME = "game"  #: the rematch hash's field naming the new game
INVITES = "invites"  #: the field keeping the invites to the new game's open seats (seat -> invite)


class AlreadyAccepted(ServiceError):
    status, code, title = 409, "already_accepted", "This seat has accepted the rematch already"


class Rematches:
    def __init__(self, store: RedisStore, service: GameService, accounts: Accounts) -> None:
        self.store = store
        self.client = store.client
        self.service = service
        self.accounts = accounts

    def accept(
        self, game: str, seat: int, account: str | None, token: str | None = None, mark: str | None = None
    ) -> dict[str, Any]:
        """Offer or accept the rematch for ``seat``; the answer holds the new seat's token when
        the seat is held by a token rather than an account. ``token`` and ``mark``: the new token
        and the request's name chosen beforehand (a retried request's, application/retries.py):
        an acceptance with the same mark is this request's own, answered again."""
        if not self.service.state(game).finished:
            raise NotFinished("a rematch can be offered once the game has ended")
        seats = self.service.seats(game)
        holder = seats[seat].get("account") or account
        token = None if holder else token or secrets.token_urlsafe(32)
        accepted = {"account": holder, "token": digest(token) if token else None, **({"mark": mark} if mark else {})}
        key = keys.rematch(game)
        if not self.store.durably(key, lambda c: c.hsetnx(key, str(seat), json.dumps(accepted))):
            earlier = self.client.hget(key, str(seat))
            if not mark or earlier is None or json.loads(earlier).get("mark") != mark:
                raise AlreadyAccepted(f"seat {seat} has accepted already")
        status = self.status(game, seat)
        self._tell_the_awaited(game, seat, status)
        return {**status, "token": token}

    def _tell_the_awaited(self, game: str, seat: int, status: dict[str, Any]) -> None:
        """A ``rematch.offered`` for each person the rematch still waits for, handed on now."""
        settings = self.service.settings(game)
        offered = rematch_offered(game, seat, status, settings["seats"], settings["accounts"])
        self.service.hand_on(entries(game, f"rematch-{seat}", {account: [news] for account, news in offered.items()}))

    def status(self, game: str, seat: int | None) -> dict[str, Any]:
        """Who has accepted, who is awaited, and the new game once every person has accepted;
        the invites to its open seats only for ``seat``, one of the old game's (None: anyone else)."""
        found = {text(k): text(v) for k, v in self.client.hgetall(keys.rematch(game)).items()}
        archived = self.store.archive.parts(game) if not found and self.store.archive is not None else None
        if archived is not None:  # a game moved to the archive: its rematch as it was
            found = dict(archived.get("rematch", {}))
        seats = self.service.seats(game)
        humans = [s["seat"] for s in seats if s["kind"] == "human"]
        accepted = sorted(int(k) for k in found if k not in (GAME, INVITES))
        new = found.get(GAME)
        if new is None and accepted and set(humans) <= set(accepted):
            key = keys.rematch(game)
            self.store.durably(key, lambda c: c.hsetnx(key, GAME, uuid.uuid4().hex))
            new = text(self.client.hget(key, GAME))
        if new is not None:
            self._start(game, new, seats, {int(k): json.loads(found[k]) for k in map(str, accepted)})
        invites = found.get(INVITES) if archived is not None else self.client.hget(keys.rematch(game), INVITES)
        return {
            "accepted": accepted,
            "waiting_for": [s for s in humans if s not in accepted],
            "game": new,
            "invites": json.loads(invites) if invites and seat is not None else {},
        }

    def _start(self, old: str, new: str, seats: list[dict[str, Any]], accepted: dict[int, dict[str, Any]]) -> None:
        """Make the rematch under its chosen id; a second call finds it made (and maybe moved to
        the archive since), and keeps the seats the first one did not. The invites to its open
        seats are chosen and kept before the game is made, so a maker killed in between leaves the
        next one the same invites to make it with."""
        if not self.store.version(new):
            self._make_game(old, new, seats, accepted)
        self.accounts.seat_all(
            new, {seat: taken["account"] for seat, taken in accepted.items() if taken.get("account")}
        )

    def _make_game(self, old: str, new: str, seats: list[dict[str, Any]], accepted: dict[int, dict[str, Any]]) -> None:
        # a seat no one joined in the old game is open in the new one: its invite goes to the
        # old game's seats, to pass on (else no one could ever take it)
        key = keys.rematch(old)
        chosen = {str(s["seat"]): secrets.token_urlsafe(24) for s in seats if s["kind"] == "open"}
        self.store.durably(key, lambda c: c.hsetnx(key, INVITES, json.dumps(chosen)))
        invites = json.loads(text(self.client.hget(key, INVITES)))
        state = self.service.state(old)
        settings = self.service.settings(old)
        specs = []
        for s in seats:
            taken = accepted.get(s["seat"], {})
            if s["kind"] == "open":
                specs.append(SeatSpec("open", s.get("name"), invite=digest(invites[str(s["seat"])])))
                continue
            specs.append(
                SeatSpec(
                    s["kind"], s.get("name"), s.get("level"), account=taken.get("account"), token=taken.get("token")
                )
            )
        o = state.options
        layout = Layout.STANDARD if o.layout is Layout.EXPLICIT else o.layout  # a scenario's rematch is drawn afresh
        self.service.create(
            Options(o.players, Edition(o.edition), o.expansion, layout),
            specs,
            turn_deadline=settings.get("turn_deadline"),
            deadline_level=settings.get("deadline_level"),
            clock=settings.get("clock"),
            rated=bool(settings.get("rated")),
            origin={"rematch_of": old},
            game=new,
        )
