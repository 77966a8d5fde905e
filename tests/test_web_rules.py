"""The rules' second implementation, in JavaScript (``web/js/oxono.js``, ``web/js/olix.js``), under Node's own
test runner: its unit tests, and the playthroughs of the Python engines (``tests/web_cases.py``) replayed on it.

Each Node test runs ``node --test`` on one file of ``web/tests/`` whose name starts with ``rules`` and shows Node's
report when it fails. Skipped on a developer's machine without Node, never in CI or under scripts/test, where a missing
install fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from relay_fixtures import TOOLS_REQUIRED

ROOT = Path(__file__).resolve().parent.parent
NODE_TESTS = sorted((ROOT / "web" / "tests").glob("rules*.test.js"))
RULES_MODULES = ("rules-common.js", "oxono.js", "olix.js")

needs_node = pytest.mark.skipif(
    shutil.which("node") is None and not TOOLS_REQUIRED,
    reason="node is not installed (apt-get install nodejs; bash scripts/test does it)",
)


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python engines' playthroughs, written once for the module by ``tests/web_cases.py`` (a process of its
    own: it runs the Python rule tests to learn their positions)."""
    out = tmp_path_factory.mktemp("web-cases") / "cases.json"
    made = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "web_cases.py"), str(out)],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert made.returncode == 0, f"tests/web_cases.py failed:\n{made.stdout[-4000:]}\n{made.stderr[-4000:]}"
    return out


@pytest.mark.parametrize("name", RULES_MODULES)
def test_rules_modules_import_only_each_other(name: str) -> None:
    """What a browser loads as it is: no package, no Node module, nothing outside ``web/js/``."""
    source = (ROOT / "web" / "js" / name).read_text(encoding="utf-8")
    imported = re.findall(r"^(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'", source, flags=re.M | re.S)
    assert all(path.startswith("./") and (ROOT / "web" / "js" / path).is_file() for path in imported), imported
    assert "require(" not in source and "process." not in source


def test_there_are_node_rules_tests() -> None:
    assert {path.name for path in NODE_TESTS} >= {"rules.test.js", "rules-units.test.js"}


@needs_node
@pytest.mark.parametrize("path", NODE_TESTS, ids=[path.name for path in NODE_TESTS])
def test_node_rules(path: Path, request: pytest.FixtureRequest) -> None:
    node = shutil.which("node")
    assert node is not None, "node is not installed (apt-get install nodejs)"
    env = dict(os.environ, NO_COLOR="1")
    if path.name == "rules.test.js":  # the one that replays the playthroughs (the others need none written)
        env["OLIXONO_WEB_CASES"] = str(request.getfixturevalue("cases"))
    ran = subprocess.run(
        [node, "--test", "--test-reporter=spec", str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, (
        f"node --test {path.relative_to(ROOT)} failed:\n{ran.stdout[-8000:]}\n{ran.stderr[-4000:]}"
    )
    assert "ℹ pass" in ran.stdout and "ℹ fail 0" in ran.stdout, ran.stdout[-2000:]
