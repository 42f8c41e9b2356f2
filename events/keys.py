"""Redis key names, laid out for a Redis Cluster: one hash slot per write.

Games are spread over ``SHARDS`` shard tags. Every key of a game and the outbox of its shard
share the shard's hash tag, so the append script writes a game's events and the work they
start (the outbox entries) in one slot, and a cluster can run it. The tags are chosen so that
each falls in the middle of its own 1/SHARDS of the 16,384 slots: a cluster whose primaries
hold equal ranges of slots holds equally many shards each. No key of one game names another game.
"""

from __future__ import annotations

import zlib
from binascii import crc_hqx
from functools import cache

SLOTS = 16_384  #: a Redis Cluster's hash slots
SHARDS = 48  #: shard tags; divides evenly among 2, 3, 4, 6, 8, 12, 16, 24 or 48 primaries
LAYOUT = 2  #: the key layout's version (1: one ``{game:<id>}`` tag per game, one shared outbox)


def slot(tag: str) -> int:
    """The cluster slot of a hash tag (CRC16/XMODEM, as Redis Cluster computes it)."""
    return crc_hqx(tag.encode(), 0) % SLOTS


def band(shard: int) -> range:
    """The middle half of the shard's 1/SHARDS of the slots: far from the edges where a
    cluster's primaries split the slots (Redis gives 3 primaries 0-5460, 5461-10922, ...)."""
    width = SLOTS / SHARDS
    return range(round(shard * width + width / 4), round(shard * width + 3 * width / 4))


def _tag_in_band(shard: int) -> str:
    """The first tag ``bm<shard>.<n>`` whose slot falls in the shard's band."""
    n = 0
    while slot(f"bm{shard}.{n}") not in band(shard):
        n += 1
    return f"bm{shard}.{n}"


SHARD_TAGS: tuple[str, ...] = tuple(_tag_in_band(i) for i in range(SHARDS))


@cache
def shard(game: str) -> int:
    """The shard a game lives in, from its id alone (any process can compute it)."""
    return zlib.crc32(game.encode()) % SHARDS


def tag(game: str) -> str:
    return "{" + SHARD_TAGS[shard(game)] + "}"


def _key(game: str, part: str) -> str:
    return f"{tag(game)}:game:{game}:{part}"


def stream(game: str) -> str:
    return _key(game, "events")


STREAMS = "{*}:game:*:events"  #: a SCAN pattern that matches every game's stream


def game_of(key: str) -> str:
    """The game a game's key belongs to."""
    return key.split(":game:", 1)[1].split(":", 1)[0]


def commands(game: str) -> str:
    return _key(game, "commands")


def snapshot(game: str) -> str:
    return _key(game, "snapshot")


def meta(game: str) -> str:
    """Service data about a game that is not an event: seat token hashes, bot settings."""
    return _key(game, "meta")


def live(game: str) -> str:
    """The game's sharded pub/sub channel: each append publishes its new version here."""
    return _key(game, "live")


def appended(game: str) -> str:
    """On a single Redis, the pub/sub channel of the game's shard: each append publishes
    ``<game> <version>`` here (events/feed.py). A channel per shard, with the shard's hash
    tag, keeps the append script's names in one slot; a cluster uses ``live`` instead."""
    return f"{tag(game)}:appended"


APPENDED = "{*}:appended"  #: a PSUBSCRIBE pattern that matches every shard's ``appended`` channel


def webhooks(game: str) -> str:
    """The game's webhooks: webhook id -> JSON (seat, url, kinds, secret, state)."""
    return _key(game, "webhooks")


def game_ratings(game: str) -> str:
    """A rated game's ratings as they were computed, once: each seat's player, place, and
    rating before and after (the record a retried rating job applies again, never anew)."""
    return _key(game, "ratings")


def rematch(game: str) -> str:
    """A finished game's rematch: a hash of seat -> the new seat's token digest (or the
    account) for each seat that accepted, and ``game``: the new game, once every seat has."""
    return _key(game, "rematch")


def webhook_log(game: str, hook: str) -> str:
    """A webhook's last delivery attempts, newest first (a capped list)."""
    return _key(game, f"webhook-log:{hook}")


def seat_accounts(game: str) -> str:
    """The accounts that keep the game's seats: a hash of seat -> account id, read with the
    game's settings so that the append which starts a turn knows whom to alert."""
    return _key(game, "accounts")


