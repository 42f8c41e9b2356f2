"""Who may read and write a game's chat rooms, and what a message may hold.

The seats write in ``seats``, a room only the seats read; anyone else signed in writes in
``spectators``, which everyone who may watch the game reads, the seats too. A message is plain
text, 1 to LONGEST_MESSAGE characters, without controls (a newline excepted) or the invisible
characters that reorder or hide text (application/accounts/shown_text.py). A person posts at most
CHAT_MESSAGES_PER_MINUTE messages a minute in one game. A person that a seat's account blocks
cannot write in the game's chat (they hear NotAllowed, not why), a suspended account cannot write
at all, and a reader never gets the words of someone they mute or block: not in a read, not live,
not by their seat's webhooks.

Chat is kept apart from the game's events (messages.py), so it never changes the audited log, and
it stays after the game's end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from application import counters
from application.accounts.shown_text import hidden_characters
from application.chat.messages import LONGEST_MESSAGE, ROOMS, ChatMessages
from application.chat.notices import ChatNotice
from application.outbound.webhooks import chat_deliveries
from application.people.relations import NotAllowed, Relations
from application.people.suspensions import Suspensions
from application.refusals import Forbidden, NotFound, ServiceError
from application.settings import CHAT_MESSAGES_PER_MINUTE
from events import keys
from events.outbox import Outbox
from events.redis_store import RedisStore

SEATS, SPECTATORS = ROOMS
WINDOW_S = 60  #: the window CHAT_MESSAGES_PER_MINUTE counts in


class ChatRateLimited(ServiceError):
    status, code, title = 429, "chat_rate_limited", "Too many chat messages in this game lately"


class NotYourMessage(ServiceError):
    status, code, title = 403, "not_your_message", "Only its author may delete a message"


@dataclass(frozen=True)
class Reader:
    """Who reads or writes: their seat in the game (None for a spectator), their account (None
    for a seat token without one), and the people whose words they do not want (muted, blocked)."""

    seat: int | None
    account: str | None
    unwanted: frozenset[str] = frozenset()

    @property
    def author(self) -> str:
        """Whose messages these are: the account, else the seat (a guest's seat token)."""
        return self.account if self.account is not None else f"seat:{self.seat}"

    def may_read(self, room: str) -> bool:
        return room == SPECTATORS or self.seat is not None

    def wants(self, author: str) -> bool:
        return author not in self.unwanted


def checked_text(words: Any) -> str:
    """The message's words, or a 422 naming the field ``text``."""
    if not isinstance(words, str) or not words.strip():
        raise ServiceError("text: write something (1 to 500 characters)", field="text", errors={"text": ["empty"]})
    if len(words) > LONGEST_MESSAGE:
        why = f"at most {LONGEST_MESSAGE} characters (this has {len(words)})"
        raise ServiceError(f"text: {why}", field="text", errors={"text": [why]})
    hidden = hidden_characters(words.replace("\n", ""))
    if hidden:
        why = f"control and invisible formatting characters are refused: {', '.join(hidden[:5])}"
        raise ServiceError(f"text: {why}", field="text", errors={"text": [why]})
    return words


class GameChat:
    def __init__(self, store: RedisStore, relations: Relations, suspensions: Suspensions) -> None:
        self.store = store
        self.messages = ChatMessages(store)
        self.relations = relations
        self.suspensions = suspensions

    def reader(self, seat: int | None, account: str | None, settings: dict[str, Any]) -> Reader:
        """The caller as a reader of the game's chat: a seat token's seat speaks for the account
        that holds it (its mutes are theirs)."""
        if account is None and seat is not None:
            account = settings.get("accounts", {}).get(seat)
        return Reader(seat, account, frozenset(self.unwanted(account)))

    def unwanted(self, account: str | None) -> set[str]:
        """Whose words ``account`` never gets: the people it mutes and those it blocks."""
        if account is None:
            return set()
        return self.relations.muted(account) | self.relations.blocked(account)

    # -- writing ---------------------------------------------------------------------------
    def post(
        self,
        game: str,
        room: str,
        writer: Reader,
        words: Any,
        settings: dict[str, Any],
        name: str = "",
        mark: str = "",
    ) -> dict[str, Any]:
        """Keep ``writer``'s message in ``room`` and send it to the seats' webhooks that want it.
        ``name``: a spectator's, shown beside it (a seat's is its seat's); ``mark``: a retried
        request's (application/retries.py), so that its message is made once."""
        _known(room)
        if writer.seat is None and room == SEATS:
            raise Forbidden("only the game's seats write in the seats' room; write in 'spectators'")
        if writer.seat is not None and room == SPECTATORS:
            raise Forbidden("a seat writes in the seats' room ('seats'); spectators write here")
        words = checked_text(words)
        self.suspensions.refuse_if_suspended(writer.account)
        if writer.account is not None:
            for holder in set(settings.get("accounts", {}).values()) - {writer.account}:
                if self.relations.blocks(holder, writer.account):
                    raise NotAllowed("you cannot write in this game's chat")
        self._count(game, writer)
        name = _name_of(writer, settings) if writer.seat is not None else name
        made = self.messages.add(game, room, writer.author, writer.seat, words, name=name, mark=mark)
        self._deliver(game, made, settings)
        return made

    def _count(self, game: str, writer: Reader) -> None:
        most = CHAT_MESSAGES_PER_MINUTE.read()
        key = f"{keys.tag(game)}:chat-rate:{game}:{writer.author}"
        found = counters.count(self.store.client, [(key, WINDOW_S)])[0]
        if found.total > most:
            raise ChatRateLimited(
                f"at most {most} chat messages a minute in one game (CHAT_MESSAGES_PER_MINUTE); wait Retry-After seconds",
                retry_after=max(1, -(-found.left_ms // 1000)),
                limit="CHAT_MESSAGES_PER_MINUTE",
            )

    def _deliver(self, game: str, made: dict[str, Any], settings: dict[str, Any]) -> None:
        """A ``chat.message`` delivery for each seat's webhook that asked for them, unless the
        seat's account mutes or blocks the author."""
        holders = settings.get("accounts", {})
        asked = [h for h in settings.get("webhooks", []) if h.get("chat")]
        wanted = [h for h in asked if made["author"] not in self.unwanted(holders.get(h["seat"]))]
        if not wanted:
            return
        outbox = Outbox(self.store.client)
        for write in chat_deliveries(game, wanted, _shown(made), self.store.version(game)):
            outbox.add(write.name, write.payload or "", write.due_ms)

    def delete(self, game: str, room: str, message: str, writer: Reader) -> None:
        """The author removes their message: every read shows it as deleted, without its words."""
        _known(room)
        found = self.messages.one(game, room, message) if _an_id(message) else None
        if found is None or not writer.may_read(room):
            raise NotFound(f"no message {message} in the room {room}")
        if found["author"] != writer.author:
            raise NotYourMessage("only its author may delete a message")
        if found["removed"] is None:
            self.messages.remove(game, message, "deleted", writer.author)

    # -- reading ---------------------------------------------------------------------------
    def read(self, game: str, room: str, reader: Reader, after: str, limit: int) -> dict[str, Any]:
        """A page of ``room`` after the message ``after`` (``-``: from the oldest kept), without
        the words of anyone ``reader`` does not want; ``next`` is the cursor for the page after."""
        _known(room)
        if not reader.may_read(room):
            raise Forbidden("only the game's seats read the seats' room")
        page = self.messages.read(game, room, after, limit)
        return {
            "room": room,
            "messages": [m for m in page if reader.wants(m["author"])],
            "next": page[-1]["id"] if page else (None if after == "-" else after),
            "more": len(page) == limit,
        }

    @staticmethod
    def visible(notices: Iterable[ChatNotice], reader: Reader) -> list[ChatNotice]:
        """The notices ``reader`` may have: in a room they read, about someone they want."""
        return [n for n in notices if reader.may_read(n.room) and reader.wants(n.author)]


def _shown(message: dict[str, Any]) -> dict[str, Any]:
    """A message as the API shows it (without the game, which its envelope names)."""
    return {k: v for k, v in message.items() if k != "game"}


def _known(room: str) -> None:
    if room not in ROOMS:
        raise NotFound(f"no room {room}: a game's rooms are {', '.join(ROOMS)}")


def _an_id(message: str) -> bool:
    number = message.removeprefix("0-")
    return message.startswith("0-") and number.isdigit() and len(number) <= 15


def _name_of(writer: Reader, settings: dict[str, Any]) -> str:
    """The name others see beside a seat's message: its seat's."""
    seats = settings.get("seats", [])
    seat = writer.seat if writer.seat is not None else len(seats)
    return str(seats[seat].get("name") or "") if seat < len(seats) else ""
