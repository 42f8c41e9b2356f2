"""Challenges that wait: one person asks another (or a bot account) for a game of two, and the
challenge stays until it is accepted, declined (with a reason), cancelled by its author or
expired (``CHALLENGE_SECONDS``, 7 days); accepting makes the game, with both seated.

A challenge is one hash in its own slot (``keys.challenge``): the facts (``doc``: who, whom, the
game's options), its ``status`` and its ``outcome``. Every answer is one script on that hash
(``ANSWER``): only an open challenge is answered, and one past its time can only expire, so of an
accept, a decline, a cancel and the expiry racing, exactly one happens, and an accept at the
moment it expires is either accepted or expired. The accept chooses the game's id in the same
write; whoever finds the challenge accepted and the game missing makes it under that id (so never
twice: application/games/game_service.py makes a game of a given id once).

What follows an answer (the people's news, the indexes, the pair's place) is written by whoever
answered and by anyone who finds it undone: each write is idempotent (a stream's entry by its
name, a set's member), so a crash in between heals on the next read or retry. The expiry is an
outbox entry due at the challenge's end (kind ``challenge``, application/background/work.py).

Limits: ``CHALLENGES_PER_ACCOUNT`` challenges waiting from one person at once (429 with
Retry-After), and one open challenge between two people, either way (409). Multi-person
challenges are out: a challenge is a game of two (an open game gathers more).
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import datetime
from typing import Any

from application import settings
from application.accounts.account_service import Accounts
from application.accounts.bot_accounts import is_bot
from application.alerts.entries import challenge_alert
from application.background.work import WORK
from application.games.game_service import GameService, SeatSpec
from application.people.relations import NotAllowed, Relations
from application.people.suspensions import Suspensions
from application.person_stream.entries import entries
from application.person_stream.news import challenge_news
from application.refusals import Forbidden, NotFound, ServiceError
from domain import Edition, Layout, Options
from events import keys
from events.redis_store import RedisStore, text
from events.serialization import now

#: How long a challenge waits for its answer (seconds).
CHALLENGE_SECONDS = settings.CHALLENGE_SECONDS.read()
#: Challenges one account may have waiting for an answer at once.
CHALLENGES_PER_ACCOUNT = settings.QUOTA_CHALLENGES_PER_ACCOUNT.read()
#: How long after a game of two ends its rematch is offered at the table; later, the other has left.
REMATCH_WINDOW_SECONDS = settings.REMATCH_WINDOW_SECONDS.read()
#: Why a challenge is declined: a short list, so a client can word it (the page does, in four languages).
REASONS = ("no_reason", "busy", "not_now", "clock", "options")
OPEN, ACCEPTED, DECLINED, CANCELLED, EXPIRED = "open", "accepted", "declined", "cancelled", "expired"
PREFIX = WORK["challenge"].prefix

# KEYS: the challenge. ARGV: the new status, its outcome (JSON), now (ms), the expired outcome (JSON).
# Answers an open challenge: one past its time only expires (whatever was asked), and an expiry
# asked for too early changes nothing. Returns the status and outcome there now.
ANSWER = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'', ''} end
if status ~= 'open' then return {status, redis.call('HGET', KEYS[1], 'outcome')} end
local due = tonumber(redis.call('HGET', KEYS[1], 'expires')) <= tonumber(ARGV[3])
local new, outcome = ARGV[1], ARGV[2]
if due then new, outcome = 'expired', ARGV[4] elseif new == 'expired' then return {'open', ''} end
redis.call('HSET', KEYS[1], 'status', new, 'outcome', outcome)
return {new, outcome}
"""

# KEYS: the challenge. ARGV: its document, when it expires (ms). Made once: a second copy of the
# request (the same id) finds it made and changes nothing.
CREATE = """
if redis.call('HSETNX', KEYS[1], 'doc', ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], 'status', 'open', 'expires', ARGV[2])
end
return 1
"""

# KEYS: the pair's place. ARGV: a challenge id. Frees the place if that challenge holds it.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class ChallengeToSelf(ServiceError):
    status, code, title = 422, "challenge_to_self", "You cannot challenge yourself"


class UnknownAccount(ServiceError):
    status, code, title = 422, "unknown_account", "There is no such account"


class TooManyChallenges(ServiceError):
    status, code, title = 429, "too_many_challenges", "You have as many challenges waiting as you may"


class ChallengeAlreadyOpen(ServiceError):
    status, code, title = 409, "challenge_already_open", "A challenge between you two is waiting already"


class ChallengeAnswered(ServiceError):
    status, code, title = 409, "challenge_answered", "The challenge was answered, cancelled or has expired"


def _ms() -> int:
    return int(time.time() * 1000)


