"""The rules live in the repository: ``docs/oxono.md`` and ``docs/olix.md`` number every rule of their game, each
rule a test is named after (``test_rule_08_…``) is there under its number, and nothing cites a rules page from
outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

GAMES = {"oxono": 14, "olix": 13}
"""Each game's page and how many rules it numbers."""
OUTSIDE = re.compile(rb"\bRULES" + rb"\.md\b", re.IGNORECASE)
"""A rules page outside the repository, which nothing may cite (spelled in two pieces, so this file is no citation
of it)."""


def numbered(game: str) -> list[int]:
    """The rule numbers ``docs/GAME.md`` gives, in order: each rule a list item ``- **Rule N.** …``."""
    text = (ROOT / "docs" / f"{game}.md").read_text(encoding="utf-8")
    return [int(number) for number in re.findall(r"^- \*\*Rule (\d+)\.\*\* ", text, re.MULTILINE)]


def rules_tested(game: str) -> set[int]:
    """The rule numbers ``tests/test_GAME_rules.py`` names its tests after."""
    text = (ROOT / "tests" / f"test_{game}_rules.py").read_text(encoding="utf-8")
    return {int(number) for number in re.findall(r"^def test_rule_0*(\d+)_", text, re.MULTILINE)}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_rule_is_numbered_once_and_in_order(game):
    assert numbered(game) == list(range(1, GAMES[game] + 1))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_rule_a_test_is_named_after_is_in_the_page(game):
    assert rules_tested(game) == set(numbered(game))


def test_no_file_cites_a_rules_page_outside_the_repository():
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: no tracked files to read")
    citing = []
    for name in filter(None, listed.decode().split("\0")):
        path = ROOT / name
        if path.is_file() and OUTSIDE.search(path.read_bytes()):
            citing.append(name)
    assert not citing, f"these cite a rules page outside the repository, not docs/oxono.md or docs/olix.md: {citing}"
