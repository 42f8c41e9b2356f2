"""Open games: a table in the lobby that signed-in people join; its game starts when it is full.

A table is not a game yet: nothing is dealt until every human seat is taken, so a table that
never fills leaves no game behind, and a cancelled one changes no rating. Its record is one
JSON document under its own key (``{table:<id>}``); a join is a compare-and-set on it, so of
twenty people joining at once exactly the free seats are taken. The join that takes the last
seat chooses the game's id in the same write, and whoever reads a full table whose game is not
there yet makes it (the same id, so never twice). Unless it fills, a table closes after
``OPEN_GAME_SECONDS`` (7 days); its creator may cancel it sooner.

Bot accounts (application/accounts/bot_accounts.py) join only tables that let them in
(``bot_accounts``). Ruling: left out, a rated table keeps them out and an unrated one lets them
in: people who play for a rating expect to meet people unless they ask for bots, and an unrated
table is where a bot is a welcome sparring partner. Each seat notes whether its account is a bot
account (an account becomes one only while seated at no open table, so the note stays true).
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
import uuid
from dataclasses import dataclass
from typing import Any

import redis

from application import settings
from application.accounts.account_service import Accounts
from application.accounts.bot_accounts import is_bot
from application.games import sweeps
from application.games.game_service import GameService, SeatSpec
from application.lobby.ratings import Ratings
from application.people.relations import NotAllowed, Relations
from application.people.suspensions import Suspensions
from application.refusals import Forbidden, NotFound, ServiceError
from domain import Edition, Layout, Options
from events import keys
from events.projection import entry, page_of
from events.redis_store import RedisStore, text
from events.serialization import now

log = logging.getLogger("bluemoon.tables")
#: How long a table waits to fill before it is cancelled and its seats released.
OPEN_GAME_SECONDS = settings.OPEN_GAME_SECONDS.read()
#: Open games one account may have waiting in the lobby at once (600 of one account's slowed it 5x).
OPEN_GAMES_PER_ACCOUNT = settings.QUOTA_OPEN_GAMES_PER_ACCOUNT.read()

# KEYS: the table. ARGV: the document read, the one to write. Writes only if the document is
# still the one read (1), else nothing (0): the caller reads again and decides again.
SWAP = """
if redis.call('HGET', KEYS[1], 'doc') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'doc', ARGV[2])
return 1
"""


class TableClosed(ServiceError):
    status, code, title = 409, "open_game_closed", "The open game has started or was cancelled"


class TableFull(ServiceError):
    status, code, title = 409, "open_game_full", "Every seat of the open game is taken"


class AlreadySeated(ServiceError):
    status, code, title = 409, "already_seated", "You already have a seat at this open game"


class TooManyOpenGames(ServiceError):
    status, code, title = 429, "too_many_open_games", "You have as many open games as you may"


class BotAccountsKeptOut(ServiceError):
    status, code, title = 409, "bot_accounts_kept_out", "The open game keeps bot accounts out"


class OutOfRange(ServiceError):
    status, code, title = 409, "rating_out_of_range", "Your rating is outside the open game's range"


@dataclass(frozen=True)
class TableSpec:
    """An open game as asked for: the game's options, its bots, its clock, rated or not."""

    players: int
    edition: str = "cmon"
    expansion: bool = False
    bots: tuple[str, ...] = ()  #: the level of each bot seat
    rated: bool = True
    rating_range: tuple[float, float] | None = None  #: the shown ratings that may join
    turn_deadline: int | None = None
    deadline_level: str | None = None
    clock: dict[str, int] | None = None  #: a time bank (application/games/clocks.py), instead of a deadline
    bot_accounts: bool | None = None  #: whether bot accounts may join; None: unless rated (the ruling above)


