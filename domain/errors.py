"""Why a command is refused: malformed input versus a move against the rules."""

from __future__ import annotations


class CommandError(Exception):
    """Base of every refusal; ``code`` is stable and machine-readable."""

    code = "command_error"

    def __init__(self, code: str, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.field = field

    def __reduce__(self) -> tuple[type, tuple[str, str, str | None]]:
        """Rebuild from all three arguments, so a refusal crosses process boundaries (RQ's
        failed jobs, multiprocessing) intact."""
        return (type(self), (self.code, self.detail, self.field))


class InvalidCommand(CommandError):
    """The command is malformed: an unknown card, building or space, a wrong shape."""


class IllegalCommand(CommandError):
    """The command is well formed but a rule forbids it now; ``code`` names the rule."""
