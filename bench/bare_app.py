"""The baseline for bench/api_speed.py: a bare Flask endpoint, served the same way."""

from flask import Flask, jsonify


def create_app() -> Flask:
    app = Flask(__name__)

    @app.get("/bare")
    def bare():  # type: ignore[no-untyped-def]
        return jsonify(status="ok")

    return app
