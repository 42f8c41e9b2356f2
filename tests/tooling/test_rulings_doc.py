"""The project stands alone: docs/rulings.md states every ruling the code cites, its building
catalogue matches the data, and nothing in the repository points outside it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.tooling.catalogue_table import render

ROOT = Path(__file__).resolve().parents[2]
RULINGS = (ROOT / "docs" / "rulings.md").read_text()


def tracked(*patterns: str) -> list[Path]:
    names = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / n for n in names.split()]


def test_every_ruling_the_code_and_docs_cite_is_a_heading_of_docs_rulings_md():
    headings = set(re.findall(r"^#{2,3} ([RP]\d+)\.", RULINGS, re.M))
    assert {f"R{i}" for i in range(1, 17)} <= headings and {f"P{i}" for i in range(1, 17)} <= headings
    cited = set()
    for path in tracked("*.py", "*.md", "*.js"):
        cited |= set(re.findall(r"\b([RP]1\d|[RP][1-9])\b(?![\d.])", path.read_text()))
    assert cited - headings == set()


def test_the_building_catalogue_in_the_doc_is_the_data():
    assert render() in RULINGS, "the R14 table differs from domain/catalogue.py"


def test_nothing_in_the_repository_points_outside_it():
    outside = [
        p.relative_to(ROOT)
        for p in tracked()
        if p.is_file()
        and p != Path(__file__)
        and p.suffix in {".py", ".md", ".yaml", ".toml", ".html", ".txt", ""}
        and re.search(r"\.\./shared|RULINGS\.md|rulebook-20\d\d", p.read_text(errors="ignore"))
    ]
    assert outside == []
