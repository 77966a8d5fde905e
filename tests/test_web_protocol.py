"""The browser's second implementation of the protocol's line layer (``web/js/``), under Node's test runner.

``web/tests/protocol*.test.js`` compare the JavaScript's verdict on every line of the vectors and on a few hundred
damaged and forged lines with Python's (``tests/web_protocol_cases.py`` writes them to ``tmp_path``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import web_protocol_cases
from relay_fixtures import TOOLS_REQUIRED

from protocol.messages import SCHEMAS

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")
LINE_CODES = {
    "oversize",
    "bad-utf8",
    "control-character",
    "syntax",
    "unknown-version",
    "unknown-type",
    "unknown-field",
    "bad-field",
    "non-canonical",
    "weak-key",
    "bad-signature",
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("web-protocol") / "cases.json"
    path.write_text(json.dumps(web_protocol_cases.build()))
    return path


def test_the_cases_cover_every_code_a_line_can_earn_and_every_type(cases: Path) -> None:
    document = json.loads(cases.read_text())
    damaged = document["damaged"]
    assert len(damaged) >= 300
    assert set(Counter(case["code"] for case in damaged)) == LINE_CODES | {None}
    accepted = {
        case["message"]["type"] for part in ("vectors", "damaged") for case in document[part] if case["code"] is None
    }
    assert accepted == set(SCHEMAS)
    assert {case["code"] for case in document["chains"]} == {None, "wrong-game", "broken-link", "gap"}
    assert any(case["code"] == "bad-signature" and case["unverified"] is None for case in damaged)  # off the curve


@pytest.mark.skipif(
    NODE is None and not TOOLS_REQUIRED,
    reason="Node is not installed (scripts/test installs it, and makes its absence a failure)",
)
def test_node_reaches_pythons_verdict_on_every_line(cases: Path) -> None:
    tests = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "web" / "tests").glob("protocol*.test.js"))
    assert tests
    env = {**os.environ, "OLIXONO_WEB_PROTOCOL_CASES": str(cases)}
    run = subprocess.run([str(NODE), "--test", *tests], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    summary = {
        line.split()[1]: int(line.split()[2])
        for line in run.stdout.splitlines()
        if line.startswith("# ") and len(line.split()) == 3 and line.split()[2].isdigit()
    }
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert summary.get("fail") == 0 and summary.get("skipped") == 0 and summary.get("pass", 0) >= 10, summary


def test_the_javascript_unicode_tables_are_what_the_generator_writes() -> None:
    generator = ROOT / "scripts" / "web_unicode_tables.py"
    spec = importlib.util.spec_from_file_location("web_unicode_tables_generator", generator)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "web" / "js" / "messages-unicode.js").read_text() == module.render()
