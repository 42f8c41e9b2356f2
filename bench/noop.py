"""A job that does nothing: bench/bot_speed.py's baseline for RQ's own latency."""


def noop() -> str:
    return "ok"
