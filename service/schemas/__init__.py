"""The API's marshmallow schemas, being cut into one module per feature (this commit only moves
the file, so that ``git log --follow`` finds its history)."""

from .games import *  # noqa: F403
