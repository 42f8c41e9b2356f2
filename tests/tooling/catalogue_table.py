"""The building catalogue as the Markdown table in docs/rulings.md (R14), from the data."""

from __future__ import annotations

from domain.catalogue import BUILDINGS, Reward


def _reward(reward: Reward) -> str:
    return " ".join(f"{n}{k}" for n, k in ((reward.crystals, "c"), (reward.scales, "s"), (reward.cards, "k")) if n)


def render() -> str:
    rows = [
        "| id | name | spaces (left to right) | majority | construction | neighbourhood | provenance |",
        "|---|---|---|---|---|---|---|",
    ]
    for b in BUILDINGS.values():
        spaces = ", ".join(f"{s.colour.value if s.colour else 'any'} {s.value}" for s in b.spaces)
        provenance = ", ".join(f"{field.replace('_', ' ')} {letter}" for field, letter in b.provenance.items())
        name = b.name + (" (expansion)" if b.expansion else "") + (" (starting tile)" if b.starting else "")
        rows.append(
            f"| {b.id} | {name} | {spaces} | {_reward(b.majority)} | {_reward(b.construction)} | "
            f"{_reward(b.neighbourhood)} | {provenance} |"
        )
    return "\n".join(rows)
