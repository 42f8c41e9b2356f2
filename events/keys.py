"""Redis key names. Every key of one game shares the hash tag ``{game:<id>}`` so that a
Redis Cluster keeps them in one slot and one script may touch them all; no key of one game
names another game."""


def tag(game: str) -> str:
    return "{game:" + game + "}"


def stream(game: str) -> str:
    return tag(game) + ":events"


def commands(game: str) -> str:
    return tag(game) + ":commands"


def snapshot(game: str) -> str:
    return tag(game) + ":snapshot"


def meta(game: str) -> str:
    """Service data about a game that is not an event: seat token hashes, bot settings."""
    return tag(game) + ":meta"


#: The game index (a projection, rebuildable from the streams) lives outside any game's
#: slot, its keys sharing the ``{index}`` tag so one script updates them together.
INDEX = "{index}:games"  # sorted set: game id -> creation time
INDEX_SUMMARY = "{index}:summary"  # hash: game id -> JSON summary (status, turn, version)
TOKENS = "{index}:tokens"  # hash: sha256(seat token) -> "game:seat"

#: The outbox: work that appended events asked for (a bot's turn, a turn's deadline), written
#: by the append script with the events. One entry per game, due at a time; a claim leases it.
OUTBOX = "{outbox}:payloads"  # hash: game id -> JSON payload
OUTBOX_DUE = "{outbox}:due"  # sorted set: game id -> due (epoch ms); a claim moves it to the lease's end
OUTBOX_TRIES = "{outbox}:tries"  # hash: game id -> claims of the current payload


def webhooks(game: str) -> str:
    """The game's webhooks: webhook id -> JSON (seat, url, kinds, secret, state)."""
    return tag(game) + ":webhooks"


def webhook_log(game: str, hook: str) -> str:
    """A webhook's last delivery attempts, newest first (a capped list)."""
    return tag(game) + f":webhook-log:{hook}"
