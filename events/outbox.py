"""Claiming the outbox: the work that appended events asked for, leased to one dispatcher at a
time.

The append script writes named entries (a payload, due at a time) with the events that cause
them (events/redis_store.py): a game's turn under the game's id, each webhook delivery under
its own name. A claim takes entries that are due and moves each one's due
time to the end of a lease, counting the claim; whoever claimed must hand the work on (enqueue
a job) before the lease ends, and the job renews the lease while it works. If the claimer or
the job dies, the lease runs out and the next claim takes the entry again. An entry leaves the
outbox only when a later append replaces or clears it: when the work is done, the events say so.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import keys

#: How long a claim or a renewal holds an entry: a job that stops renewing for this long (its
#: worker killed, say) has its work claimed again. A bot's command takes well under a second.
#: The service hands in its setting, BLUEMOON_TURN_LEASE_MS (application/settings.py), whose default this is.
LEASE_MS = 10_000

# KEYS: payloads, due, tries. ARGV: now (ms), lease (ms), limit, entry name ('' for any due entry),
# then pairs of a name prefix and its own lease (ms): an entry whose name begins with one is leased for that.
CLAIM = """
local now, lease, limit, only = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local function lease_of(name)
  for i = 5, #ARGV, 2 do
    if string.sub(name, 1, #ARGV[i]) == ARGV[i] then return tonumber(ARGV[i + 1]) end
  end
  return lease
end
local games
if only ~= '' then
  local due = redis.call('ZSCORE', KEYS[2], only)
  if due and tonumber(due) <= now then games = {only} else games = {} end
else
  games = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, limit)
end
local out = {}
for _, game in ipairs(games) do
  redis.call('ZADD', KEYS[2], now + lease_of(game), game)
  local tries = redis.call('HINCRBY', KEYS[3], game, 1)
  table.insert(out, game)
  table.insert(out, redis.call('HGET', KEYS[1], game) or '')
  table.insert(out, tries)
end
return out
"""

# KEYS: payloads, due, tries. ARGV: name, payload the renewer works for, new due (ms), tries
# ('' to keep). Only the same payload is renewed: a newer one belongs to newer work.
RENEW = """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZADD', KEYS[2], tonumber(ARGV[3]), ARGV[1])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[4]) end
return 1
"""


# A script's first lines that end one try of an entry: KEYS[1..3] payloads, due, tries; ARGV[1]
# the name, ARGV[2] the payload the try worked for, ARGV[3] (if given and not '') when the next try
# is due (ms), else the work is over and the entry removed. Only while the entry still holds that
# payload (``settled``): a newer one belongs to newer work. Scripts that must end the try in the
# same step as writes of their own in the entry's slot begin with it (workers/webhook_delivery.py).
SETTLE_TRY = """
local settled = redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2]
if settled then
  if (ARGV[3] or '') == '' then
    redis.call('HDEL', KEYS[1], ARGV[1])
    redis.call('ZREM', KEYS[2], ARGV[1])
    redis.call('HDEL', KEYS[3], ARGV[1])
  else
    redis.call('ZADD', KEYS[2], tonumber(ARGV[3]), ARGV[1])
  end
end
"""

# KEYS: payloads, due, tries. ARGV: name, payload. Removes the entry if it still holds payload.
FINISH = SETTLE_TRY + "return settled and 1 or 0"


# KEYS: payloads, due, tries. ARGV: name, payload expected, new payload, due (ms). The same work
# rescheduled (a deadline moved by a vacation): only if the entry still holds the expected payload.
REPLACE = """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], tonumber(ARGV[4]), ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
"""


# KEYS: payloads, due, tries. ARGV: name, payload, due (ms), '1' to replace. Work asked for outside
# an append (a webhook's test delivery, a redelivery): written (1) unless an entry of that name is
# there and is not to be replaced (0). Its tries start again.
ADD = """
if ARGV[4] ~= '1' and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(ARGV[3]), ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
"""


@dataclass(frozen=True)
class Claim:
    name: str
    payload: str
    tries: int  #: 1 for the first claim of this payload, 2 when it is claimed again, ...


def now_ms() -> int:
    return int(time.time() * 1000)


class Outbox:
    def __init__(self, client: Any, lease_ms: int = LEASE_MS, leases: Mapping[str, int] | None = None) -> None:
        """``leases``: the lease of entries whose names begin with a prefix (a kind of work's,
        application/background/work.py); under "" that of the others, instead of ``lease_ms``."""
        self.client = client
        self.lease_ms = (leases or {}).get("", lease_ms)
        self.leases = {prefix: ms for prefix, ms in (leases or {}).items() if prefix and ms != self.lease_ms}
        self._lease_args = [value for pair in self.leases.items() for value in pair]
        self._claim = client.register_script(CLAIM)
        self._renew = client.register_script(RENEW)
        self._finish = client.register_script(FINISH)
        self._replace = client.register_script(REPLACE)
        self._add = client.register_script(ADD)

    def claim(self, name: str | None = None, limit: int = 100) -> list[Claim]:
        """Lease the entries that are due: only the entry ``name``, if given, else up to ``limit``
        per shard, shard by shard (each claim is one script on one shard's slot)."""
        if name is not None:
            return self._claim_in(keys.outbox_of(name), name, limit)
        return [claim for shard in range(keys.SHARDS) for claim in self._claim_in(keys.outbox(shard), "", limit)]

    def _claim_in(self, outbox: list[str], name: str, limit: int) -> list[Claim]:
        flat = self._claim(keys=outbox, args=[now_ms(), self.lease_ms, limit, name, *self._lease_args])
        claims = []
        for i in range(0, len(flat), 3):
            entry, payload = (v.decode() if isinstance(v, bytes) else v for v in flat[i : i + 2])
            if payload:
                claims.append(Claim(entry, payload, int(flat[i + 2])))
        return claims

    def renew(self, name: str, payload: str, tries: int | None = None, due_ms: int | None = None) -> bool:
        """Hold the entry for another lease while working on it (or until ``due_ms``: a retry
        later); False when the entry no longer holds that payload (the work is over). ``tries``
        resets the claim count (a claim that found the previous job still waiting hands it back)."""
        due = now_ms() + self.lease_of(name) if due_ms is None else due_ms
        return bool(self._renew(keys=keys.outbox_of(name), args=[name, payload, due, "" if tries is None else tries]))

    def lease_of(self, name: str) -> int:
        """How long a claim or a renewal holds the entry ``name``."""
        return next((ms for prefix, ms in self.leases.items() if name.startswith(prefix)), self.lease_ms)

    def replace(self, name: str, payload: str, new_payload: str, due_ms: int) -> bool:
        """Reschedule the entry with a new payload, if it still holds ``payload``."""
        return bool(self._replace(keys=keys.outbox_of(name), args=[name, payload, new_payload, due_ms]))

    def add(self, name: str, payload: str, due_ms: int, replace: bool = False) -> bool:
        """Ask for work outside an append, unless the entry ``name`` is there already (False);
        with ``replace``, in its place: a job at work on the old payload can then neither renew
        nor finish the new one."""
        return bool(self._add(keys=keys.outbox_of(name), args=[name, payload, due_ms, "1" if replace else ""]))

    def finish(self, name: str, payload: str) -> bool:
        """The work is done: remove the entry, if it still holds ``payload``."""
        return bool(self._finish(keys=keys.outbox_of(name), args=[name, payload]))
