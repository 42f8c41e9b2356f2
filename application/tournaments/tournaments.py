"""Tournaments: Swiss or round robin at tables of two to four, made by a signed-in person, joined
and left before the start, played in rounds of games (docs/tournaments.md).

What people do is here: make one, join, leave, add the service's bots (its maker), withdraw
during it, read. What time does (the start, each round's games, its deadline, the results) is
``application/tournaments/rounds.py``, run by the tournament's outbox step. Both change the one
document by compare-and-set (application/tournaments/documents.py).

Rulings: a tournament whose start finds fewer than its minimum of players is cancelled (its
entrants hear of it on their streams; nothing is played). People who block each other are never
forced together: as at an open game, nobody joins a tournament where an entrant blocks them.
Limits: ``QUOTA_TOURNAMENTS_PER_ACCOUNT`` (3) tournaments one account made waiting to start
(429, Retry-After until the first of them starts), ``TOURNAMENT_MAX_PLAYERS`` (128) players.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from application import settings
from application.accounts.account_service import Accounts
from application.accounts.bot_accounts import is_bot
from application.games.game_service import GameService
from application.lobby.ratings import BOT, Ratings
from application.people.relations import NotAllowed, Relations
from application.people.suspensions import Suspensions
from application.refusals import Forbidden, NotFound, ServiceError
from application.tournaments import pairing
from application.tournaments.documents import OPEN, PREFIX, RUNNING, Documents, current_round
from events import keys
from events.outbox import now_ms
from events.redis_store import RedisStore, text
from events.serialization import now

#: Tournaments one account has made that wait to start, at once.
TOURNAMENTS_PER_ACCOUNT = settings.QUOTA_TOURNAMENTS_PER_ACCOUNT.read()
#: The most players any tournament takes.
MAX_PLAYERS = settings.TOURNAMENT_MAX_PLAYERS.read()


class TournamentClosed(ServiceError):
    status, code, title = 409, "tournament_started", "The tournament has started, ended or was cancelled"


class TournamentFull(ServiceError):
    status, code, title = 409, "tournament_full", "The tournament has as many players as it takes"


class AlreadyEntered(ServiceError):
    status, code, title = 409, "already_entered", "You are in this tournament already"


class NotEntered(ServiceError):
    status, code, title = 409, "not_entered", "You are not playing in this tournament"


class KeptOut(ServiceError):
    status, code, title = 409, "kept_out", "The tournament keeps these players out"


class TooManyTournaments(ServiceError):
    status, code, title = 429, "too_many_tournaments", "You have as many tournaments waiting to start as you may"


class BadTournament(ServiceError):
    status, code, title = 422, "bad_tournament", "The tournament cannot be played so"


def end_entry_name(game: str) -> str:
    """The entry that plays a tournament's game out by the clock (application/tournaments/rounds.py)."""
    return f"{PREFIX}{game}:end"


def ask_end(service: GameService, tournament_id: str, game: str) -> None:
    """Ask the workers to play the game out by the clock: a withdrawal's, or a round's deadline's."""
    name = end_entry_name(game)
    service.outbox.add(name, json.dumps({"tournament": tournament_id, "game": game, "end": True}), now_ms())
    service.dispatch(name)


