"""A webhook receiver: a real HTTP server on 127.0.0.1 that records what it is sent (the
integration tests' ``receivers`` fixture, and the end-to-end tests that deliver webhooks)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    """An HTTP server that records every request and answers from a script: a status, or
    ``("hang", seconds)``, or ``("redirect", path)``; the last entry repeats."""

    def __init__(self, *script) -> None:
        self.script = list(script) or [200]
        self.requests: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append(
                    {
                        "path": self.path,
                        "headers": dict(self.headers),
                        "body": raw.decode(errors="replace"),
                        "raw": raw,
                        "at": time.monotonic(),
                    }
                )
                step = receiver.script.pop(0) if len(receiver.script) > 1 else receiver.script[0]
                if isinstance(step, tuple) and step[0] == "hang":
                    time.sleep(step[1])
                    step = 200
                if isinstance(step, tuple) and step[0] == "redirect":
                    self.send_response(307)
                    self.send_header("Location", step[1])
                else:
                    self.send_response(step)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/bluemoon"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def messages(self, kind: str | None = None) -> list[dict]:
        found = [dict(r, json=json.loads(r["body"])) for r in self.requests if r["path"] == "/hooks/bluemoon"]
        return [r for r in found if kind is None or r["json"]["type"] == kind]
