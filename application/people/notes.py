"""Private notes: what a person keeps on another player or on a game, for themselves alone
(as Lichess and OGS have them). A note is plain text, never markup: the page writes it as text,
and it may hold line breaks but no other control character and no invisible formatting (bidi
overrides and isolates, zero-width spaces: application/accounts/shown_text.py's set), so that
what the author reads back is what they typed. Every note of an author is one hash in the
author's slot; no other account's read reaches it."""

from __future__ import annotations

import json
from typing import Any

from application.accounts.shown_text import hidden_characters
from application.refusals import ServiceError
from events import keys
from events.redis_store import RedisStore
from events.serialization import now

#: The longest note, in characters (a documented limit).
MOST_NOTE_CHARACTERS = 2000
#: The most notes one account may keep, on players and games together (a documented quota):
#: at most about 8 MB of one account's notes in Redis (2,000 characters of up to 4 bytes each).
MOST_NOTES = 1000
#: What a note may be about.
SUBJECTS = ("player", "game")


class TooManyNotes(ServiceError):
    status, code, title = 409, "too_many_notes", "You keep as many notes as one may"


def refused_characters(note: str) -> list[str]:
    """The characters a note may not hold, as ``U+XXXX``: those a name may not hold, but a line
    break (LF) is let through."""
    return hidden_characters(note.replace("\n", ""))


class Notes:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client

    def get(self, author: str, subject: str, about: str) -> dict[str, Any]:
        """The author's note on the subject (``player`` or ``game``); one never kept is empty
        (``updated`` null), so that a page asks without meeting an error."""
        found = self.client.hget(keys.notes(author), _field(subject, about))
        kept = json.loads(found) if found is not None else {"text": "", "updated": None}
        return {"subject": subject, "about": about, **kept}

    def put(self, author: str, subject: str, about: str, note: str) -> dict[str, Any]:
        """Keep ``note`` (replacing the one kept); refused past MOST_NOTE_CHARACTERS, with a
        refused character, or past MOST_NOTES. An empty note is kept as one."""
        if len(note) > MOST_NOTE_CHARACTERS:
            raise ServiceError(f"text: at most {MOST_NOTE_CHARACTERS} characters", field="text")
        if hidden := refused_characters(note):
            raise ServiceError(
                f"text: no control or invisible formatting characters but line breaks (found {', '.join(hidden)})",
                field="text",
            )
        key, field = keys.notes(author), _field(subject, about)
        if not self.client.hexists(key, field) and self.client.hlen(key) >= MOST_NOTES:
            raise TooManyNotes(f"at most {MOST_NOTES} notes: delete one first", limit="MOST_NOTES")
        kept = {"text": note, "updated": now()}
        self.store.durably(key, lambda c: c.hset(key, field, json.dumps(kept, ensure_ascii=False)))
        return {"subject": subject, "about": about, **kept}

    def delete(self, author: str, subject: str, about: str) -> None:
        key = keys.notes(author)
        self.store.durably(key, lambda c: c.hdel(key, _field(subject, about)))

    def forget(self, author: str) -> None:
        """Every note of ``author`` goes (the account's deletion)."""
        key = keys.notes(author)
        self.store.durably(key, lambda c: c.delete(key))

    def count(self, author: str) -> int:
        return int(self.client.hlen(keys.notes(author)))


def _field(subject: str, about: str) -> str:
    assert subject in SUBJECTS, subject
    return f"{subject}:{about}"