class Challenges:
    def __init__(
        self,
        store: RedisStore,
        service: GameService,
        accounts: Accounts,
        relations: Relations,
        suspensions: Suspensions,
    ) -> None:
        self.store = store
        self.client = store.client
        self.service = service
        self.accounts = accounts
        self.relations = relations
        self.suspensions = suspensions
        self._answer = self.client.register_script(ANSWER)
        self._release = self.client.register_script(RELEASE)
        self._create = self.client.register_script(CREATE)

    # -- asking --------------------------------------------------------------------------------

    def create(
        self, challenger: str, challenged: str, game: dict[str, Any], challenge_id: str | None = None
    ) -> dict[str, Any]:
        """Challenge ``challenged`` to a game of two with ``game``'s options (edition, expansion,
        rated, turn_deadline, deadline_level, clock; ``rematch_of`` where it comes from a rematch).
        ``challenge_id``: chosen beforehand (a retried request's): made once, then answered as it is."""
        made = self._read(challenge_id) if challenge_id is not None else None
        if made is not None and made["from"]["account"] == challenger:
            return self._settled(made)
        self.suspensions.refuse_if_suspended(challenger)
        if challenged == challenger:
            raise ChallengeToSelf("you cannot challenge yourself", field="account")
        if not self.accounts.exists(challenged):
            raise UnknownAccount(f"no account {challenged}", field="account")
        if not self.relations.may_challenge(challenger, challenged):
            raise NotAllowed("you cannot challenge this person")
        at, made_id = _ms(), challenge_id or uuid.uuid4().hex
        doc: dict[str, Any] = {
            "id": made_id,
            "from": self._person(challenger),
            "to": self._person(challenged),
            "options": {"players": 2, "edition": game["edition"], "expansion": bool(game["expansion"])},
            "rated": bool(game["rated"]),
            "turn_deadline": game.get("turn_deadline"),
            "deadline_level": game.get("deadline_level"),
            "clock": game.get("clock"),
            "rematch_of": game.get("rematch_of"),
            "created": now(),
            "expires": at + CHALLENGE_SECONDS * 1000,
        }
        self._hold(doc, at)
        key, args = keys.challenge(made_id), [json.dumps(doc), doc["expires"]]
        self.store.durably(key, lambda c: self._create(keys=[key], args=args, client=c))
        made = self._read(made_id) or {}
        self.service.outbox.add(f"{PREFIX}{made_id}", made_id, made["expires"])  # its expiry, once
        self._tell(made, "received", [challenged])
        alert = challenge_alert(made)
        self.service.outbox.add(alert.name, alert.payload or "", alert.due_ms)
        return made

    def _person(self, account: str) -> dict[str, Any]:
        return {"account": account, "name": self.accounts.display_name(account), "bot": is_bot(self.client, account)}

    def _hold(self, doc: dict[str, Any], at: int) -> None:
        """Take the pair's one place and a place among the challenger's waiting challenges;
        refused (nothing kept) when either is taken. Added first and counted after, so that two
        challenges sent at once cannot both pass the last place."""
        challenger, challenged = doc["from"]["account"], doc["to"]["account"]
        pair = keys.challenge_pair(challenger, challenged)
        while not self.client.set(pair, doc["id"], nx=True, pxat=doc["expires"]):
            there = self.client.get(pair)
            if there is None or text(there) == doc["id"]:  # gone meanwhile, or this request's other copy
                if there is None:
                    continue
                break
            found = self._read(text(there))
            if found is not None and found["status"] == OPEN and found["expires"] > at:
                raise ChallengeAlreadyOpen(
                    f"one challenge at a time between two people: answer or cancel the waiting one, {found['id']}"
                )
            self._release_pair({**doc, "id": text(there)})  # an answered one's place, not yet released
        out = keys.account_challenges(challenger, "out")
        with self.client.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(out, "-inf", at)  # those past their time, expired or about to be
            pipe.zadd(out, {doc["id"]: doc["expires"]})
            pipe.zcard(out)
            pipe.zrange(out, 0, 0, withscores=True)
            *_, count, first = pipe.execute()
        if count > CHALLENGES_PER_ACCOUNT:
            self.client.zrem(out, doc["id"])
            self._release_pair(doc)
            raise TooManyChallenges(
                f"at most {CHALLENGES_PER_ACCOUNT} challenges waiting at once per account "
                "(QUOTA_CHALLENGES_PER_ACCOUNT): cancel one, or wait for an answer",
                retry_after=max(1, -(-(int(first[0][1]) - at) // 1000)),
                limit="QUOTA_CHALLENGES_PER_ACCOUNT",
            )
        self.client.zadd(keys.account_challenges(challenged, "in"), {doc["id"]: doc["expires"]})

    def rematch(self, game: str, seat: int, account: str | None, challenge_id: str) -> dict[str, Any] | None:
        """The rematch that ``seat`` (held by ``account``) offers, as a challenge when the other
        person has left: a game of two people, each seat held by an account, nobody has offered
        its rematch yet, and it ended more than REMATCH_WINDOW_SECONDS ago (lichess's rule: a
        rematch is offered at the board; once the other has gone, you challenge them). None
        otherwise: the rematch goes on as rematches do (application/lobby/rematches.py)."""
        state = self.service.state(game)
        settings_ = self.service.settings(game)
        held: dict[int, str] = settings_.get("accounts") or {}
        if account is None or not state.finished or len(settings_["seats"]) != 2 or len(held) != 2:
            return None
        if held.get(seat) != account or self.client.hlen(keys.rematch(game)):
            return None
        (last,) = self.store.read(game, after=state.version - 1)
        ended = datetime.fromisoformat(last.at.replace("Z", "+00:00")).timestamp()
        if time.time() - ended <= REMATCH_WINDOW_SECONDS:
            return None
        o = state.options
        asked = {
            "edition": o.edition.value,
            "expansion": o.expansion,
            "rated": bool(settings_.get("rated")),
            "turn_deadline": settings_.get("turn_deadline"),
            "deadline_level": settings_.get("deadline_level"),
            "clock": settings_.get("clock"),
            "rematch_of": game,
        }
        return self.create(account, held[1 - seat], asked, challenge_id=challenge_id)

    # -- answering -----------------------------------------------------------------------------

    def accept(self, challenge_id: str, account: str) -> dict[str, Any]:
        """The challenged person accepts: the game is made with both seated (challenger first).
        Accepting again (a retry, or two at once) answers the same game."""
        found = self._visible(challenge_id, account)
        if found["to"]["account"] != account:
            raise Forbidden("only the challenged person may accept a challenge")
        if found["status"] != ACCEPTED:
            self.suspensions.refuse_if_suspended(account)
            if self.relations.blocks(found["from"]["account"], account):
                raise NotAllowed("you cannot accept this challenge")
        return self._answered(found, ACCEPTED, {"by": account, "game": uuid.uuid4().hex})

    def decline(self, challenge_id: str, account: str, reason: str) -> dict[str, Any]:
        found = self._visible(challenge_id, account)
        if found["to"]["account"] != account:
            raise Forbidden("only the challenged person may decline a challenge; its author cancels it")
        return self._answered(found, DECLINED, {"by": account, "reason": reason})

    def cancel(self, challenge_id: str, account: str) -> dict[str, Any]:
        found = self._visible(challenge_id, account)
        if found["from"]["account"] != account:
            raise Forbidden("only the challenge's author may cancel it; the challenged person declines it")
        return self._answered(found, CANCELLED, {"by": account})

    def expire(self, challenge_id: str, at: int | None = None) -> dict[str, Any] | None:
        """Expire the challenge if it is open and due (at ``at``, ms; now by default): its
        outbox job's work, and any read's that finds it due. None for a challenge gone."""
        found = self._read(challenge_id)
        if found is None:
            return None
        if found["status"] != OPEN:
            return self._settled(found)
        return self._answer_now(found, EXPIRED, {}, at)

    def _answered(self, found: dict[str, Any], status: str, outcome: dict[str, Any]) -> dict[str, Any]:
        found = self._answer_now(found, status, outcome) if found["status"] == OPEN else self._settled(found)
        mine = found["status"] == status and found["outcome"].get("by") == outcome.get("by")
        if not mine:
            raise ChallengeAnswered(f"the challenge is {found['status']}")
        return found

    def _answer_now(
        self, found: dict[str, Any], status: str, outcome: dict[str, Any], at: int | None = None
    ) -> dict[str, Any]:
        key = keys.challenge(found["id"])
        stamp = now()
        args = [status, json.dumps({**outcome, "at": stamp}), at or _ms(), json.dumps({"at": stamp})]
        self.store.durably(key, lambda c: self._answer(keys=[key], args=args, client=c))
        return self._settled(self._read(found["id"]) or found)

    def _settled(self, found: dict[str, Any]) -> dict[str, Any]:
        """What an answer causes, done now if it is not yet (each write idempotent): the game of an
        accepted challenge, each person's news, the indexes and the pair's place released."""
        status = found["status"]
        if status == OPEN:
            return found
        if status == ACCEPTED:
            self._start(found)
        told = {
            ACCEPTED: [found["from"]["account"]],
            DECLINED: [found["from"]["account"]],
            CANCELLED: [found["to"]["account"]],
            EXPIRED: [found["from"]["account"], found["to"]["account"]],
        }[status]
        self._tell(found, status, told)
        self._release_pair(found)
        for account, way in ((found["from"]["account"], "out"), (found["to"]["account"], "in")):
            self.client.zrem(keys.account_challenges(account, way), found["id"])
        self.service.outbox.finish(f"{PREFIX}{found['id']}", found["id"])
        return found

    def _start(self, found: dict[str, Any]) -> None:
        """Make the accepted challenge's game under the id its acceptance chose; a second call
        finds it made, and keeps the seats the first one did not."""
        game = found["game"]
        people = (found["from"], found["to"])
        if not self.client.exists(keys.stream(game)):
            self._make_game(found, game, people)
        self.accounts.seat_all(game, {seat: p["account"] for seat, p in enumerate(people)})

    def _make_game(self, found: dict[str, Any], game: str, people: tuple[dict[str, Any], ...]) -> None:
        options = found["options"]
        origin = {"challenge": found["id"], **({"rematch_of": found["rematch_of"]} if found["rematch_of"] else {})}
        self.service.create(
            Options(2, Edition(options["edition"]), options["expansion"], Layout.STANDARD),
            [SeatSpec("human", p["name"], account=p["account"]) for p in people],
            turn_deadline=found["turn_deadline"],
            deadline_level=found["deadline_level"],
            clock=found["clock"],
            rated=found["rated"],
            origin=origin,
            game=game,
        )

    def _tell(self, found: dict[str, Any], kind: str, accounts: list[str]) -> None:
        news = {account: [challenge_news(kind, found, account)] for account in accounts}
        self.service.hand_on(entries(found["id"], kind, news))

    def _release_pair(self, found: dict[str, Any]) -> None:
        """The pair's place is free again, if this challenge holds it (a compare-and-delete)."""
        pair = keys.challenge_pair(found["from"]["account"], found["to"]["account"])
        self.store.durably(pair, lambda c: self._release(keys=[pair], args=[found["id"]], client=c))

    # -- reading -------------------------------------------------------------------------------

    def get(self, challenge_id: str, account: str) -> dict[str, Any]:
        """The challenge, to its two people only (anyone else: 404); one past its time expired now."""
        return self._visible(challenge_id, account)

    def _visible(self, challenge_id: str, account: str) -> dict[str, Any]:
        found = self._read(challenge_id)
        if found is None or account not in (found["from"]["account"], found["to"]["account"]):
            raise NotFound(f"no challenge {challenge_id}")
        if found["status"] == OPEN and found["expires"] <= _ms():
            found = self.expire(challenge_id) or found
        return found

    def waiting(self, challenge_id: str) -> bool:
        """Whether the challenge still waits for its answer (its alert is still news)."""
        found = self._read(challenge_id)
        return found is not None and found["status"] == OPEN and found["expires"] > _ms()

    def of(self, account: str) -> dict[str, list[dict[str, Any]]]:
        """The account's open challenges, newest first: ``incoming`` (none from a person it
        blocks) and ``outgoing``. Those past their time are expired on the way."""
        blocked = self.relations.blocked(account)
        listed: dict[str, list[dict[str, Any]]] = {}
        for way, name in (("in", "incoming"), ("out", "outgoing")):
            index = keys.account_challenges(account, way)
            shown = []
            for member, expires in self.client.zrange(index, 0, -1, withscores=True):
                challenge_id = text(member)
                found = self._read(challenge_id)
                if found is None:  # gone; or, before its time, still being made (listed first, then written)
                    if expires <= _ms():
                        self.client.zrem(index, challenge_id)
                    continue
                if found["status"] == OPEN and found["expires"] <= _ms():
                    found = self.expire(challenge_id) or found
                if found["status"] == OPEN and not (way == "in" and found["from"]["account"] in blocked):
                    shown.append(found)
            listed[name] = sorted(shown, key=lambda c: c["created"], reverse=True)
        return listed

    def _read(self, challenge_id: str) -> dict[str, Any] | None:
        """The challenge as one document (``status``, and the answer's ``reason``, ``game``,
        ``answered``), or None."""
        raw = {text(k): text(v) for k, v in self.client.hgetall(keys.challenge(challenge_id)).items()}
        if "doc" not in raw:
            return None
        outcome = json.loads(raw["outcome"]) if raw.get("outcome") else {}
        return {
            **json.loads(raw["doc"]),
            "expires": int(raw["expires"]),  # the field the answers' script reads
            "status": raw.get("status", OPEN),
            "outcome": outcome,
            "reason": outcome.get("reason"),
            "game": outcome.get("game"),
            "answered": outcome.get("at"),
        }
