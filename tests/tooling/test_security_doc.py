"""docs/security.md states every limit and quota with its number: a setting added to the
operations reference's limits, or a fixed cap added to the code, without it fails here."""

import re
from pathlib import Path

from application.accounts import account_service as accounts
from application.accounts import passkeys
from application.alerts import channel_settings as alert_settings
from application.outbound import webhooks as webhook_subscriptions

ROOT = Path(__file__).resolve().parents[2]
SECURITY = (ROOT / "docs" / "security.md").read_text()
OPERATIONS = (ROOT / "docs" / "operations.md").read_text()


def _limits_table(text: str) -> str:
    start = text.index("## Limits and quotas")
    return text[start : text.index("\n## ", start + 1)]


def test_every_limit_and_quota_setting_is_in_the_security_page():
    settings = set(re.findall(r"^\| `([A-Z_]+)` \|", _limits_table(OPERATIONS), re.M))
    settings |= {"RATE_LIMIT_READS", "RATE_LIMIT_WRITES", "RATE_LIMIT_TOKEN_READS", "RATE_LIMIT_TOKEN_WRITES"}
    assert len(settings) >= 14
    missing = sorted(s for s in settings if f"`{s}`" not in SECURITY)
    assert missing == []


def test_the_fixed_caps_are_stated_with_their_numbers():
    rows = _limits_table(SECURITY)
    for what, number in [
        ("webhooks a seat", webhook_subscriptions.MAX_PER_SEAT),
        ("personal access tokens an account", accounts.MAX_TOKENS),
        ("passkeys an account", passkeys.MAX_PASSKEYS),
        ("push subscriptions an account", alert_settings.MAX_SUBSCRIPTIONS),
    ]:
        assert re.search(rf"\| {what} \| {number} \|", rows), what


def test_the_page_says_how_to_report_a_vulnerability():
    assert "## Reporting a vulnerability" in SECURITY
