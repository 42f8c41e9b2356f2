"""The baselines for bench/api_speed.py, served the same way as the service.

``/bare``: a bare Flask endpoint, the figure's baseline. ``/floor``: what a command costs a
server of this shape before any of its work: the same JSON body read, the same two Redis round
trips (a read and a script, on the service's client and its way of sending scripts) and a
reply as long as a real command's (the bench stores one at ``bench:floor-body``). It shows how
near the service can come to ``/bare`` at all. ``?trips=1`` leaves out the script (a command
made in one round trip); ``?reply=small`` answers a few bytes instead (a command that answered
without its view)."""

from flask import Flask, Response, jsonify, request

from application.settings import REDIS_URL
from application.wiring import connect
from events.redis_store import run_script

FLOOR_BODY = "bench:floor-body"
NOTHING = "return redis.call('EXISTS', KEYS[1])"  # a script that does nothing worth the name


def create_app() -> Flask:
    app = Flask(__name__)
    client = connect(REDIS_URL.read()) if REDIS_URL.read() else None
    script = client.register_script(NOTHING) if client is not None else None

    @app.get("/bare")
    def bare():  # type: ignore[no-untyped-def]
        return jsonify(status="ok")

    @app.post("/floor")
    def floor():  # type: ignore[no-untyped-def]
        request.get_json()
        body = client.get(FLOOR_BODY)  # type: ignore[union-attr]
        if request.args.get("trips") != "1":
            run_script(client, script, [FLOOR_BODY], [])  # type: ignore[arg-type]
        if request.args.get("reply") == "small":
            body = b'{"status": "ok"}'
        return Response(body, mimetype="application/json")

    return app
