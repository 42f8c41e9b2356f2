"""Twenty people join one open game at once on a real Redis, each in its own process: exactly
the free seats are taken, each by one person, and exactly one game is made. Each joiner reads
the table slowly (50 ms between its read and its write, as over a slow network), so that the
joins really overlap: with a plain write instead of the compare-and-set, seats are given twice
and the test fails (checked)."""

from __future__ import annotations

import json
import multiprocessing
import time

import redis

from application.lobby.open_games import TableClosed, TableFull, TableSpec
from application.wiring import build
from events import keys

JOINERS = 20


def _people(client, count: int) -> list[str]:
    components = build(client=client)
    made = []
    for i in range(count):
        account = f"racer{i:02d}"
        components.accounts.create_without_email(account, f"Racer {i}")
        made.append(account)
    return made


def _join(url: str, table: str, account: str, go) -> str:  # type: ignore[no-untyped-def]
    client = redis.Redis.from_url(url)
    try:
        tables = build(client=client).tables
        read = tables._read

        def slow_read(table_id: str):  # type: ignore[no-untyped-def]
            found = read(table_id)
            time.sleep(0.05)
            return found

        tables._read = slow_read  # type: ignore[method-assign]
        go.wait()
        try:
            return "seated:" + str(tables.join(table, account)["status"])
        except (TableFull, TableClosed) as refused:
            return refused.code
    finally:
        client.close()


def test_twenty_joins_at_once_take_exactly_the_free_seats(redis_url, real_redis):
    creator, *joiners = _people(real_redis, JOINERS + 1)
    table = build(client=real_redis).tables.open(creator, TableSpec(players=4))
    context = multiprocessing.get_context("spawn")
    go = context.Manager().Event()
    with context.Pool(JOINERS) as pool:
        pending = [pool.apply_async(_join, (redis_url, table["id"], account, go)) for account in joiners]
        go.set()
        answers = [p.get(timeout=120) for p in pending]
    seated = [a for a in answers if a.startswith("seated:")]
    assert len(seated) == 3 and seated.count("seated:started") == 1, answers
    assert sorted(set(answers) - set(seated)) <= ["open_game_closed", "open_game_full"]
    doc = json.loads(real_redis.hget(keys.table(table["id"]), "doc"))
    accounts = [s["account"] for s in doc["seats"]]
    assert doc["status"] == "started" and len(set(accounts)) == 4 and creator in accounts
    assert real_redis.xlen(keys.stream(doc["game"])) > 0  # the one game, made once
    for account in accounts:
        assert real_redis.hget(keys.account_seats(account), doc["game"]) is not None
