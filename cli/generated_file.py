"""Writing a file the repository keeps generated (openapi.yaml, docs/settings.md): each writer's
``main``, so that every one says the same when it has written."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def write(target: Path, document: Callable[[], str]) -> int:
    """Write ``document()`` to ``target`` and say so on stderr; the exit status."""
    target.write_text(document())
    print(f"wrote {target}", file=sys.stderr)
    return 0