class Tournaments:
    def __init__(
        self,
        store: RedisStore,
        service: GameService,
        accounts: Accounts,
        ratings: Ratings,
        relations: Relations,
        suspensions: Suspensions,
    ) -> None:
        self.store = store
        self.client = store.client
        self.documents = Documents(store)
        self.service = service
        self.accounts = accounts
        self.ratings = ratings
        self.relations = relations
        self.suspensions = suspensions

    # -- making one ----------------------------------------------------------------------------

    def create(self, creator: str, spec: dict[str, Any], tournament_id: str | None = None) -> dict[str, Any]:
        """A new tournament, open to join until ``spec["starts"]`` (epoch ms). ``spec``: name,
        format (system, rounds, table_size), edition, expansion, rated, turn_deadline,
        deadline_level, clock, round_seconds, min_players, max_players, bot_accounts, bot_levels.
        ``tournament_id``: chosen beforehand (a retried request's): made once."""
        found = self.documents.read(tournament_id) if tournament_id is not None else None
        if found is not None and found[1]["creator"]["account"] == creator:
            return found[1]
        self.suspensions.refuse_if_suspended(creator)
        if spec["max_players"] > MAX_PLAYERS:
            raise BadTournament(
                f"at most {MAX_PLAYERS} players (TOURNAMENT_MAX_PLAYERS)",
                field="max_players",
                limit="TOURNAMENT_MAX_PLAYERS",
            )
        if spec["min_players"] > spec["max_players"]:
            raise BadTournament("min_players is above max_players", field="min_players")
        if spec["starts"] <= now_ms():
            raise BadTournament("the start is in the past", field="starts")
        problem = pairing.format_problem(spec["format"], spec["min_players"], spec["max_players"])
        if problem is not None:
            raise BadTournament(problem[1], field=problem[0])
        made_id = tournament_id or uuid.uuid4().hex
        doc: dict[str, Any] = {
            "id": made_id,
            "name": spec["name"],
            "creator": {"account": creator, "name": self.accounts.display_name(creator)},
            "format": dict(spec["format"]),
            "options": {"edition": spec["edition"], "expansion": bool(spec["expansion"])},
            "rated": bool(spec["rated"]),
            "turn_deadline": spec.get("turn_deadline"),
            "deadline_level": spec.get("deadline_level"),
            "clock": spec.get("clock"),
            "round_seconds": int(spec["round_seconds"]),
            "starts": int(spec["starts"]),
            "min_players": int(spec["min_players"]),
            "max_players": int(spec["max_players"]),
            "bot_accounts": bool(spec["bot_accounts"]),
            "bot_levels": bool(spec["bot_levels"]),
            "status": OPEN,
            "created": now(),
            "entrants": [],
            "rounds": [],
            "ended": None,
            "reason": None,
            "version": 0,
        }
        self._hold(creator, made_id, doc["starts"])
        if not self.documents.swap("", doc):  # made by this request's other copy meanwhile
            return self.document(made_id)[1]
        self.client.zadd(keys.TOURNAMENTS, {made_id: doc["starts"]})
        return self.document(made_id)[1]

    def _hold(self, creator: str, tournament_id: str, starts: int) -> None:
        """A place among the creator's tournaments waiting to start; added first and counted after,
        so that two made at once cannot both pass the last place."""
        created, at = keys.account_tournaments(creator, "created"), now_ms()
        with self.client.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(created, "-inf", at)  # started since (or about to)
            pipe.zadd(created, {tournament_id: starts})
            pipe.zcard(created)
            pipe.zrange(created, 0, 0, withscores=True)
            *_, count, first = pipe.execute()
        if count > TOURNAMENTS_PER_ACCOUNT:
            self.client.zrem(created, tournament_id)
            raise TooManyTournaments(
                f"at most {TOURNAMENTS_PER_ACCOUNT} tournaments of yours waiting to start at once "
                "(QUOTA_TOURNAMENTS_PER_ACCOUNT)",
                retry_after=max(1, -(-(int(first[0][1]) - at) // 1000)),
                limit="QUOTA_TOURNAMENTS_PER_ACCOUNT",
            )

    # -- coming and going before the start -----------------------------------------------------

    def join(self, tournament_id: str, account: str) -> dict[str, Any]:
        """Enter the tournament before its start. Refused (nothing changed) when it has started,
        is full, keeps bot accounts out, one of its entrants blocks ``account`` (never said why),
        or ``account`` is in already."""
        self.suspensions.refuse_if_suspended(account)
        entrant = {
            "id": account,
            "account": account,
            "level": None,
            "name": self.accounts.display_name(account),
            "bot": is_bot(self.client, account),
            "rating": self.ratings.current(account).shown,  # as at joining; the start takes it again
        }
        return self._enter(tournament_id, entrant, account)

    def add_bot(self, tournament_id: str, account: str, level: str) -> dict[str, Any]:
        """Its maker enters one of the service's bots (a level), if the tournament lets them in."""
        _, doc = self.document(tournament_id)
        if doc["creator"]["account"] != account:
            raise Forbidden("only the tournament's maker adds the service's bots")
        if not doc["bot_levels"]:
            raise KeptOut("this tournament keeps the service's bots out (bot_levels: false)")
        number = sum(1 for e in doc["entrants"] if e["level"] is not None) + 1
        entrant = {
            "id": f"{BOT}{level}:{number}",
            "account": None,
            "level": level,
            "name": f"{level} bot {number}",
            "bot": True,
            "rating": self.ratings.current(f"{BOT}{level}").shown,
        }
        return self._enter(tournament_id, entrant, None)

    def _enter(self, tournament_id: str, entrant: dict[str, Any], account: str | None) -> dict[str, Any]:
        while True:
            raw, doc = self.document(tournament_id)
            if doc["status"] != OPEN:
                raise TournamentClosed(f"tournament {tournament_id} is {doc['status']}")
            if account is not None:
                if any(e["account"] == account for e in doc["entrants"]):
                    raise AlreadyEntered("you are in this tournament already")
                if any(e["account"] and self.relations.blocks(e["account"], account) for e in doc["entrants"]):
                    raise NotAllowed("you cannot join this tournament")
                if entrant["bot"] and not doc["bot_accounts"]:
                    raise KeptOut("this tournament keeps bot accounts out (bot_accounts: false)")
            if len(doc["entrants"]) >= doc["max_players"]:
                raise TournamentFull(f"the tournament takes {doc['max_players']} players (max_players)")
            entered = {**doc, "entrants": [*doc["entrants"], {**entrant, "withdrawn": False}]}
            if self.documents.swap(raw, entered):
                break
        if account is not None:
            self.client.zadd(keys.account_tournaments(account, "entered"), {tournament_id: doc["starts"]})
        return self.document(tournament_id)[1]

    def leave(self, tournament_id: str, account: str) -> dict[str, Any]:
        """Leave before the start (the maker removes the service's bots the same way: ``bot:...``)."""
        while True:
            raw, doc = self.document(tournament_id)
            if doc["status"] != OPEN:
                raise TournamentClosed(f"tournament {tournament_id} is {doc['status']}: withdraw instead")
            if not any(e["account"] == account for e in doc["entrants"]):
                raise NotEntered("you are not in this tournament")
            left = {**doc, "entrants": [e for e in doc["entrants"] if e["account"] != account]}
            if self.documents.swap(raw, left):
                break
        self.client.zrem(keys.account_tournaments(account, "entered"), tournament_id)
        return self.document(tournament_id)[1]

    def withdraw(self, tournament_id: str, account: str) -> dict[str, Any]:
        """Withdraw from a running tournament: no more pairings, and the game of the round under
        way is played out by the clock (its step, application/tournaments/rounds.py). Before the
        start, this is leaving."""
        raw, doc = self.document(tournament_id)
        if doc["status"] == OPEN:
            return self.leave(tournament_id, account)
        while True:
            if doc["status"] != RUNNING:
                raise TournamentClosed(f"tournament {tournament_id} is {doc['status']}")
            entrant = next((e for e in doc["entrants"] if e["account"] == account), None)
            if entrant is None or entrant["withdrawn"]:
                raise NotEntered("you are not playing in this tournament")
            round_ = current_round(doc)
            for table in round_["tables"] if round_ and round_["made"] else []:
                if account in table["players"] and table["places"] is None:
                    ask_end(self.service, tournament_id, table["game"])  # first: never forgotten
            entrants = [{**e, "withdrawn": True} if e["account"] == account else e for e in doc["entrants"]]
            if self.documents.swap(raw, {**doc, "entrants": entrants}):  # the document the game was read from
                return self.document(tournament_id)[1]
            raw, doc = self.document(tournament_id)  # changed meanwhile (a round made, say): look again

    # -- reading -------------------------------------------------------------------------------

    def get(self, tournament_id: str) -> dict[str, Any]:
        """The tournament, with its standings and each entrant's no-shows."""
        doc = self.document(tournament_id)[1]
        absent = pairing.absences(doc)
        entrants = [{**e, "no_shows": absent[e["id"]]} for e in doc["entrants"]]
        return {**doc, "entrants": entrants, "standings": pairing.standings(doc)}

    def listing(self, status: str | None = None, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """Tournaments, soonest start first (only those of ``status``, if given)."""
        ids = [text(i) for i in self.client.zrange(keys.TOURNAMENTS, 0, -1)]
        docs = [d for d in self.documents.read_many(ids) if status is None or d["status"] == status]
        return docs[offset : offset + limit]

    def entered(self, account: str) -> list[dict[str, Any]]:
        """The tournaments ``account`` joined, soonest start first."""
        ids = [text(i) for i in self.client.zrange(keys.account_tournaments(account, "entered"), 0, -1)]
        return self.documents.read_many(ids)

    def next_game(self, account: str) -> list[dict[str, Any]]:
        """Each running tournament's game of ``account`` in the round under way, not yet ended."""
        found = []
        for doc in self.entered(account):
            round_ = current_round(doc) if doc["status"] == RUNNING else None
            for table in round_["tables"] if round_ else []:
                if account in table["players"] and table.get("places") is None and round_ and round_["made"]:
                    found.append({"tournament": doc["id"], "round": round_["number"], "game": table["game"]})
        return found

    def document(self, tournament_id: str) -> tuple[str, dict[str, Any]]:
        """The stored document as read (the text a swap compares) and as JSON; NotFound if none."""
        found = self.documents.read(tournament_id)
        if found is None:
            raise NotFound(f"no tournament {tournament_id}")
        return found