def clock(game: str) -> str:
    """The game's clock record (application/games/clocks.py): a hash of ``banks`` (each seat's time
    bank, ms), ``turn`` (the turn under way and its start) and ``away`` (seats whose person is
    on vacation, and until when)."""
    return _key(game, "clock")


def watchers(game: str) -> str:
    """The seats' open streams: a sorted set of ``<seat>:<stream id>`` -> until when it counts
    (epoch ms); a person watching their seat gets no alert for it."""
    return _key(game, "watchers")


def finished_document(game: str, part: str) -> str:
    """A finished game's published ``log`` or its ``audit``, as computed once (a JSON document,
    expiring: application/games/finished_documents.py)."""
    return _key(game, f"finished:{part}")


def review(game: str) -> str:
    """A finished game's review (application/review/): JSON, written once by its job."""
    return _key(game, "review")


def chat(game: str, room: str) -> str:
    """A game's chat ``room`` (``seats`` or ``spectators``): a Redis stream of messages, kept with
    the game (in its slot) and apart from its events, so chat never changes the audited log."""
    return _key(game, f"chat:{room}")


def chat_removed(game: str) -> str:
    """A game's removed chat messages: a hash of message id -> JSON (``how``: ``deleted`` by
    its author or ``hidden`` by a moderator; ``by``; ``at``)."""
    return _key(game, "chat-removed")


def chat_notices(game: str) -> str:
    """What happened in a game's chat, in order, for its live feed: a Redis stream numbered
    ``0-<n>`` (a message posted takes its number as its id; a removal takes the next one)."""
    return _key(game, "chat-notices")


def chat_marks(game: str) -> str:
    """The chat messages made by a retried request: a hash of the request's mark -> message id."""
    return _key(game, "chat-marks")


def chat_live(game: str) -> str:
    """On a cluster, the game's sharded channel on which each chat notice's number is published."""
    return _key(game, "chat-live")


def chat_news(game: str) -> str:
    """On a single Redis, the channel of the game's shard on which each chat notice is announced
    as ``<game> <n>``."""
    return f"{tag(game)}:chat-news"


CHAT_NEWS = "{*}:chat-news"  #: a PSUBSCRIBE pattern that matches every shard's ``chat_news`` channel


def unstarted(shard_no: int) -> str:
    """The shard's games made by ``POST /games`` not yet looked at by the sweep: a sorted set of
    game id -> when it is due (epoch ms; application/games/sweeps.py)."""
    return "{" + SHARD_TAGS[shard_no] + "}:unstarted"


#: Layout 2's first, unsharded game index (one ``{index}`` slot): ``bluemoon-migrate`` moves it.
LEGACY_INDEX = "{index}:games"  # sorted set: game id -> creation time
LEGACY_INDEX_SUMMARY = "{index}:summary"  # hash: game id -> JSON summary

LISTINGS = ("all", "active", "finished")  #: the index's lists of a shard: every game, and by status


def index_summaries(shard_no: int) -> str:
    """The game index of a shard (a projection, rebuildable from the streams): game id -> JSON
    summary. It shares the shard's tag, so recording a game's summary touches its own slot only."""
    return "{" + SHARD_TAGS[shard_no] + "}:index:summary"


def index_listing(shard_no: int, listing: str) -> str:
    """A sorted set of the shard's games (one of ``LISTINGS``), all scored 0 and named
    ``<creation ms, 13 digits>:<game>``, so that a lexicographic range is newest-first paging."""
    return "{" + SHARD_TAGS[shard_no] + "}:index:" + listing


def token(token_digest: str) -> str:
    """A seat token's owner, ``game:seat``, under the token's SHA-256: one key per token, so
    that lookups spread over every slot of a cluster (no shared hash to grow hot)."""
    return f"token:{token_digest}"


#: The outbox: work that appended events asked for (a bot's turn, a turn's deadline, a webhook
#: delivery), written by the append script with the events; one per shard. An entry is named by
#: its game's id (the turn) or ``<kind>:<game>...`` (``wh:`` a delivery, ``rt:`` a rating, ``al:``
#: an alert: application/background/work.py), so its shard follows from its name.
def owner(entry: str) -> str:
    """The game an outbox entry belongs to: the word after its kind's prefix, else (a game's id
    has no colon) the entry's name itself, the game's turn."""
    return entry.split(":")[1] if ":" in entry else entry


