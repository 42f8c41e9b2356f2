"""The operator's command gives and takes the moderator role on a real Redis
(``python -m cli.moderators``, installed as ``bluemoon-moderators``): by an account's email or
id, each grant and revocation in the moderation log, and the role is what lets a session moderate."""

from __future__ import annotations

import os
import subprocess
import sys

import redis

from cli import moderators as command
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.accounts import page_of

EMAIL = "cli-moderator@example.com"


def test_the_operators_command_grants_lists_and_revokes_the_role_and_the_log_records_each(
    redis_url, monkeypatch, capsys
):
    monkeypatch.setenv("REDIS_URL", redis_url)  # where the command's functions (and its process) find the store
    monkeypatch.delenv("STORE_URL", raising=False)
    client = redis.Redis.from_url(redis_url)
    api = CheckedClient(create_app({"REDIS_CLIENT": client, "RATE_LIMIT": 0}))
    page = page_of(api, EMAIL)
    account = page.get("/me").json["account"]
    command.revoke(account)  # (a role left by an earlier run on the shared Redis)
    assert page.get("/moderation/reports").json["code"] == "not_a_moderator"

    environment = {**os.environ, "PYTHONPATH": os.getcwd()}
    granted = subprocess.run(
        [sys.executable, "-m", "cli.moderators", "grant", EMAIL.upper(), "--reason", "new team member"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert granted.returncode == 0 and f"{account} is a moderator now" in granted.stdout, granted.stderr
    assert page.get("/moderation/reports").status_code == 200

    assert command.main(["list"]) == 0 and account in capsys.readouterr().out
    assert command.main(["grant", "nobody@example.com"]) == 1 and "no account" in capsys.readouterr().err
    assert command.main(["revoke", account, "--reason", "left"]) == 0
    assert page.get("/moderation/reports").json["code"] == "not_a_moderator"
    assert page.get("/moderation/log").json["code"] == "not_a_moderator"
    mine = [e for e in command.moderators().log.read(100)[0] if e.get("account") == account][:2]
    assert [(e["action"], e["by"], e["reason"]) for e in mine] == [
        ("revoke", "operator", "left"),
        ("grant", "operator", "new team member"),
    ]
    client.close()
