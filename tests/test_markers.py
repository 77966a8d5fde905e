"""The markers select what they say: ``-m network`` the tests that start a relay, ``-m 'not network'`` the others."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("tests/test_relay_suite.py", "tests/test_relay_lines.py", "tests/test_engine.py")
"""A module whose every test starts a relay, one where a fixture starts it for some, and one that needs none."""


def collected(*arguments: str) -> set[str]:
    """The ids pytest collects from :data:`MODULES` with ``arguments``."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *arguments, *MODULES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: nothing selected
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_network_and_not_network_split_the_tests_by_whether_they_start_a_relay():
    everything = collected()
    network = collected("-m", "network")
    offline = collected("-m", "not network")
    assert network | offline == everything and not network & offline
    assert {test for test in everything if test.startswith("tests/test_relay_suite.py")} <= network
    assert not {test for test in network if test.startswith("tests/test_engine.py")}
    lines = {test.split("::")[1] for test in network if test.startswith("tests/test_relay_lines.py")}
    assert "test_nobody_can_erase_or_replace_a_finished_games_lines_on_the_embedded_relay[anonymous]" in lines
    assert "tests/test_relay_lines.py::test_each_kind_of_junk_is_refused_with_its_reason" in offline
