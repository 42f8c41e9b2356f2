"""The domain and the event store type-check (mypy), so a refactor cannot silently break them."""
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[2]


def test_domain_and_events_type_check():
    out, err, status = api.run([str(ROOT / "domain"), str(ROOT / "events"), "--ignore-missing-imports",
                                "--no-error-summary", "--cache-dir", str(ROOT / ".mypy_cache")])
    assert status == 0, out + err
