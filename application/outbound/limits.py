"""What every send to another party's server keeps to: webhooks, Web Push, Discord and Slack
messages, and mail.

A server that accepts the connection and never answers holds a delivery worker only for
``ANSWER_TIMEOUT``; one that does not even accept it, for ``CONNECT_TIMEOUT``. And a game, or
an account, may have at most so many deliveries a minute: past its budget a delivery is
deferred to the end of the minute (never dropped: a webhook is delivered at least once), the
try it would have been is not counted, and the deferral is counted where its owner sees it
(a webhook's ``deferred``, an alert's log). A game with 40 webhooks taking every event cannot
turn one command into a flood at a third party, nor fill the delivery workers for everyone else.
"""

from __future__ import annotations

from typing import Any

from application.settings import (
    BLUEMOON_ANSWER_TIMEOUT,
    BLUEMOON_CONNECT_TIMEOUT,
    BLUEMOON_DELIVERIES_PER_ACCOUNT,
    BLUEMOON_DELIVERIES_PER_GAME,
)
from events import keys
from events.outbox import Outbox, now_ms

CONNECT_TIMEOUT = BLUEMOON_CONNECT_TIMEOUT.read()  #: seconds to connect (TCP, and TLS's handshake with it)
ANSWER_TIMEOUT = BLUEMOON_ANSWER_TIMEOUT.read()  #: seconds to wait for each read of the answer
MAIL_TIMEOUT = (
    10.0  #: seconds for each step of an SMTP exchange (a mail server greets slowly); connecting is CONNECT_TIMEOUT
)
PER_GAME = BLUEMOON_DELIVERIES_PER_GAME.read()  #: deliveries a game may have a minute
PER_ACCOUNT = BLUEMOON_DELIVERIES_PER_ACCOUNT.read()  #: deliveries an account may have a minute
WINDOW_MS = 60_000
SHORTEST_DEFERRAL_MS = 1_000  #: a deferred delivery's job has finished before its entry is claimed again

# KEYS: the counter. ARGV: limit, window (ms). Counts one and returns -1, or, when the window is
# full, counts nothing and returns the ms until it ends.
TAKE = """
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[1]) then
  local left = redis.call('PTTL', KEYS[1])
  if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]); left = tonumber(ARGV[2]) end
  return left
end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return -1
"""


class DeliveryBudget:
    """The deliveries a game and an account have left this minute (counters in the store)."""

    def __init__(self, client: Any, per_game: int = PER_GAME, per_account: int = PER_ACCOUNT) -> None:
        self.client = client
        self.per_game, self.per_account = per_game, per_account
        self._take = client.register_script(TAKE)

    def take(self, game: str, account: str | None) -> int | None:
        """Count one delivery for the game and the account (if any): None when both allow it,
        else the ms until the full one's minute ends (and nothing is counted)."""
        left = int(self._take(keys=[keys.game_deliveries(game)], args=[self.per_game, WINDOW_MS]))
        if left >= 0 or account is None:
            return None if left < 0 else left
        left = int(self._take(keys=[keys.account_deliveries(account)], args=[self.per_account, WINDOW_MS]))
        if left >= 0:
            self.client.decr(keys.game_deliveries(game))  # the game's was taken for nothing
            return left
        return None

    def defer(self, outbox: Outbox, name: str, payload: str, game: str, account: str | None) -> int | None:
        """If the delivery is over budget, set its outbox entry due when the minute ends, its
        claim uncounted, and return that due time (ms); else count it and return None."""
        left = self.take(game, account)
        if left is None:
            return None
        tries = int(self.client.hget(keys.outbox_of(name)[2], name) or 1)
        due = now_ms() + max(left, SHORTEST_DEFERRAL_MS)
        outbox.renew(name, payload, tries=max(tries - 1, 0), due_ms=due)
        return due