def outbox(shard_no: int) -> list[str]:
    """The shard's outbox keys: payloads (hash: entry -> JSON), due (sorted set: entry -> epoch
    ms; a claim moves it to the lease's end) and tries (hash: entry -> claims of its payload)."""
    prefix = "{" + SHARD_TAGS[shard_no] + "}:outbox:"
    return [prefix + "payloads", prefix + "due", prefix + "tries"]


def outbox_of(entry: str) -> list[str]:
    """The outbox keys of the shard that holds ``entry``."""
    return outbox(shard(owner(entry)))


#: Accounts: each account's data shares the tag ``{acct:<id>}`` (one slot per account), and each
#: lookup (an email, a session, a personal access token, a sign-in link) is a key of its own
#: under the secret's or address's SHA-256, so lookups spread over every slot of a cluster.
def _account_key(account_id: str, part: str) -> str:
    return "{acct:" + account_id + "}:" + part


def account(account_id: str) -> str:
    """The account: a hash of email, display name, created."""
    return _account_key(account_id, "account")


def account_seats(account_id: str) -> str:
    """The account's seats: a hash of game id -> seat number."""
    return _account_key(account_id, "seats")


def account_open_games(account_id: str) -> str:
    """The open games the account opened that wait in the lobby: a sorted set of table id ->
    when it closes (epoch ms), for the quota of open games per account."""
    return _account_key(account_id, "open-games")


def account_tokens(account_id: str) -> str:
    """The account's personal access tokens: a hash of token id -> JSON (name, created, last
    use, the token's digest)."""
    return _account_key(account_id, "tokens")


def account_sessions(account_id: str) -> str:
    """The digests of the account's open sessions (a set), to end them all with the account."""
    return _account_key(account_id, "sessions")


def email_owner(email_digest: str) -> str:
    """The account that owns an email address (SHA-256 of the normalised address)."""
    return f"email:{email_digest}"


def session(session_digest: str) -> str:
    """A page's session: its account id, expiring."""
    return f"session:{session_digest}"


def personal_token(token_digest: str) -> str:
    """A personal access token's ``account:token id``."""
    return f"pat:{token_digest}"


def sign_in_link(link_digest: str) -> str:
    """A sign-in link not yet used: the email it was sent to, expiring after 15 minutes."""
    return f"signin:{link_digest}"


def sign_in_requests(kind: str, subject_digest: str) -> str:
    """How many sign-in links were asked for by one address or for one email lately (expiring)."""
    return f"signin-asked:{kind}:{subject_digest}"


def account_passkeys(account_id: str) -> str:
    """The account's passkeys: a hash of credential id (base64url) -> JSON (public key, sign
    count, name, created, last use)."""
    return _account_key(account_id, "passkeys")


def credential_owner(credential_digest: str) -> str:
    """The account a passkey (SHA-256 of its credential id) signs in to."""
    return f"credential:{credential_digest}"


def ceremony(ceremony_digest: str) -> str:
    """A passkey ceremony under way: its challenge and purpose, single use, expiring."""
    return f"ceremony:{ceremony_digest}"


def device_code(code_digest: str) -> str:
    """A one-time code shown on a signed-in device: the account it signs another device in to."""
    return f"device:{code_digest}"


#: Ratings: each player (an account id, or ``bot:<level>``) has its rating and history under the
#: tag ``{rating:<player>}``: one slot per player, so applying a game's ratings writes each
#: player's slot on its own.
def rating(player: str) -> str:
    """A player's rating: a hash of mu, sigma, games (rated games played), updated."""
    return "{rating:" + player + "}:rating"


def rating_history(player: str) -> str:
    """A player's rated games: a hash of game id -> JSON (place, before, after, at)."""
    return "{rating:" + player + "}:history"


LEADERBOARD = "{ratings}:leaderboard"  #: a sorted set: account id -> shown rating (mu - 3 sigma)
BOT_LEADERBOARD = "{ratings}:bot-accounts"  #: the same, for bot accounts: listed apart from people
RATING_LOCK = "{ratings}:lock"  #: held while a game's ratings are computed from the current ones

#: The lobby of open games: one tag for its lists, written when a table opens, fills or closes
#: (never per command). Each table's own record is under ``{table:<id>}``.
LOBBY_OPEN = "{lobby}:open"  #: a sorted set: open table id -> when it closes unless filled (epoch ms)
LOBBY_SUMMARIES = "{lobby}:summaries"  #: a hash: open table id -> JSON summary
LOBBY_VERSION = "{lobby}:version"  #: a counter: each change of the open tables adds one (ETag)
#: a sorted set: table id -> when it is removed unless it started (epoch ms; application/games/sweeps.py)
LOBBY_UNSTARTED = "{lobby}:unstarted"


