"""A real SMTP server's inbox (aiosmtpd's handler); the ``inbox`` fixture that runs it is in
tests/integration/conftest.py."""

from __future__ import annotations

from email import message_from_bytes


class Inbox:
    """aiosmtpd's handler: keeps every message it is given."""

    def __init__(self) -> None:
        self.messages: list = []

    async def handle_DATA(self, server, session, envelope):  # (aiosmtpd calls it by this name)
        self.messages.append((envelope.rcpt_tos, message_from_bytes(envelope.content)))
        return "250 OK"
