"""The tree tells what the code does and why, never its history: no issue numbers, no "of before", no soak game
cited as a reason. Every tracked source and document file is read (the golden files and the page's vendored
library aside), and each pattern below is precise enough to leave legitimate text alone: CSS colours (``#222``),
Markdown headings, ply and move numbers, ``as of before it`` (the state before a line), a loop ``for x of before``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = (".py", ".pyi", ".md", ".js", ".mjs", ".toml", ".c", ".html")
LEFT_OUT = ("tests/golden/", "web/vendor/", "tests/test_house.py")
"""What is not scanned: files kept byte for byte (golden files, the vendored mqtt.js), and this file's examples."""

HISTORY = {
    "an issue number": re.compile(r"\bissues?\s+\d+", re.IGNORECASE),
    "a bare issue reference": re.compile(r"(?:^|[\s(\[,])#\d{1,3}(?![\w;])"),
    "'of before'": re.compile(r"(?<!as )\bof before\b(?!\))", re.IGNORECASE),
    "'as it should be now'": re.compile(r"\bas it should be now\b", re.IGNORECASE),
    "a soak's game as a reason": re.compile(
        r"\bsoak'?s?\s+(?:game|run)s?\s+\d+|\bgame\s+\d+\s+of\s+the\s+soak\b", re.IGNORECASE
    ),
    "a test named for a defect": re.compile(r"\bdef test_\w*(?:regression|issue_?\d)", re.IGNORECASE),
}
"""What tells history, by name: each pattern matches only what cannot be anything else."""


def tracked() -> list[Path]:
    """The tracked files the scan reads (``git ls-files``; without git or outside a checkout, the test skips)."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip("the tracked files need git and a checkout")
    names = [name for name in listed.decode().split("\0") if name.endswith(SUFFIXES)]
    return [ROOT / name for name in names if not name.startswith(LEFT_OUT) and (ROOT / name).is_file()]


def findings(text: str) -> list[str]:
    """Each pattern's name and the text it matched, for every match in ``text``."""
    return [
        f"{name}: {match.group().strip()!r}" for name, pattern in HISTORY.items() for match in pattern.finditer(text)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "after issue 21's clock work",
        "Issue 19 (3): a relay that dropped one line",
        "the attack of issues 9 and 17",
        "fixed in #12.",
        "see (#7) for the details",
        "the mcts of before issue 22",
        "each level a fifth of its time of before",
        "each rough edge, as it should be now",
        "The soak's game 306: the last line's wait ran out",
        "soak run 3 found it",
        "game 417 of the soak showed it",
        "def test_the_regression_of_the_clock():",
    ],
)
def test_each_kind_of_history_is_found(text):
    assert findings(text), text


@pytest.mark.parametrize(
    "text",
    [
        ":root { --pink: #d6336c; --black: #222; }",
        'rect.setAttribute("stroke", "#999")',
        "# The layers, and who may import whom",
        "## 3. Moves",
        "judge both as of before it; the higher rank stands",
        "for (const line of before) assert.equal(line, null);",
        "after ply 12 the board is full; move 7 of the game",
        "x = 1  # 2 s a move",
        "https://github.com/owner/name/issues/12",
        "the soak's 1,000 games finished",
    ],
)
def test_legitimate_text_is_left_alone(text):
    assert not findings(text), findings(text)


def test_no_tracked_file_tells_history():
    files = tracked()
    assert len(files) > 100 and ROOT / "README.md" in files, len(files)
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{path.relative_to(ROOT)}:{number}: {finding}" for finding in findings(line)]
    assert not found, "say what the code does and why, not its history:\n" + "\n".join(found)