def table(table_id: str) -> str:
    """An open game's table: a hash with its document (``doc``: options, seats, status)."""
    return "{table:" + table_id + "}:table"


#: Turn alerts (application/alerts/entries.py): a person's channels and what went out, in the account's slot.
def alert_settings(account_id: str) -> str:
    """A hash: ``settings`` (JSON: channels, quiet hours), ``unsubscribe`` (the token an
    email's one-click unsubscribe carries)."""
    return _account_key(account_id, "alerts")


def push_subscriptions(account_id: str) -> str:
    """The account's Web Push subscriptions: a hash of subscription id -> JSON (endpoint, keys)."""
    return _account_key(account_id, "push")


def muted_games(account_id: str) -> str:
    """The games the person muted: a set of game ids."""
    return _account_key(account_id, "muted")


def alert_log(account_id: str) -> str:
    """The account's last alert deliveries and failures, newest first (a capped list of JSON)."""
    return _account_key(account_id, "alert-log")


def mail_batch(account_id: str) -> str:
    """The "your turn" mail being gathered: a hash of ``game:<id>`` -> item JSON, ``due`` (epoch
    ms), and ``sending`` (the batch taken to send, with its lease)."""
    return _account_key(account_id, "mail-batch")


def alert_sent(account_id: str, mark: str) -> str:
    """That one alert went out on one channel (expiring): a retried job does not send it again."""
    return _account_key(account_id, f"sent:{mark}")


def vacation(account_id: str) -> str:
    """The person's vacations: a hash of ``away`` (JSON: start and end, ms, of the current or last
    one) and ``days:<year>`` (vacation days used that year)."""
    return _account_key(account_id, "vacation")


def unsubscribe(token_digest: str) -> str:
    """An unsubscribe token's account (SHA-256 of the token)."""
    return f"unsubscribe:{token_digest}"


def channel_sent(url_digest: str, mark: str) -> str:
    """That a Discord or Slack channel (SHA-256 of its URL) got one message (expiring): a
    channel several people share gets each message once."""
    return f"channel-sent:{url_digest}:{mark}"


VAPID_KEY = "{alerts}:vapid"  #: the service's Web Push (VAPID) key pair, made once and kept


def game_deliveries(game: str) -> str:
    """How many deliveries (webhooks, turn alerts) the game has sent in its current minute
    (a counter that expires with the minute: application/outbound/limits.py)."""
    return _key(game, "deliveries")


def account_deliveries(account_id: str) -> str:
    """The same for everything sent for one account."""
    return _account_key(account_id, "deliveries")


#: A person's stream (events/person_streams.py): what happens to them across their games, in the
#: account's slot, written by the person-stream jobs (never by a game's append: another slot).
def person_stream(account_id: str) -> str:
    """The stream: entries ``0-<n>``, n counting up from 1 for ever (``person_stream_last``)."""
    return _account_key(account_id, "stream")


def person_stream_last(account_id: str) -> str:
    """The last entry's number: kept when the stream is trimmed or lapses, so that ids never repeat."""
    return _account_key(account_id, "stream-last")


def person_stream_marks(account_id: str) -> str:
    """The writes the stream has taken: a sorted set of write mark -> its last entry's number, so
    that a retried job's write is taken once."""
    return _account_key(account_id, "stream-marks")


def person_stream_news(account_id: str) -> str:
    """The pub/sub channel on which each write to the stream is announced to the live feeds: on a
    single Redis ``<account> <n>`` (PUBLISH); on a cluster ``<n>`` (sharded: the account's slot)."""
    return _account_key(account_id, "stream-news")


PERSON_STREAM_NEWS = "{acct:*}:stream-news"  #: a PSUBSCRIBE pattern that matches every person's channel


def account_of(key: str) -> str:
    """The account a key of the account's slot (``{acct:<id>}:...``) belongs to."""
    return key.split("{acct:", 1)[1].split("}", 1)[0]


# -- OAuth apps (application/accounts/oauth.py): each secret under its SHA-256, as the tokens are --


def oauth_app(client_id: str) -> str:
    """A registered app: JSON (name, owner, redirect URIs, public or confidential, its secret's digest)."""
    return f"oauth-app:{client_id}"


def oauth_app_webhook(client_id: str) -> str:
    """An app's webhook for its people's stream news: JSON (url, secret)."""
    return f"oauth-app-webhook:{client_id}"


