"""docs/security.md states every limit and quota with its number: a setting declared among the
limits (application/settings.py, section "Limits and quotas"), or a fixed cap added to the
code, without it fails here."""

import re
from pathlib import Path

from application.accounts import account_service as accounts
from application.accounts import passkeys
from application.alerts import channel_settings as alert_settings
from application.outbound import webhooks as webhook_subscriptions
from application.settings import DECLARED, LIMITS

ROOT = Path(__file__).resolve().parents[2]
SECURITY = (ROOT / "docs" / "security.md").read_text()


def _limits_table(text: str) -> str:
    start = text.index("## Limits and quotas")
    return text[start : text.index("\n## ", start + 1)]


def test_every_limit_and_quota_setting_is_in_the_security_page():
    settings = {s.name for s in DECLARED.values() if s.section == LIMITS}
    assert len(settings) >= 15
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
