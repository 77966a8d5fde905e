"""The browser's judge (``web/js/judge.js``, ``session.js``, ``transcript.js``) against Python's, under Node's runner.

``web/tests/judge.test.js`` replays what ``tests/web_judge_cases.py`` writes to ``tmp_path``: every vector and a few
hundred games played with Python's sessions, with junk, in several orders; the JavaScript must reach Python's events,
state and refusals exactly.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import web_judge_cases
from relay_fixtures import TOOLS_REQUIRED

from protocol.rules import RULES, Phase, Sender

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    """The feeds and Python's verdicts on them, built once for the module."""
    return web_judge_cases.build()


def test_the_feeds_cover_every_vector_and_the_judge_s_every_part(document: dict[str, Any]) -> None:
    names = {entry["name"] for entry in document["vectors"]}
    assert {f"file {path.name}" for path in (ROOT / "protocol" / "vectors").glob("*.txt")} <= names
    assert len(document["vectors"]) >= 140
    games = document["games"]
    assert len(games) >= 600
    codes = {
        event[1] for entry in games for events in entry["events"] for event in events if event[0] == "LineRejected"
    }
    assert {
        "wrong-signer",
        "wrong-seat",
        "illegal-move",
        "non-canonical",
        "after-end",
        "bad-signature",
        "wrong-game",
        "early-claim",
    } <= codes
    kinds = {event[0] for entry in games for events in entry["events"] for event in events}
    assert {
        "Superseded",
        "EndDeclined",
        "ProposalWithdrawn",
        "ChatReceived",
        "PresenceChanged",
        "ResyncNeeded",
        "MovesTakenBack",
        "TakebackAsked",
        "RematchAsked",
        "EquivocationDetected",
        "ClaimVoided",
    } <= kinds
    assert any(entry["summary"]["witness_lies"] for entry in games)
    assert any(
        "as the time witnesses saw it" in entry["summary"]["result"]["sentence"]
        for entry in games
        if entry["summary"]["result"]
    )
    endings = {entry["summary"]["result"]["code"].split("-")[-1] for entry in games if entry["summary"]["result"]}
    assert {
        "agreed",
        "resigned",
        "forfeit",
        "aborted",
        "withdrawn",
        "symbol",
        "colour",
        "stones",
        "formation",
        "time",
        "abandoned",
        "dispute",
        "equivocation",
    } <= endings
    assert {"host-equivocation", "guest-equivocation", "equivocation"} <= {
        entry["summary"]["result"]["code"] for entry in games if entry["summary"]["result"]
    }
    timed = [entry for entry in games if entry["summary"]["clocks"] is not None]
    assert len(timed) >= 100 and any(entry["summary"]["claims"] for entry in timed)
    assert any(answer[5] for entry in timed for answer in entry["summary"]["answers"])  # unexplained time, measured


@pytest.mark.skipif(
    NODE is None and not TOOLS_REQUIRED,
    reason="Node is not installed (scripts/test installs it, and makes its absence a failure)",
)
def test_node_judges_every_feed_as_python_does(document: dict[str, Any], tmp_path: Path) -> None:
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(document))
    env = {**os.environ, "OLIXONO_WEB_JUDGE_CASES": str(cases)}
    run = subprocess.run(
        [str(NODE), "--test", "web/tests/judge.test.js"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    summary = {
        line.split()[1]: int(line.split()[2])
        for line in run.stdout.splitlines()
        if line.startswith("# ") and len(line.split()) == 3 and line.split()[2].isdigit()
    }
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert summary.get("fail") == 0 and summary.get("skipped") == 0 and summary.get("pass", 0) >= 2, summary


JUDGE_MODULES = (
    "judge.js",
    "session.js",
    "transcript.js",
    "events.js",
    "evidence.js",
    "seating.js",
    "waiting.js",
    "protocol-rules.js",
    "clock.js",
    "claims.js",
    "witness.js",
)


@pytest.mark.parametrize("name", JUDGE_MODULES)
def test_judge_modules_import_only_the_page_s_own(name: str) -> None:
    """What a browser loads as it is: no package, no Node module, nothing outside ``web/js/``."""
    source = (ROOT / "web" / "js" / name).read_text(encoding="utf-8")
    imported = re.findall(r"^(?:import|export)\b[^;]*?\bfrom\s+[\"']([^\"']+)[\"']", source, flags=re.M | re.S)
    assert all(path.startswith("./") and (ROOT / "web" / "js" / path).is_file() for path in imported)
    assert "require(" not in source and "process." not in source


@pytest.mark.skipif(NODE is None and not TOOLS_REQUIRED, reason="Node is not installed (scripts/test installs it)")
def test_the_pages_clocks_read_as_the_terminals() -> None:
    from client.words.board import clock_left_text

    values = [
        0,
        99,
        950,
        9_999,
        10_000,
        59_999,
        60_000,
        307_000,
        3_599_999,
        3_600_000,
        86_399_999,
        86_400_000,
        3 * 86_400_000 + 5_000,
    ]
    script = (
        "import { clockText } from './web/js/watcher.js';"
        f"console.log(JSON.stringify({json.dumps(values)}.map(clockText)));"
    )
    done = subprocess.run(
        [NODE or "node", "--input-type=module", "-e", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [clock_left_text(value) for value in values]


@pytest.mark.skipif(NODE is None and not TOOLS_REQUIRED, reason="Node is not installed (scripts/test installs it)")
def test_the_pages_table_of_who_may_send_what_is_pythons() -> None:
    """``web/js/protocol-rules.js`` holds :data:`protocol.rules.RULES` by its words: each phase's and sender's value,
    each message type's name, each rank's number."""
    script = (
        "import { Phase, RULES, Sender } from './web/js/protocol-rules.js';"
        "console.log(JSON.stringify({ Phase, RULES, Sender }));"
    )
    done = subprocess.run(
        [NODE or "node", "--input-type=module", "-e", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "Phase": {phase.name: phase.value for phase in Phase},
        "RULES": {
            phase.value: {
                sender.value: {str(kind): int(rank) for kind, rank in ranks.items()}
                for sender, ranks in senders.items()
            }
            for phase, senders in RULES.items()
        },
        "Sender": {sender.name: sender.value for sender in Sender},
    }
