"""The games use case: create a game, take its seats, play a command exactly once.

It is the only caller of ``decide`` (``decide_and_apply``) outside tests and bots, and it owns what is not a rule
of the game: seat tokens and invites, idempotency keys, the index, and the work the events
start (a bot's turn, a deadline, webhook deliveries), written with them to the outbox and
handed to the workers (application/background/handoff.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from application.background.handoff import Dispatcher, Handoff
from application.background.turns import TurnTicket
from application.background.work import WORK
from application.games import clocks, command_ids
from application.games.clocks import Clocks
from application.games.codec import command_to_json
from application.games.fair_setup import refuse_unfair_setup
from application.games.reads import GameRead, GameReader
from application.games.repository import GameRepository
from application.games.views import ViewMemo
from application.outbound import webhooks as webhooks
from application.reactions import Change, Write, writes
from application.refusals import Forbidden, GameOver, NotFound, SeatTaken, Unauthorized
from application.telemetry.metrics import command_applied
from domain import Command, Event, Game, Options, fold, new_game
from domain.city import Cell
from domain.decide import decide_and_apply
from domain.scenario import Position, scenario_game
from events import keys
from events.outbox import Outbox, now_ms
from events.projection import GameIndex, seat_names
from events.redis_store import RedisStore, command_record, text
from events.serialization import StoredEvent, now
from events.store import (
    Appended,
    IdempotencyConflict,
    IndexWrite,
    OutboxWrite,
    WrongExpectedVersion,
)

log = logging.getLogger("bluemoon.games")
NOT_A_SEAT = "the token is not a seat of this game"
KEY_DIGEST_DIGITS = 16  #: hex digits of an Idempotency-Key's SHA-256 an event's meta shows (64 bits)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class SeatSpec:
    """A seat as requested at creation: ``human`` (token returned now), ``open`` (an invite
    to pass on) or ``bot`` with a level."""

    kind: str
    name: str | None = None
    level: str | None = None
    account: str | None = None  #: the person who holds a human seat of a game made from an open game
    token: str | None = None  #: a human seat's token digest made beforehand (a rematch's accepting seat)
    invite: str | None = None  #: an open seat's invite digest made beforehand (a retried create's)


@dataclass(frozen=True)
class Created:
    game: str
    version: int
    seats: list[dict[str, Any]]


@dataclass(frozen=True)
class Outcome:
    """What a command did: its events, and the state right after them."""

    events: list[StoredEvent]
    state: Game
    duplicate: bool
    settings: dict[str, Any] | None = None  #: the game's settings, when already fetched


# KEYS: the game's meta. ARGV: the seats document read, the one to write. Writes only if the
# document is still the one read (1), else nothing (0): the caller reads again and retries.
SWAP_SEATS = """
if redis.call('HGET', KEYS[1], 'seats') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'seats', ARGV[2])
return 1
"""

# KEYS: the game's meta. ARGV: its fields and values. Writes them only if the game has no meta yet.
NEW_META = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


class GameService:
    def __init__(
        self,
        client: Any,
        store: RedisStore,
        handoff: Handoff | None = None,
        on_append: Callable[[str, list[StoredEvent]], None] | None = None,
    ) -> None:
        self.client = client
        self.store = store
        self.games = GameRepository(store)
        self.reader = GameReader(client, archive=store.archive)
        self.views = ViewMemo()
        self.index = GameIndex(client, store.archive)
        self.outbox = Outbox(client, leases=WORK.leases())
        self.dispatcher = Dispatcher(self.outbox, handoff)
        self._swap_seats = client.register_script(SWAP_SEATS)
        self._new_meta = client.register_script(NEW_META)
        self.on_append = on_append  #: told of every append (the live feed of this process)
        self.clocks = Clocks(store)

    # -- creation and seats ---------------------------------------------------------------

    def create(
        self,
        options: Options,
        seats: list[SeatSpec],
        *,
        grid: dict[str, Cell] | None = None,
        deck: list[str] | None = None,
        first_player: int | None = None,
        turn_deadline: int | None = None,
        deadline_level: str | None = None,
        scenario: Position | None = None,
        rated: bool = False,
        origin: dict[str, Any] | None = None,
        game: str | None = None,
        clock: dict[str, int] | None = None,
    ) -> Created:
        """A new game. ``rated``: a finished game rates its seats (application/lobby/ratings.py);
        ``origin``: where it came from (its open game, or the game it is a rematch of);
        ``game``: an id chosen beforehand, so that a retried start makes the same game."""
        refuse_unfair_setup(seats, rated, grid=grid, deck=deck, first_player=first_player, scenario=scenario)
        game = game or uuid.uuid4().hex
        seed = os.urandom(32)
        if scenario is not None:
            events = scenario_game(options, seed, scenario, grid=grid)
        else:
            events = new_game(options, seed, grid=grid, deck=deck, first_player=first_player)
        public: list[dict[str, Any]] = []
        stored_seats: list[dict[str, Any]] = []
        tokens: dict[str, str] = {}
        for seat, spec in enumerate(seats):
            entry: dict[str, Any] = {"seat": seat, "kind": spec.kind, "name": spec.name, "level": spec.level}
            shown = dict(entry)
            if spec.account:
                entry["account"] = spec.account
            if spec.kind == "human" and spec.token:
                entry["token"] = spec.token
                tokens[spec.token] = f"{game}:{seat}"
            elif spec.kind == "human":
                token = secrets.token_urlsafe(32)
                entry["token"] = digest(token)
                tokens[entry["token"]] = f"{game}:{seat}"
                shown["token"] = token
            elif spec.kind == "open" and spec.invite:
                entry["invite"] = spec.invite
            elif spec.kind == "open":
                invite = secrets.token_urlsafe(24)
                entry["invite"] = digest(invite)
                shown["invite"] = invite
            stored_seats.append(entry)
            public.append(shown)
        meta = {
            "created": json.dumps(now()),
            "seats": json.dumps(stored_seats),
            "turn_deadline": json.dumps(turn_deadline),
            "deadline_level": json.dumps(deadline_level),
            "rated": json.dumps(rated),
            "origin": json.dumps(origin),
            "clock": json.dumps(clock),
        }
        # written unless there (a game whose id was chosen beforehand may be made by two at once, or
        # again after a crash): the first's seats stand, and the append below makes the game once
        key, fields = keys.meta(game), [part for pair in meta.items() for part in pair]
        self.store.durably(key, lambda c: self._new_meta(keys=[key], args=fields, client=c))
        for hashed, owner in tokens.items():
            self._record_owner(hashed, owner)
        state = fold(events)
        held = {seat: spec.account for seat, spec in enumerate(seats) if spec.account}
        settings = {
            **{k: json.loads(v) for k, v in meta.items()},
            "webhooks": [],
            "accounts": held,
            "clocks": clocks.read({}),
        }
        at = now_ms()
        for seat, account in held.items():  # a person already away: the new game's clock waits too
            span = clocks.current_away(self.client, account, at)
            if span is not None:
                self.clocks.set_away(game, seat, span)
                settings["clocks"]["away"][seat] = span
        outbox: list[OutboxWrite] = []
        appended = self.store.append(
            game,
            0,
            events,
            actor="system",
            command_id="create",
            command_hash="create",
            writes_for=self._reactions(game, events, None, state, settings, outbox),
            index=self._summary(game, state, settings),
        )
        if appended.duplicate:  # made already, by the other of two at once (or before a crash)
            return Created(game, appended.last, public)
        self._dispatch_due(outbox)
        return Created(game, state.version, public)

    def seats(self, game: str) -> list[dict[str, Any]]:
        return self.settings(game)["seats"]

    def public_seats(self, game: str, seats: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """Seats as anyone may see them: no token or invite hashes."""
        return [
            {
                "seat": s["seat"],
                "kind": s["kind"],
                "name": s.get("name"),
                "level": s.get("level"),
                "open": s["kind"] == "open",
            }
            for s in (seats if seats is not None else self.seats(game))
        ]

    def join(self, game: str, seat: int, invite: str, name: str | None, token: str | None = None) -> str:
        """Take an open seat with its invite; returns the seat's token (shown only now). ``token``:
        one chosen beforehand (a retried request's, application/retries.py): a seat it holds already
        is this request's own, taken by an earlier copy, and answered again."""
        seats = self.seats(game)
        if not 0 <= seat < len(seats):
            raise NotFound(f"no seat {seat} in game {game}")
        entry = seats[seat]
        if token is not None and self._holds(entry, token):
            return self._seated(game, seat, token, seats)
        if entry["kind"] != "open":
            raise SeatTaken(f"seat {seat} is not open")
        if not secrets.compare_digest(entry.get("invite", ""), digest(invite)):
            raise Forbidden("the invite does not match this seat")
        if self.state(game).finished:  # an open seat of an ended game is no one's to take
            raise GameOver(f"game {game} has ended: its seat {seat} can no longer be taken")
        token = token or secrets.token_urlsafe(32)
        # compare-and-set on the seats document so two joiners cannot both win (a script, not
        # WATCH: one key, so it runs on a cluster as on one Redis)
        while True:
            before = self.client.hget(keys.meta(game), "seats")
            current = json.loads(before)
            if self._holds(current[seat], token):  # a copy of this request won: the seat is ours
                break
            if current[seat]["kind"] != "open":
                raise SeatTaken(f"seat {seat} was just taken")
            current[seat] = {"seat": seat, "kind": "human", "name": name, "level": None, "token": digest(token)}
            if self._swap(game, before, json.dumps(current)):
                break
        return self._seated(game, seat, token, current)

    @staticmethod
    def _holds(entry: dict[str, Any], token: str) -> bool:
        return entry["kind"] == "human" and secrets.compare_digest(entry.get("token") or "", digest(token))

    def _seated(self, game: str, seat: int, token: str, seats: list[dict[str, Any]]) -> str:
        """What a join does once the seat is the token's (again, for a retry: the same writes)."""
        self._record_owner(digest(token), f"{game}:{seat}")
        self.index.rename(game, seat_names(seats))
        return token

    def _swap(self, game: str, before: str, after: str) -> bool:
        """Replace the game's seats if they are still ``before`` (a join racing another)."""
        meta = keys.meta(game)
        return bool(self.store.durably(meta, lambda c: self._swap_seats(keys=[meta], args=[before, after], client=c)))

    def _record_owner(self, token_digest: str, owner: str) -> None:
        """A seat token's ``game:seat``, under one key per token (each in its own slot)."""
        key = keys.token(token_digest)
        self.store.durably(key, lambda c: c.set(key, owner))

    def seat_of(self, game: str, token: str | None) -> int:
        """The seat a token plays in ``game``; 401 without a token, 403 for another game's."""
        if not token:
            raise Unauthorized("send 'Authorization: Bearer <seat token>'")
        found = self.client.get(keys.token(digest(token)))
        if found is None and (archive := self.store.moved(game)) is not None:  # a seat of a game moved there
            found = archive.owners([digest(token)]).get(digest(token))
        return self._seat_from(game, found)

    def access(self, game: str, token: str | None) -> tuple[int | None, dict[str, Any]]:
        """``token``'s seat in ``game`` (None without a token) and the game's settings, in one
        round trip; 404 for an unknown game, 403 for a token that is not this game's."""
        read = self.read(game, token)
        return read.seat, read.settings

    def read(self, game: str, token: str | None, key: str | None = None, sender: str | None = None) -> GameRead:
        """What a request on ``game`` needs, in one round trip (application/games/reads.py):
        ``token``'s seat, the settings, the events after the state this process kept, and the
        records of the Idempotency-Key ``key`` as ``sender`` sent it (command_ids.scoped), or as
        any seat did when the sender is not known yet. 404 for an unknown game, 403 for a token
        that is not this game's."""
        kept = self.games.kept(game)
        ids = ([command_ids.scoped(sender, key)] if sender else command_ids.of_any_seat(key)) if key else []
        found = self.reader.read(
            game, keys.token(digest(token)) if token else None, ids, kept.version if kept is not None else None
        )
        settings = self._settings_from(game, found.meta, found.webhooks, found.accounts, found.clock)
        settings["pending_turn"] = TurnTicket.from_payload(found.pending) if found.pending else None
        seat = self._seat_from(game, found.owner) if token else None
        records = {command_id: command_record(seen) for command_id, seen in found.seen.items()}
        state = self.games.advanced(game, kept, found.events) if kept is not None else None
        return GameRead(seat, settings, state, records)

    @staticmethod
    def _seat_from(game: str, found: Any) -> int:
        """A token that is not one of this game's seats gets one answer, whether it is
        unknown or another game's: the answer must not tell that a token is valid elsewhere."""
        owner, _, seat = (found.decode() if isinstance(found, bytes) else found or "").rpartition(":")
        if owner != game:
            raise Forbidden(NOT_A_SEAT)
        return int(seat)

    def games_of(self, tokens: list[str]) -> dict[str, int]:
        """game -> seat for each known token (the last token's seat, where two are of one game)."""
        return dict(self.seats_of(tokens))

    def seats_of(self, tokens: list[str]) -> list[tuple[str, int]]:
        """(game, seat) for each known token, in the tokens' order."""
        with self.client.pipeline(transaction=False) as pipe:
            for token in tokens:
                pipe.get(keys.token(digest(token)))
            owners = pipe.execute()
        if self.store.archive is not None and None in owners:  # seats of games moved to the archive
            archived = self.store.archive.owners(digest(t) for t, o in zip(tokens, owners) if o is None)
            owners = [o if o is not None else archived.get(digest(t)) for t, o in zip(tokens, owners)]
        found = []
        for owner in owners:
            if owner is not None:
                game, seat = (owner.decode() if isinstance(owner, bytes) else owner).rsplit(":", 1)
                found.append((game, int(seat)))
        return found

    def settings(self, game: str) -> dict[str, Any]:
        """The game's settings (seats, deadline), under ``webhooks`` its webhooks and under
        ``accounts`` the accounts that keep its seats (seat -> account id)."""
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hgetall(keys.meta(game))
            pipe.hvals(keys.webhooks(game))
            pipe.hgetall(keys.seat_accounts(game))
            pipe.hgetall(keys.clock(game))
            raw, hooks, holders, clock = pipe.execute()
        if not raw and self.store.archive is not None and (parts := self.store.archive.parts(game)) is not None:
            raw, hooks, holders, clock = (
                parts["meta"],
                list(parts["webhooks"].values()),
                parts["accounts"],
                parts["clock"],
            )
        return self._settings_from(game, raw, hooks, holders, clock)

    @staticmethod
    def _settings_from(
        game: str, raw: dict[Any, Any], hooks: list[Any], holders: dict[Any, Any], clock: dict[Any, Any]
    ) -> dict[str, Any]:
        if not raw:
            raise NotFound(f"no game {game}")
        settings = {text(k): orjson.loads(v) for k, v in raw.items()}  # orjson: a read's dozen small documents
        settings["webhooks"] = [orjson.loads(h) for h in hooks]
        settings["accounts"] = {int(text(seat)): text(account) for seat, account in holders.items()}
        settings["clocks"] = clocks.read(clock)
        return settings

    # -- reading --------------------------------------------------------------------------

    def state(self, game: str, read: GameRead | None = None) -> Game:
        """The game's current state: as ``read`` brought it up to date, else loaded now."""
        state = read.state if read is not None and read.state is not None else self.games.load(game)
        if state is None:
            raise NotFound(f"no game {game}")
        return state

    def state_at(self, game: str, version: int) -> Game:
        state = self.games.state_at(game, version)
        if state is None:
            raise NotFound(f"no game {game}")
        return state

    # -- playing --------------------------------------------------------------------------

    def recorded(self, game: str, key: str, sender: str, read: GameRead | None = None) -> tuple[str, Appended] | None:
        """The record of ``sender``'s ``key`` (its command's hash and outcome): as ``read``
        brought it, else read now."""
        command_id = command_ids.scoped(sender, key)
        if read is not None and command_id in read.records:
            return read.records[command_id]
        return self.store.command(game, command_id)

    def _confirmed(self, game: str, key: str, sender: str, read: GameRead | None = None) -> tuple[str, Appended] | None:
        """The record of ``sender``'s ``key``, once it is as durable as an append
        (EventStore.confirmed): a replay acknowledges its command, and the append that made the
        record may have been refused as unconfirmed (503) and be on no replica yet."""
        seen = self.recorded(game, key, sender, read)
        return self.store.confirmed(game, command_ids.scoped(sender, key), seen) if seen is not None else None

    def submit(
        self,
        game: str,
        command: Command,
        *,
        expected: int | None,
        key: str | None,
        actor: str | None = None,
        sender: str | None = None,
        meta: str = "{}",
        settings: dict[str, Any] | None = None,
        read: GameRead | None = None,
    ) -> Outcome:
        """Apply ``command`` exactly once. A retried ``key`` returns the original outcome; the
        key is its ``sender``'s (command_ids): the command's seat unless a worker says it is
        its own. ``expected`` (the version the client played against) guards against lost
        updates. The work the events start (a bot's turn, a deadline) is written with them (the
        outbox). ``read``: what the request already read of the game (its settings, state and
        the record of ``key``), so that none of it is read again."""
        command_json = command_to_json(command)
        command_hash = digest(json.dumps([command.seat, command_json], sort_keys=True))
        sender = sender or str(command.seat)
        if read is not None:
            settings = read.settings
        if key and (seen := self._confirmed(game, key, sender, read)) is not None:
            return self._replay(game, key, command_hash, seen)
        state = self.state(game, read)
        if expected is not None and expected != state.version:
            raise WrongExpectedVersion(expected, state.version)
        events, new_state = decide_and_apply(state, command)
        settings = settings if settings is not None else self.settings(game)
        # every event records the command that caused it, so an audit can judge the command again
        # and a digest of the Idempotency-Key it came with, by which its sender knows it again
        sent_with = {"key_digest": digest(key)[:KEY_DIGEST_DIGITS]} if key else {}
        meta = json.dumps(
            {**json.loads(meta), "command": command_json, "seat": command.seat, "version": state.version, **sent_with}
        )
        outbox: list[OutboxWrite] = []
        try:
            appended = self.store.append(
                game,
                state.version,
                events,
                actor=actor or str(command.seat),
                command_id=command_ids.scoped(sender, key) if key else "",
                command_hash=command_hash,
                meta=meta,
                writes_for=self._reactions(game, events, state, new_state, settings, outbox),
                index=self._summary(game, new_state, settings, meta),
            )
        except WrongExpectedVersion:
            seen = self._confirmed(game, key, sender) if key else None
            if seen is not None:  # the same command raced itself: the other copy won
                return self._replay(game, key, command_hash, seen)  # type: ignore[arg-type]
            raise
        if appended.duplicate:
            return self._replay(game, key or "", command_hash, (command_hash, appended))
        stored = appended.stored
        command_applied(actor or str(command.seat))
        self.games.remember(game, new_state, state)
        if self.on_append is not None:
            self.on_append(game, stored)
        self._dispatch_due(outbox)
        turn = next((w for w in outbox if w.name == game), None)
        if turn is None:  # the turn goes on: its deadline stands
            pending = settings.get("pending_turn")
        else:
            pending = TurnTicket.from_payload(turn.payload) if turn.payload else None
        return Outcome(stored, new_state, duplicate=False, settings={**settings, "pending_turn": pending})

    def _replay(self, game: str, key: str, command_hash: str, seen: tuple[str, Any]) -> Outcome:
        recorded_hash, outcome = seen
        if recorded_hash != command_hash:
            raise IdempotencyConflict(f"Idempotency-Key {key} was used for a different command")
        self.dispatch(game)  # a retry re-ensures the work its command started
        return Outcome(
            self.store.read(game, after=outcome.first - 1, until=outcome.last),
            self.state_at(game, outcome.last),
            duplicate=True,
        )

    @staticmethod
    def _reactions(
        game: str,
        events: list[Event],
        before: Game | None,
        after: Game,
        settings: dict[str, Any],
        written: list[OutboxWrite],
    ) -> Callable[[list[StoredEvent]], list[Write]]:
        """The append's ``writes_for``: what the reactions (application/reactions/) make of the
        events as stored, written by the append with them; its outbox entries kept in
        ``written`` (to hand on what is due now)."""

        def react(stored: list[StoredEvent]) -> list[Write]:
            made = writes(Change(game, events, stored, before, after, settings))
            written[:] = [write for write in made if isinstance(write, OutboxWrite)]
            return made

        return react

    @staticmethod
    def _summary(game: str, state: Game, settings: dict[str, Any], meta: str | None = None) -> IndexWrite:
        """The game's index summary after an append, which writes it with its events (``meta``:
        the command's record, which says how a game it ends ended)."""
        return GameIndex.write(game, state, settings["created"], now(), seat_names(settings["seats"]), meta)

    def _dispatch_due(self, outbox: list[OutboxWrite]) -> None:
        """Hand the work due now that its kind hands on at once (a bot's turn, a rating) to the
        workers (application/background/work.py). The rest (webhooks, turn alerts) is left to a
        dispatcher, at most 0.2 s later: a command's answer and a bot's reply then cost the
        same however many webhooks listen."""
        due_by = now_ms()
        for write in outbox:
            if write.payload is not None and write.due_ms <= due_by and WORK.of(write.name).at_once:
                self.dispatch(write.name)

    def hand_on(self, writes: list[OutboxWrite]) -> None:
        """Write outbox entries made outside an append (a person's news, named so that a repeat
        names the same entry) and hand each on now."""
        for write in writes:
            self.outbox.add(write.name, write.payload or "", write.due_ms)
            self.dispatch(write.name)

    def dispatch(self, name: str | None = None) -> int:
        """Hand due outbox entries (only ``name``, if given) to the workers; returns how many."""
        return self.dispatcher.dispatch(name)
