"""The protocol test vectors in ``protocol/vectors/``: up to date, and every verdict as written."""

from __future__ import annotations

import json
import os

import pytest

import vector_maker
from protocol.keys import b64
from protocol.session import verify_transcript

VECTORS = vector_maker.VECTORS
DOCUMENT = json.loads((VECTORS / "vectors.json").read_text())


def test_vectors_are_what_the_maker_builds():
    built = vector_maker.build()
    if os.environ.get("OLIXONO_REGENERATE_GOLDEN") == "1":
        for name, text in built.items():
            (VECTORS / name).write_text(text)
    for name, text in built.items():
        assert (VECTORS / name).read_text() == text, f"{name} is stale: OLIXONO_REGENERATE_GOLDEN=1 rebuilds it"


@pytest.mark.parametrize("game", DOCUMENT["games"], ids=lambda g: g["kind"])
def test_complete_games_verify(game):
    lines = (VECTORS / game["file"]).read_text().splitlines()
    session, number, problem = verify_transcript(lines)
    assert problem is None, (number, problem)
    assert session.kind == game["kind"] and session.game_id == game["game"]
    assert session.outcome.text() == game["outcome"] and session.moves == game["moves"]
    keys = {name: key["public"] for name, key in DOCUMENT["keys"].items()}
    assert {player: keys[name] for player, name in game["seats"].items()} == {
        player: b64(key) for player, key in session.seats.items()
    }


def test_every_required_rejection_code_has_a_case():
    codes = {case["code"] for case in DOCUMENT["cases"]}
    assert {"bad-signature", "wrong-signer", "wrong-seat", "broken-link", "gap", "non-canonical", "oversize",
            "unknown-version", "illegal-move", "equivocation", "after-end"} <= codes


@pytest.mark.parametrize("case", DOCUMENT["cases"], ids=lambda c: c["name"])
def test_each_case_is_refused_at_its_last_line_with_its_code(case):
    lines = [line.encode("utf-8") for line in case["lines"]]
    if "last_hex" in case:
        lines.append(bytes.fromhex(case["last_hex"]))
    _, number, problem = verify_transcript(lines)
    assert problem is not None and problem.code == case["code"] and number == len(lines)
    _, number, problem = verify_transcript(lines[:-1])
    assert problem is None
