"""A name stored before names were checked (old data: a line break and a Bcc header in it, a
bidi override) does not stop a person's "your turn" mail: a real worker sends it through a real
SMTP server (aiosmtpd) with the name on one line of the subject, and to nobody else."""

from __future__ import annotations

import json

import pytest

from events import keys
from tests.support.alerts import end_the_turn, joined_game, two_people
from tests.support.workers import wait_until
from workers import alert_channels

STORED = "Ada\r\nBcc: everyone@evil.example\u202e"


@pytest.mark.slow
def test_a_stored_name_with_a_line_break_does_not_stop_the_mail(
    inbox, setting
):  # (the SMTP server first: the worker takes its address)
    """Slow: a real worker sends the mail."""
    api = setting
    ada, bo = two_people(api)
    bo_email = api.get("/me", token=bo).json["email"]
    api.patch("/me/alerts", json={"email": {"enabled": True, "delay_seconds": 0}}, token=bo)
    game, ada_seat, _ = joined_game(api, ada, bo)
    client = api.app.extensions["bluemoon"].store.client
    seats = json.loads(client.hget(keys.meta(game), "seats"))
    seats[0]["name"] = STORED  # written as an old game holds it: no check stands in the way
    client.hset(keys.meta(game), "seats", json.dumps(seats))
    end_the_turn(api, game, ada_seat)  # Bo's turn: his mail names Ada
    wait_until(lambda: [m for to, m in inbox.messages if bo_email in to], 20, "Bo's mail")
    ((recipients, mail),) = [(to, m) for to, m in inbox.messages if bo_email in to]
    assert recipients == [bo_email]  # the Bcc in the name added no one
    assert mail["Bcc"] is None
    assert "Ada Bcc: everyone@evil.example," in mail["Subject"] and "\u202e" not in mail["Subject"]

    def mailed() -> list[str]:  # logged once the SMTP server has answered, after it has the mail
        log = api.get("/me/alerts/deliveries", token=bo).json["deliveries"]
        return [d["outcome"] for d in log if d["channel"] == "email"]

    assert wait_until(mailed, 20, "the mail's log line") == ["delivered"]


def test_a_subject_kept_in_a_mail_batch_from_before_the_check_is_sent_on_one_line(inbox):
    """A batch's items keep their words (application/alerts/mail_batches.py): one made before names were
    shown safely still carries the raw name to the header, where it is made one line."""
    alert_channels.mail(
        "bo@example.com", f"Your turn in {STORED}, Bo (CMON)", "text", "<p>html</p>", "batch-1", "https://b.example/u"
    )
    ((recipients, mail),) = inbox.messages
    assert recipients == ["bo@example.com"] and mail["Bcc"] is None
    assert mail["Subject"] == "Your turn in Ada Bcc: everyone@evil.example, Bo (CMON)"
