"""API speed under gunicorn (2 gevent workers, as in the Procfile), side by side with a bare Flask
endpoint served the same way in the same run: the ratio is the figure.

Measures "get my view" (GET /games/{id} with a seat token) and "post a command" (POST
/games/{id}/commands: decide + append + index) with concurrent keep-alive clients. A client
whose game ends goes on with a game it made before the clock started.

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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.server import call, serve  # noqa: E402
from events.embedded import redis_for  # noqa: E402


def load(port: int, clients: int, seconds: float, make_worker) -> tuple[float, list[float]]:  # type: ignore[no-untyped-def]
    """Run ``clients`` threads for ``seconds``; each calls its worker's step() in a loop."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    stop = time.monotonic() + seconds
    barrier = threading.Barrier(clients)

    def run(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        step = make_worker(conn)
        barrier.wait()
        while time.monotonic() < stop:
            t = time.perf_counter()
            step()
            latencies[i].append(time.perf_counter() - t)
        conn.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    flat = [x for xs in latencies for x in xs]
    return len(flat) / elapsed, flat


def report(name: str, rate: float, lat: list[float], base_rate: float, base_lat: list[float]) -> None:
    lat = sorted(lat)
    p50, p99 = statistics.median(lat), lat[int(len(lat) * 0.99) - 1]
    b50 = statistics.median(base_lat)
    print(
        f"{name:22s} {rate:8.0f} req/s  p50 {p50 * 1000:6.2f} ms  p99 {p99 * 1000:6.2f} ms   "
        f"vs bare: {rate / base_rate:.3f} x throughput, {p50 / b50:.1f} x p50 latency"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--games-per-client", type=int, default=40, help="games made ready before the clock starts")
    args = parser.parse_args()
    with redis_for("api") as url:
        run(args, url)


def run(args: argparse.Namespace, url: str) -> None:
    env = {**os.environ, "REDIS_URL": url, "RATE_LIMIT": "0", "PYTHONPATH": str(ROOT)}
    procs = []
    try:
        service, sport = serve("service.app:create_app()", env)
        bare, bport = serve("bench.bare_app:create_app()", env)
        procs += [service, bare]

        base_rate, base_lat = load(bport, args.clients, args.seconds, lambda conn: lambda: call(conn, "GET", "/bare"))

        def new_game(conn):  # type: ignore[no-untyped-def]
            status, data = call(
                conn,
                "POST",
                "/games",
                {"seats": [{"kind": "human"}, {"kind": "human"}]},
                {"Content-Type": "application/json"},
            )
            doc = json.loads(data)
            return doc["game"], [s["token"] for s in doc["seats"]], doc["version"]

        def viewer(conn):  # type: ignore[no-untyped-def]
            game, tokens, _ = new_game(conn)
            headers = {"Authorization": f"Bearer {tokens[0]}"}
            return lambda: call(conn, "GET", f"/games/{game}", headers=headers)

        def ready_game(conn):  # type: ignore[no-untyped-def]
            game, tokens, version = new_game(conn)
            status, data = call(conn, "GET", f"/games/{game}")
            return {"game": game, "tokens": tokens, "version": version, "seat": json.loads(data)["turn"]["seat"]}

        def player(conn):  # type: ignore[no-untyped-def]
            # Two players who only end their turns reach a stalemate after ten quiet rounds (P16,
            # 20 commands): each client makes its games before the clock starts and moves to the
            # next when one ends, so that every timed request is a command.
            spares = [ready_game(conn) for _ in range(args.games_per_client)]
            state = spares.pop()

            def step() -> None:
                nonlocal state
                headers = {
                    "Authorization": f"Bearer {state['tokens'][state['seat']]}",
                    "Content-Type": "application/json",
                    "If-Match": f'"{state["version"]}"',
                    "Idempotency-Key": f"{state['game']}-{state['version']}",
                }
                status, data = call(
                    conn, "POST", f"/games/{state['game']}/commands", {"type": "end_turn", "discards": []}, headers
                )
                assert status == 200, data
                doc = json.loads(data)
                if doc["view"]["turn"] is None:  # the game ended
                    ended[0] += 1
                    state = spares.pop() if spares else ready_game(conn)
                else:
                    state.update(version=doc["version"], seat=doc["view"]["turn"]["seat"])

            return step

        ended = [0]
        view_rate, view_lat = load(sport, args.clients, args.seconds, viewer)
        post_rate, post_lat = load(sport, args.clients, args.seconds, player)
        base2_rate, base2_lat = load(bport, args.clients, args.seconds, lambda conn: lambda: call(conn, "GET", "/bare"))
        base_rate = (base_rate + base2_rate) / 2
        base_lat = base_lat + base2_lat
        print(f"gunicorn 2 gevent workers, {args.clients} keep-alive clients, {args.seconds:.0f} s each, one machine")
        b = sorted(base_lat)
        print(
            f"{'bare Flask endpoint':22s} {base_rate:8.0f} req/s  p50 {statistics.median(b) * 1000:6.2f} ms  "
            f"p99 {b[int(len(b) * 0.99) - 1] * 1000:6.2f} ms   (baseline, measured before and after)"
        )
        report("get my view", view_rate, view_lat, base_rate, base_lat)
        report("post a command", post_rate, post_lat, base_rate, base_lat)
        print(f"{'':22s} ({ended[0]} games ended and were replaced by ready ones while posting)")
    finally:
        for p in procs:
            p.terminate()
            p.wait(10)


if __name__ == "__main__":
    main()
