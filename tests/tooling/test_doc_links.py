"""The README stays a first page (at most 200 lines: what it is, the two commands, a game, the
page, links), and every relative link in it and in docs/ reaches a file that exists, and a
heading there when it names one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "examples" / "README.md"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, without punctuation, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)  # a shell comment is no heading
    return {slug(h.replace("`", "")) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in LINK.findall(CODE.sub("", page.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not ours to check
            continue
        path, _, anchor = target.partition("#")
        found = (page.parent / path).resolve() if path else page
        if not found.exists():
            broken.append(f"{target}: no such file")
        elif anchor and found.suffix == ".md" and anchor not in anchors(found):
            broken.append(f"{target}: no such heading")
    return broken


def test_the_readme_is_at_most_200_lines():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_heading_that_exist(page):
    assert broken_links(page) == []


def test_the_check_sees_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## A heading: with `code`, punctuation\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#a-heading-with-code-punctuation) [web](https://example.com/x) `[not](a-link.md)`\n"
        "[gone](gone.md) [no heading](other.md#nowhere) [here](#page)\n# Page\n"
    )
    assert broken_links(page) == ["gone.md: no such file", "other.md#nowhere: no such heading"]
