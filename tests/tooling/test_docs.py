"""The client documentation names every command, event and refusal the domain knows."""

import re
from pathlib import Path

from domain import COMMAND_TYPES, EVENT_TYPES

ROOT = Path(__file__).resolve().parents[2]
RULES = (ROOT / "docs" / "rules.md").read_text()


def test_every_command_and_event_has_an_example():
    for name in COMMAND_TYPES:
        assert f'{{"type": "{name}"' in RULES, name
    for name in EVENT_TYPES:
        assert f"| `{name}` |" in RULES, name


def test_every_refusal_code_is_listed():
    source = "".join(p.read_text() for p in (ROOT / "domain").glob("*.py"))
    codes = set(re.findall(r'IllegalCommand\(\s*"([a-z_]+)"', source))
    assert codes and all(f"`{code}`" in RULES for code in codes), sorted(c for c in codes if f"`{c}`" not in RULES)