def account_oauth_apps(account_id: str) -> str:
    """The client ids of the apps an account registered (a set), for the limit on apps."""
    return _account_key(account_id, "oauth-apps")


def account_oauth_grants(account_id: str) -> str:
    """The apps an account allowed: a hash of client id -> JSON (scopes, when, its token families)."""
    return _account_key(account_id, "oauth-grants")


def oauth_code(code_digest: str) -> str:
    """An authorization code: JSON (app, account, redirect URI, scopes, PKCE challenge), expiring."""
    return f"oauth-code:{code_digest}"


def oauth_token(token_digest: str) -> str:
    """An app's access or refresh token: JSON (kind, account, app, family, scopes), expiring."""
    return f"oauth-token:{token_digest}"


def oauth_family(family: str) -> str:
    """The digests of every token issued from one authorization code (a set): revoked together."""
    return f"oauth-family:{family}"


# people: who follows, mutes and blocks whom, and who may not play for a while (application/people/)
def follows(account_id: str) -> str:
    """The people an account follows: a sorted set of account id -> when it began (epoch ms)."""
    return _account_key(account_id, "follows")


def followers(account_id: str) -> str:
    """Who follows the account: a sorted set of account id -> when it began (epoch ms)."""
    return _account_key(account_id, "followers")


def mutes(account_id: str) -> str:
    """The people whose words the account does not want to see: a set of account ids."""
    return _account_key(account_id, "mutes")


def blocks(account_id: str) -> str:
    """The people the account keeps away: a set of account ids."""
    return _account_key(account_id, "blocks")


def privacy(account_id: str) -> str:
    """What the account lets others do: a hash (``challenges``, ``friends_public``)."""
    return _account_key(account_id, "privacy")


def notes(account_id: str) -> str:
    """The private notes an account keeps on players and games: a hash of ``player:<id>`` or
    ``game:<id>`` -> JSON (text, updated), read by its author alone."""
    return _account_key(account_id, "notes")


def suspension(account_id: str) -> str:
    """A moderator's suspension of the account: a hash (``until``, ``reason``, ``by``) that expires with it."""
    return _account_key(account_id, "suspension")


# moderation (application/moderation/): one tag, so that filing or closing a report is one script on a cluster
MODERATORS = "{moderation}:moderators"  #: a hash: account id -> JSON (since, by)
MODERATION_LOG = "{moderation}:log"  #: a stream: every moderator's action (who, what, when, why)
OPEN_REPORTS = "{moderation}:open"  #: a sorted set of open report ids (all scored 0: ordered by id, oldest first)
REPORTED = "{moderation}:reported"  #: a hash: "<reporter> <subject>" -> the open report's id (one each)


def report(report_id: str) -> str:
    """A report: a hash (reporter, subject, reason, text, the messages around it, status, ...)."""
    return "{moderation}:report:" + report_id


# challenges: a person asks another for a game, and it waits for their answer (application/challenges/)
def challenge(challenge_id: str) -> str:
    """A challenge: a hash (``doc``: who, whom and the game's options; ``status``; ``outcome``), its own slot."""
    return "{challenge:" + challenge_id + "}:doc"


def account_challenges(account_id: str, way: str) -> str:
    """An account's open challenges, ``in`` (to it) or ``out`` (from it): a sorted set of challenge
    id -> when it expires (epoch ms)."""
    return _account_key(account_id, f"challenges-{way}")


def challenge_pair(one: str, other: str) -> str:
    """The open challenge between two people, either way (a string: its id): one at a time."""
    low, high = sorted((one, other))
    return f"challenge-pair:{low}:{high}"


# tournaments: rounds of games under one document (application/tournaments/)
def tournament(tournament_id: str) -> str:
    """A tournament: a hash (``doc``: its format, entrants, rounds and results). Its tag is the shard
    tag of its id, as a game's, so its step's outbox entry (``tn:<id>``) is in the same slot and one
    script writes both."""
    return f"{tag(tournament_id)}:tournament:{tournament_id}"


TOURNAMENTS = "{tournaments}:index"  #: a sorted set: tournament id -> when it starts (epoch ms)


def account_tournaments(account_id: str, part: str) -> str:
    """An account's tournaments: ``created`` (those waiting to start that it made: id -> start,
    epoch ms) or ``entered`` (every one it joined: id -> start)."""
    return _account_key(account_id, f"tournaments-{part}")
