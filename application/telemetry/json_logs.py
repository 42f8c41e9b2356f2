"""Log lines as JSON, one object a line, the same in the web process and the workers: the
time, level, logger, message, the record's ``fields``, and the request id of the work being
done (request_ids), so that one id finds a request and every job it caused."""

from __future__ import annotations

import json
import logging
import sys

import orjson

from . import request_ids


class JsonFormatter(logging.Formatter):
    """One JSON object a line, in ASCII; orjson, since a line is written for every request."""

    def format(self, record: logging.LogRecord) -> str:
        doc = {
            "ts": round(record.created, 3),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        request_id = request_ids.current()
        if request_id is not None:
            doc[request_ids.FIELD] = request_id
        doc.update(getattr(record, "fields", {}))
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        line = orjson.dumps(doc, default=str).decode()
        # orjson writes UTF-8 as it is: text beyond ASCII (a path, a header) is escaped as json
        # does, so that no character a reader splits lines at (U+2028, U+0085) breaks the line
        return line if line.isascii() else json.dumps(doc, default=str, separators=(",", ":"))


def json_handler() -> logging.Handler:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    return handler


def log_json(level: int = logging.INFO) -> None:
    """Every logger of this process writes JSON lines to stderr (a worker's, RQ's own included)."""
    root = logging.getLogger()
    root.handlers[:] = [json_handler()]
    root.setLevel(level)
