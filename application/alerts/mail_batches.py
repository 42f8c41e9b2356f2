"""One "your turn" mail for every game where it became the person's turn within their delay.

The first alert of a quiet spell opens a batch, due after the account's delay; later alerts join
it, one item per game: a game's later turn replaces its earlier one (a turn played and given back
within the delay is mailed as the turn it is now, not dropped as the stale one). Whichever alert job finds the batch due takes it, atomically, as the batch to send, under a
lease: a job that dies while sending lets the lease run out, and the next one sends the same
batch again with the same Message-ID (never lost; a receiver may drop the copy). A batch is
cleared only once sent, and then each of its alerts is marked with what became of it (``sent``,
or why not), so every alert job logs its own outcome, whichever job sent the mail. All of it lives in the account's slot (events/keys.py ``mail_batch``).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from events import keys

LEASE_MS = 30_000  #: how long a job may take to send a batch before another sends it again
JOINED_SECONDS = 7 * 24 * 3600  #: how long an alert's "joined" mark is kept (longer than any retry)

# KEYS: the batch hash, the alert's "joined" mark. ARGV: game, item JSON, due (ms) if this opens
# a batch, how long the mark lasts (s), the item's turn. An alert joins once: its retry finds the
# mark and does not add its game again to a later batch once the batch it joined was sent. The
# game's item is replaced unless the batch holds a later turn of it (an older alert's job that
# ran late).
JOIN = """
if redis.call('SET', KEYS[2], 1, 'NX', 'EX', tonumber(ARGV[4])) then
  local field = 'game:' .. ARGV[1]
  local kept = redis.call('HGET', KEYS[1], field)
  if not kept or tonumber(cjson.decode(kept)['turn']) <= tonumber(ARGV[5]) then
    redis.call('HSET', KEYS[1], field, ARGV[2])
  end
  redis.call('HSETNX', KEYS[1], 'due', ARGV[3])
end
return 1
"""

# KEYS: the batch hash. ARGV: now (ms), lease (ms), a new batch id.
# Returns the batch to send now (JSON: id, items), or '' with when to look again (ms, 0: never).
TAKE = """
local now, lease = tonumber(ARGV[1]), tonumber(ARGV[2])
local sending = redis.call('HGET', KEYS[1], 'sending')
if sending then
  local doc = cjson.decode(sending)
  if doc['until'] > now then return {'', doc['until']} end
  doc['until'] = now + lease
  redis.call('HSET', KEYS[1], 'sending', cjson.encode(doc))
  return {cjson.encode(doc), 0}
end
local due = tonumber(redis.call('HGET', KEYS[1], 'due'))
if not due then return {'', 0} end
if due > now then return {'', due} end
local flat = redis.call('HGETALL', KEYS[1])
local items = {}
for i = 1, #flat, 2 do
  if string.sub(flat[i], 1, 5) == 'game:' then
    table.insert(items, flat[i + 1])
    redis.call('HDEL', KEYS[1], flat[i])
  end
end
redis.call('HDEL', KEYS[1], 'due')
if #items == 0 then return {'', 0} end
local doc = {id = ARGV[3], items = items, ['until'] = now + lease}
redis.call('HSET', KEYS[1], 'sending', cjson.encode(doc))
return {cjson.encode(doc), 0}
"""

# KEYS: the batch hash, then each alert's outcome mark. ARGV: the batch id, how long the marks
# last (s), then each alert's outcome. The batch was sent (or had nothing to say): clear it and
# mark its alerts.
SENT = """
local sending = redis.call('HGET', KEYS[1], 'sending')
if not (sending and cjson.decode(sending)['id'] == ARGV[1]) then return 0 end
redis.call('HDEL', KEYS[1], 'sending')
for i = 2, #KEYS do redis.call('SET', KEYS[i], ARGV[i + 1], 'EX', tonumber(ARGV[2])) end
return 1
"""

#: What a mail batch did with an alert whose item a later alert of the same game replaced
REPLACED = "a later alert of this game took its place in the mail"


class MailBatches:
    def __init__(self, client: Any) -> None:
        self._client = client
        self._join = client.register_script(JOIN)
        self._take = client.register_script(TAKE)
        self._sent = client.register_script(SENT)

    def join(self, account: str, alert: str, item: dict[str, Any], due_ms: int) -> None:
        """Add the alert's item (its game's latest turn) to the account's batch (opening one due at
        ``due_ms``), once. The item carries the alert's id, so the batch's sender can mark it."""
        mark = keys.alert_sent(account, f"{alert}:mail-joined")
        item = {**item, "alert": alert}
        args = [item["game"], json.dumps(item), due_ms, JOINED_SECONDS, item["turn"]]
        self._join(keys=[keys.mail_batch(account), mark], args=args)

    def take(self, account: str, now_ms: int) -> tuple[dict[str, Any] | None, int]:
        """The batch to send now (id and items), or None and when it will be due (0: no batch)."""
        found, later = self._take(keys=[keys.mail_batch(account)], args=[now_ms, LEASE_MS, f"mail_{uuid.uuid4().hex}"])
        found = found.decode() if isinstance(found, bytes) else found
        if not found:
            return None, int(later)
        doc = json.loads(found)
        return {"id": doc["id"], "items": [json.loads(i) for i in doc["items"]]}, 0

    def sent(self, account: str, batch: str, outcomes: dict[str, str]) -> None:
        """The batch went out (or had nothing to say): clear it, marking each alert's outcome."""
        marks = [_outcome_mark(account, alert) for alert in outcomes]
        self._sent(keys=[keys.mail_batch(account), *marks], args=[batch, JOINED_SECONDS, *outcomes.values()])

    def outcome(self, account: str, alert: str) -> str:
        """What the sent batch did with the alert: ``sent``, or why it sent nothing for it."""
        found = self._client.get(_outcome_mark(account, alert))
        if found is None:
            return REPLACED
        return found.decode() if isinstance(found, bytes) else str(found)


def _outcome_mark(account: str, alert: str) -> str:
    return keys.alert_sent(account, f"{alert}:mail-outcome")
