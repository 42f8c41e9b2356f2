"""Page speed: Lighthouse (from npm, with Debian's chromium) on the lobby and a seat's page mid-game,
as a phone (Lighthouse's mobile emulation: a mid-range phone on a slow 4G link), under the
Procfile's web process and the embedded Redis. Prints the performance, accessibility and
best-practices scores (0-100; the goal is 95 or more on each) and the bytes sent.

    python bench/page_speed.py [--runs 3]

Lighthouse is run through ``npx --yes lighthouse@13`` (fetched into npm's cache on first use);
CHROME_PATH names the browser (default /usr/bin/chromium).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.server import call, redis_for, serve  # noqa: E402

CATEGORIES = ("performance", "accessibility", "best-practices")


def lighthouse(url: str) -> dict[str, float]:
    """One Lighthouse run of ``url`` as a phone: each category's score and the bytes sent."""
    with tempfile.TemporaryDirectory() as out:
        report = Path(out) / "report.json"
        subprocess.run(
            [
                "npx",
                "--yes",
                "lighthouse@13",
                url,
                "--quiet",
                "--form-factor=mobile",
                f"--only-categories={','.join(CATEGORIES)}",
                "--chrome-flags=--headless=new --no-sandbox",
                "--output=json",
                f"--output-path={report}",
            ],
            check=True,
            env={**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")},
            capture_output=True,
        )
        found = json.loads(report.read_text())
    scores = {name: found["categories"][name]["score"] * 100 for name in CATEGORIES}
    scores["bytes"] = found["audits"]["total-byte-weight"]["numericValue"]
    return scores


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with redis_for("pages") as url:
        env = {**os.environ, "REDIS_URL": url, "RATE_LIMIT": "0"}
        web, port = serve("service.app:create_app()", env)
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            _, data = call(
                conn,
                "POST",
                "/games",
                {"seats": [{"kind": "human"}, {"kind": "human"}]},
                {"Content-Type": "application/json"},
            )
            created = json.loads(data)
            seat = created["seats"][0]
            pages = {
                "lobby": f"http://localhost:{port}/",
                "seat's page": f"http://localhost:{port}/play/{created['game']}#token={seat['token']}",
            }
            print(f"Lighthouse as a phone, {args.runs} runs each (median), gunicorn as in the Procfile")
            for name, page in pages.items():
                runs = [lighthouse(page) for _ in range(args.runs)]
                median = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
                print(
                    f"{name:12s} performance {median['performance']:5.0f}  accessibility {median['accessibility']:5.0f}  "
                    f"best practices {median['best-practices']:5.0f}  {median['bytes'] / 1024:6.1f} KiB sent"
                )
        finally:
            web.terminate()
            web.wait(10)


if __name__ == "__main__":
    main()
