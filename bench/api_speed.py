"""API speed under gunicorn (2 gevent workers, as in the Procfile), side by side with a bare Flask
endpoint served the same way in the same run: the ratio is the figure.

Measures "get my view" (GET /games/{id} with a seat token) and "post a command" (POST
/games/{id}/commands: decide + append + index) with concurrent keep-alive clients. The clock
starts once every client has made its games; a client whose game ends goes on with the next
one it made, and every counted request is a command the server applied (200, not a replay).

The service is measured as the benchmark's goals were set, with its rate limits off, and again
with them on (as in production; set so high that none refuses), to show what they cost.

Then the floors (bench/bare_app.py ``/floor``): an endpoint beside the bare one that does what a
command must do of I/O and nothing else (read the JSON body, two Redis round trips, answer a
reply as long as a command's), which shows how near a command can come at all; and the same
with one round trip, and with a small reply.

    python bench/api_speed.py [--seconds 5] [--clients 8]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from bench.bare_app import FLOOR_BODY  # noqa: E402
from bench.measure import children, cpu_seconds, percentiles  # noqa: E402
from bench.server import call, redis_for, serve  # noqa: E402
from service.ratelimit import LIMITS  # noqa: E402

#: The floors measured (bench/bare_app.py): a command's I/O as it is, in one round trip, and
#: with a small reply.
FLOORS = {
    "floor: command's I/O": "",
    "floor: one round trip": "?trips=1",
    "floor: small reply": "?reply=small",
}


class Served(NamedTuple):
    """A load's outcome: requests per second, each counted request's latency, and the CPU the
    watched processes (the server's workers, Redis) used per counted request, in seconds."""

    rate: float
    latencies: list[float]
    cpu: list[float]


def load(port: int, clients: int, seconds: float, make_worker, watched=()) -> Served:  # type: ignore[no-untyped-def]
    """Run ``clients`` threads for ``seconds``; each calls its worker's step() in a loop. The
    clock starts once every client has made its worker (its games), and a step counts (its
    latency and one request) only when it returns True: a step that only makes a new game
    (a client that used up its ready ones) spends the clock's time but is not counted. A
    client that fails ends the run with its error rather than leaving fewer requests counted."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    window: list[float] = []
    used: list[list[float]] = []
    barrier = threading.Barrier(
        clients, action=lambda: (used.append([cpu_seconds(p) for p in watched]), window.append(time.perf_counter()))
    )
    errors: list[BaseException] = []

    def run(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            step = make_worker(conn)
            barrier.wait()
            stop = window[0] + seconds
            while (t := time.perf_counter()) < stop:
                if step():
                    latencies[i].append(time.perf_counter() - t)
        except BaseException as error:
            errors.append(error)
            barrier.abort()
        finally:
            conn.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    elapsed = time.perf_counter() - window[0]
    flat = [x for xs in latencies for x in xs]
    after = [cpu_seconds(p) for p in watched]
    return Served(len(flat) / elapsed, flat, [(a - b) / max(len(flat), 1) for a, b in zip(after, used[0])])


def ok(status: int, data: bytes) -> bytes:
    """A timed request's body, once it is known to have succeeded."""
    if status != 200:
        raise AssertionError(f"{status}: {data[:300]!r}")
    return data


def new_game(conn: http.client.HTTPConnection) -> tuple[str, list[str], int]:
    """A two-seat game of humans: its id, the seats' tokens and its version."""
    status, data = call(
        conn,
        "POST",
        "/games",
        {"seats": [{"kind": "human"}, {"kind": "human"}]},
        {"Content-Type": "application/json"},
    )
    doc = json.loads(data)
    return doc["game"], [s["token"] for s in doc["seats"]], doc["version"]


def ready_game(conn: http.client.HTTPConnection) -> dict:  # type: ignore[type-arg]
    """A new game with what its players need to post their first command: whose turn it is."""
    game, tokens, version = new_game(conn)
    status, data = call(conn, "GET", f"/games/{game}")
    return {"game": game, "tokens": tokens, "version": version, "seat": json.loads(data)["turn"]["seat"]}


@dataclass
class Tally:
    """What the players did besides their counted commands: games that ended (replaced by ready
    ones), games made on the clock (uncounted), and the last command's reply."""

    ended: int = 0
    made: int = 0
    last_reply: bytes = b""


def player(games_per_client: int, tally: Tally):  # type: ignore[no-untyped-def]
    """load()'s worker for posting commands (bench/peer_speed.py uses it too).

    Two players who only end their turns reach a stalemate after ten quiet rounds (P16, 20
    commands): each client makes its games before the clock starts and moves to the next when
    one ends, so that every counted request is a command that was applied."""

    def make(conn):  # type: ignore[no-untyped-def]
        spares = [ready_game(conn) for _ in range(games_per_client)]
        state: dict | None = spares.pop()  # type: ignore[type-arg]

        def step() -> bool:
            nonlocal state
            if state is None:  # out of ready games: make one, uncounted
                state = ready_game(conn)
                tally.made += 1
                return False
            headers = {
                "Authorization": f"Bearer {state['tokens'][state['seat']]}",
                "Content-Type": "application/json",
                "If-Match": f'"{state["version"]}"',
                "Idempotency-Key": f"{state['game']}-{state['version']}",
            }
            data = ok(
                *call(conn, "POST", f"/games/{state['game']}/commands", {"type": "end_turn", "discards": []}, headers)
            )
            doc = json.loads(data)
            tally.last_reply = data
            if doc["duplicate"] or doc["version"] <= state["version"]:
                raise AssertionError(f"the command was not applied anew: {data[:300]!r}")
            if doc["view"]["turn"] is None:  # the game ended
                tally.ended += 1
                state = spares.pop() if spares else None
            else:
                state.update(version=doc["version"], seat=doc["view"]["turn"]["seat"])
            return True

        return step

    return make


def report(name: str, rate: float, lat: list[float], base_rate: float, base_lat: list[float]) -> None:
    p50, p99 = percentiles(lat)
    b50 = statistics.median(base_lat)
    print(
        f"{name:22s} {rate:8.0f} req/s  p50 {p50 * 1000:6.2f} ms  p99 {p99 * 1000:6.2f} ms   "
        f"vs bare: {rate / base_rate:.3f} x throughput, {p50 / b50:.1f} x p50 latency"
    )


def cpu_report(name: str, cpu: list[float], base_workers: float) -> None:
    """The server's CPU per request, which other loads on the machine disturb far less than
    throughput: the workers' (against the bare endpoint's workers) and Redis's."""
    workers, redis_cpu = sum(cpu[:-1]), cpu[-1]
    print(
        f"{name:22s} CPU per request: workers {workers * 1e6:5.0f} us ({workers / base_workers:.2f} x bare's "
        f"{base_workers * 1e6:.0f} us), Redis {redis_cpu * 1e6:4.0f} us"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--games-per-client", type=int, default=80, help="games made ready before the clock starts")
    args = parser.parse_args()
    with redis_for("api") as url:
        run(args, url)


def run(args: argparse.Namespace, url: str) -> None:
    env = {**os.environ, "REDIS_URL": url, "RATE_LIMIT": "0", "PYTHONPATH": str(ROOT)}
    procs = []
    try:
        service, sport = serve("service.app:create_app()", env)
        bare, bport = serve("bench.bare_app:create_app()", env)
        # the same service with its rate limits on, as in production, set so high that none refuses;
        # the games-created quota too (60 an hour an address): the clients make hundreds of games
        limits_on = {
            **env,
            "RATE_LIMIT": "1",
            **dict.fromkeys(LIMITS, "100000000 per minute"),
            "QUOTA_GAMES_PER_ADDRESS": "100000000 per hour",
        }
        limited, lport = serve("service.app:create_app()", limits_on)
        procs += [service, bare, limited]
        probe = redis.Redis.from_url(url)
        redis_pid = int(probe.info("server")["process_id"])
        probe.close()

        def bare_step(conn):  # type: ignore[no-untyped-def]
            return lambda: bool(ok(*call(conn, "GET", "/bare")))

        bare_pids, service_pids = children(bare.pid), [*children(service.pid), redis_pid]
        limited_pids = [*children(limited.pid), redis_pid]
        base_rate, base_lat, base_cpu = load(bport, args.clients, args.seconds, bare_step, bare_pids)

        def viewer(conn):  # type: ignore[no-untyped-def]
            game, tokens, _ = new_game(conn)
            headers = {"Authorization": f"Bearer {tokens[0]}"}
            return lambda: bool(ok(*call(conn, "GET", f"/games/{game}", headers=headers)))

        def floor_step(query: str):  # type: ignore[no-untyped-def]
            def make(conn):  # type: ignore[no-untyped-def]
                headers = {"Content-Type": "application/json"}
                body = {"type": "end_turn", "discards": []}
                return lambda: bool(json.loads(ok(*call(conn, "POST", f"/floor{query}", body, headers))))

            return make

        tally = Tally()
        view_rate, view_lat, view_cpu = load(sport, args.clients, args.seconds, viewer, service_pids)
        post_rate, post_lat, post_cpu = load(
            sport, args.clients, args.seconds, player(args.games_per_client, tally), service_pids
        )
        base2_rate, base2_lat, base2_cpu = load(bport, args.clients, args.seconds, bare_step, bare_pids)
        # the goals' figures are measured between the two baselines, as they always were; the rest
        # after them, beside the same baseline
        view_l = load(lport, args.clients, args.seconds, viewer, limited_pids)
        post_l = load(lport, args.clients, args.seconds, player(args.games_per_client, tally), limited_pids)
        with redis.Redis.from_url(url) as probe:  # a command's reply, as long as the floor's
            probe.set(FLOOR_BODY, tally.last_reply)
        floors = {
            name: load(bport, args.clients, args.seconds, floor_step(query), [*bare_pids, redis_pid])
            for name, query in FLOORS.items()
        }
        base_rate = (base_rate + base2_rate) / 2
        base_lat = base_lat + base2_lat
        print(f"gunicorn 2 gevent workers, {args.clients} keep-alive clients, {args.seconds:.0f} s each, one machine")
        b50, b99 = percentiles(base_lat)
        print(
            f"{'bare Flask endpoint':22s} {base_rate:8.0f} req/s  p50 {b50 * 1000:6.2f} ms  "
            f"p99 {b99 * 1000:6.2f} ms   (baseline, measured before and after)"
        )
        report("get my view", view_rate, view_lat, base_rate, base_lat)
        report("post a command", post_rate, post_lat, base_rate, base_lat)
        report("view, limits on", view_l.rate, view_l.latencies, base_rate, base_lat)
        report("command, limits on", post_l.rate, post_l.latencies, base_rate, base_lat)
        for name, (rate, lat, _) in floors.items():
            report(name, rate, lat, base_rate, base_lat)
        bare_workers = (sum(base_cpu) + sum(base2_cpu)) / 2
        cpu_report("get my view", view_cpu, bare_workers)
        cpu_report("post a command", post_cpu, bare_workers)
        cpu_report("view, limits on", view_l.cpu, bare_workers)
        cpu_report("command, limits on", post_l.cpu, bare_workers)
        for name, (_, _, cpu) in floors.items():
            cpu_report(name, cpu, bare_workers)
        print(
            f"{'':22s} ({tally.ended} games ended and were replaced by ready ones while posting; "
            f"{tally.made} more were made on the clock, uncounted)"
        )
    finally:
        for p in procs:
            p.terminate()
            p.wait(10)


if __name__ == "__main__":
    main()