class Tables:
    def __init__(self, store: RedisStore, service: GameService, accounts: Accounts, ratings: Ratings) -> None:
        self.store = store
        self.client = store.client
        self.service = service
        self.accounts = accounts
        self.ratings = ratings
        self.relations = Relations(store)
        self.suspensions = Suspensions(store)
        self._swap = self.client.register_script(SWAP)

    # -- opening and closing ------------------------------------------------------------------

    def open(self, creator: str, spec: TableSpec, table_id: str | None = None) -> dict[str, Any]:
        """A new table with its creator in the first seat; listed in the lobby until it closes.
        ``table_id``: an id chosen beforehand (a retried request's, application/retries.py): the
        table is made once, and opening it again answers the table as it is. A suspended
        account opens none."""
        self.suspensions.refuse_if_suspended(creator)
        self._check_range(creator, spec.rating_range)
        created = now()
        doc: dict[str, Any] = {
            "id": table_id or uuid.uuid4().hex,
            "creator": creator,
            "created": created,
            "closes": int(time.time() * 1000) + OPEN_GAME_SECONDS * 1000,
            "status": "open",
            "options": {"players": spec.players, "edition": spec.edition, "expansion": spec.expansion},
            "rated": spec.rated,
            "rating_range": list(spec.rating_range) if spec.rating_range else None,
            "turn_deadline": spec.turn_deadline,
            "deadline_level": spec.deadline_level,
            "clock": spec.clock,
            "bot_accounts": (not spec.rated) if spec.bot_accounts is None else spec.bot_accounts,
            "seats": [{"kind": "human", "account": creator, "name": self.accounts.display_name(creator)}]
            + [{"kind": "human", "account": None, "name": None}] * (spec.players - 1 - len(spec.bots))
            + [{"kind": "bot", "level": level, "name": None} for level in spec.bots],
            "game": None,
            "cancelled": None,
        }
        key = keys.table(doc["id"])
        if table_id is not None and (made := self.client.hget(key, "doc")) is not None:
            doc = json.loads(made)  # opened already, by this request's first copy
            if doc["status"] != "open":
                return doc
        if is_bot(self.client, creator):
            doc["seats"][0]["bot"] = True
        self._hold(creator, doc["id"], doc["closes"])
        self.store.durably(key, lambda c: c.hsetnx(key, "doc", json.dumps(doc)))
        doc = json.loads(self.client.hget(key, "doc"))  # the first copy's, where two opened it at once
        self._show(doc["id"])
        due = int(time.time() * 1000) + sweeps.UNSTARTED_GAME_SECONDS * 1000
        self.client.zadd(keys.LOBBY_UNSTARTED, {doc["id"]: due}, nx=True)
        try:
            self.sweep()  # opened and swept at one pace
        except redis.RedisError as error:  # housekeeping, which must not fail the opening
            log.warning("open games never started not swept: %s", error)
        return doc

    def sweep(self, limit: int = sweeps.SWEEP_BATCH) -> list[str]:
        """Remove the tables that never started and are due (UNSTARTED_GAME_SECONDS after they
        were opened): one still open is closed first. A started one is kept: it names its game."""
        due = self.client.zrangebyscore(keys.LOBBY_UNSTARTED, "-inf", int(time.time() * 1000), start=0, num=limit)
        removed = []
        for table_id in map(text, due):
            try:
                raw, doc = self._read(table_id)
                if doc["status"] == "open":
                    doc = self._close(table_id, raw, doc, "not filled in time")
            except (NotFound, TableClosed):  # gone already, or started meanwhile
                doc = {"status": "gone"}
            if doc["status"] != "started":
                self.client.delete(keys.table(table_id))
                removed.append(table_id)
            self.client.zrem(keys.LOBBY_UNSTARTED, table_id)
        return removed

    def _hold(self, creator: str, table_id: str, closes: int) -> None:
        """Count the table among its creator's open ones; 429 past OPEN_GAMES_PER_ACCOUNT. Added
        first and counted after, so that two opened at once cannot both pass the last place."""
        held, at = keys.account_open_games(creator), int(time.time() * 1000)
        with self.client.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(held, "-inf", at)  # those past their time close with no word to this set
            pipe.zadd(held, {table_id: closes})
            pipe.pexpire(held, OPEN_GAME_SECONDS * 1000)
            pipe.zcard(held)
            pipe.zrange(held, 0, 0, withscores=True)
            *_, count, first = pipe.execute()
        if count > OPEN_GAMES_PER_ACCOUNT:
            self.client.zrem(held, table_id)
            raise TooManyOpenGames(
                f"at most {OPEN_GAMES_PER_ACCOUNT} open games at once per account (QUOTA_OPEN_GAMES_PER_ACCOUNT): "
                "cancel one, or wait until one starts or closes",
                retry_after=max(1, -(-(int(first[0][1]) - at) // 1000)),
                limit="QUOTA_OPEN_GAMES_PER_ACCOUNT",
            )

    def _release(self, doc: dict[str, Any]) -> None:
        """The table no longer counts among its creator's open ones (it started or closed)."""
        self.client.zrem(keys.account_open_games(doc["creator"]), doc["id"])

    def cancel(self, table_id: str, account: str) -> dict[str, Any]:
        """The creator closes a table that has not started."""
        raw, doc = self._read(table_id)
        if doc["creator"] != account:
            raise Forbidden("only the person who opened the game may cancel it")
        return self._close(table_id, raw, doc, "by its creator")

    def _close(self, table_id: str, raw: str, doc: dict[str, Any], why: str) -> dict[str, Any]:
        while doc["status"] == "open":
            closed = {**doc, "status": "cancelled", "cancelled": why}
            if self._swapped(table_id, raw, closed):
                self._show(table_id)
                self._release(doc)
                return closed
            raw, doc = self._read(table_id)
        if doc["status"] != "cancelled":
            raise TableClosed(f"open game {table_id} has {doc['status']}")
        return doc

    # -- joining --------------------------------------------------------------------------

    def join(self, table_id: str, account: str, mark: str | None = None) -> dict[str, Any]:
        """Take a free seat; the join that takes the last one starts the game. ``mark``: the
        request's name (a retried request's, application/retries.py), kept in the seat, so that
        its copies find the seat theirs instead of refusing a second one. A suspended account
        takes no seat; nor does a person whom someone seated at the table (its creator first)
        blocks: they hear that they cannot, never why."""
        self.suspensions.refuse_if_suspended(account)
        rating = self.ratings.current(account).shown
        name = self.accounts.display_name(account)
        bot = is_bot(self.client, account)
        while True:
            raw, doc = self._read(table_id)
            if mark and any(s.get("account") == account and s.get("mark") == mark for s in doc["seats"]):
                if doc["status"] == "started":
                    self._start(doc)  # made already, unless the copy that filled the table stopped short
                return doc
            if doc["status"] == "open" and doc["closes"] <= time.time() * 1000:
                doc = self._close(table_id, raw, doc, "not filled in time")
            if doc["status"] != "open":
                raise TableClosed(f"open game {table_id} has {doc['status']}")
            if any(s.get("account") == account for s in doc["seats"]):
                raise AlreadySeated("you already have a seat at this open game")
            self._refuse_if_kept_away(doc, account)
            if bot and not doc.get("bot_accounts", True):  # (a table opened before bot accounts lets them in)
                raise BotAccountsKeptOut("this open game keeps bot accounts out (bot_accounts: false)")
            if doc["rating_range"] and not doc["rating_range"][0] <= rating <= doc["rating_range"][1]:
                low, high = doc["rating_range"]
                raise OutOfRange(f"your rating {rating:.1f} is outside {low:g} to {high:g}")
            free = next((i for i, s in enumerate(doc["seats"]) if s["kind"] == "human" and not s["account"]), None)
            if free is None:
                raise TableFull("every seat is taken")
            seats = list(doc["seats"])
            seats[free] = {
                "kind": "human",
                "account": account,
                "name": name,
                **({"mark": mark} if mark else {}),
                **({"bot": True} if bot else {}),
            }
            full = all(s["kind"] != "human" or s["account"] for s in seats)
            joined = {**doc, "seats": seats, **({"status": "started", "game": uuid.uuid4().hex} if full else {})}
            if self._swapped(table_id, raw, joined):
                break
        self._show(table_id)
        if full:
            self._release(joined)
            self._start(joined)
        return joined

    def _refuse_if_kept_away(self, doc: dict[str, Any], account: str) -> None:
        """NotAllowed when a person seated at the table blocks ``account``. Checked on the
        document each swap is made against, so a block given before a seat is taken keeps the
        blocked person out; one given later does not unseat them."""
        if any(s.get("account") and self.relations.blocks(s["account"], account) for s in doc["seats"]):
            raise NotAllowed("you cannot join this open game")

    def _start(self, doc: dict[str, Any]) -> None:
        """Make the table's game under the id its last join chose; a second call finds it made
        (and maybe moved to the archive since), and keeps the seats the first one did not."""
        game = doc["game"]
        if not self.store.version(game):
            self._make_game(doc, game)
        self.accounts.seat_all(game, {i: s["account"] for i, s in enumerate(doc["seats"]) if s.get("account")})

    def _make_game(self, doc: dict[str, Any], game: str) -> None:
        options = doc["options"]
        seats = [SeatSpec(s["kind"], s["name"], s.get("level"), account=s.get("account")) for s in doc["seats"]]
        self.service.create(
            Options(options["players"], Edition(options["edition"]), options["expansion"], Layout.STANDARD),
            seats,
            turn_deadline=doc["turn_deadline"],
            deadline_level=doc["deadline_level"],
            clock=doc.get("clock"),
            rated=doc["rated"],
            origin={"open_game": doc["id"]},
            game=game,
        )

    # -- reading --------------------------------------------------------------------------

    def get(self, table_id: str) -> dict[str, Any]:
        """The table; one past its time is closed now, and a full one's game made if missing."""
        raw, doc = self._read(table_id)
        if doc["status"] == "open" and doc["closes"] <= time.time() * 1000:
            return self._close(table_id, raw, doc, "not filled in time")
        if doc["status"] == "started":
            self._start(doc)
        return doc

    def lobby(
        self, edition: str | None, players: int | None, limit: int, after: str | None, bot_accounts: bool = True
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Open tables, newest first, a page at a time, of one edition or player count if asked,
        and without those a bot account sits at unless ``bot_accounts`` (``version``, asked first,
        has closed those past their time)."""
        listed = {}
        for raw in self.client.hvals(keys.LOBBY_SUMMARIES):
            doc = json.loads(raw)
            if (edition and doc["options"]["edition"] != edition) or (players and doc["options"]["players"] != players):
                continue
            if not bot_accounts and any(s.get("bot") for s in doc["seats"]):
                continue
            listed[entry(doc["id"], doc["created"])] = doc
        page = page_of(listed, limit, after)
        return page.games, page.next

    def version(self) -> int:
        """How many times the lobby changed: the lobby's ETag. Open games past their time are
        closed first, so that a poll that would be told nothing changed hears of them."""
        self._close_overdue()
        return int(self.client.get(keys.LOBBY_VERSION) or 0)

    def _close_overdue(self) -> None:
        for found in map(text, self.client.zrangebyscore(keys.LOBBY_OPEN, 0, int(time.time() * 1000))):
            with contextlib.suppress(NotFound, TableClosed):
                self.get(found)
            self._show(found)  # unlisted unless open (a table a stale write left listed too)

    def _read(self, table_id: str) -> tuple[str, dict[str, Any]]:
        raw = self.client.hget(keys.table(table_id), "doc")
        if raw is None:
            raise NotFound(f"no open game {table_id}")
        return text(raw), json.loads(raw)

    def _swapped(self, table_id: str, before: str, after: dict[str, Any]) -> bool:
        key = keys.table(table_id)
        return bool(
            self.store.durably(key, lambda c: self._swap(keys=[key], args=[before, json.dumps(after)], client=c))
        )

    def _show(self, table_id: str) -> None:
        """List the table as its document is now, or unlist it once it is not open, and read the
        document again after: a join or close that changed it meanwhile made the write stale
        (say, a join that listed its half-full table after the last seat's had unlisted it), so
        it is written again. The last writer's read-back sees the final document, so the lobby
        ends up showing it, whatever order the writes landed in."""
        key = keys.table(table_id)
        while True:
            raw = self.client.hget(key, "doc")
            doc = json.loads(raw) if raw is not None else None
            if doc is not None and doc["status"] == "open":
                self._list(doc)
            else:
                self._unlist(table_id)
            if self.client.hget(key, "doc") == raw:
                return

    def _list(self, doc: dict[str, Any]) -> None:
        with self.client.pipeline(transaction=False) as pipe:
            pipe.zadd(keys.LOBBY_OPEN, {doc["id"]: doc["closes"]})
            pipe.hset(keys.LOBBY_SUMMARIES, doc["id"], json.dumps(doc))
            pipe.incr(keys.LOBBY_VERSION)
            pipe.execute()

    def _unlist(self, table_id: str) -> None:
        with self.client.pipeline(transaction=False) as pipe:
            pipe.zrem(keys.LOBBY_OPEN, table_id)
            pipe.hdel(keys.LOBBY_SUMMARIES, table_id)
            pipe.incr(keys.LOBBY_VERSION)
            pipe.execute()

    def _check_range(self, creator: str, rating_range: tuple[float, float] | None) -> None:
        if rating_range is None:
            return
        low, high = rating_range
        rating = self.ratings.current(creator).shown
        if not low <= rating <= high:
            raise OutOfRange(f"your own rating {rating:.1f} is outside {low:g} to {high:g}")
