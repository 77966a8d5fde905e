"""The protocol test vectors in ``protocol/vectors/``: up to date, and every verdict as written."""

from __future__ import annotations

import itertools
import json

import ed25519_reference as ref
import pytest
import vector_maker
from protocol_helpers import result_of

from protocol import GameSession, check_equivocation_proof, verify_transcript
from protocol.keys import SMALL_ORDER_ENCODINGS

VECTORS = vector_maker.VECTORS
DOCUMENT = json.loads((VECTORS / "vectors.json").read_text())


def test_vectors_are_what_the_maker_builds():
    built = vector_maker.build()
    assert sorted(built) == sorted(path.name for path in VECTORS.iterdir() if path.name != "README.md")
    for name, text in built.items():
        assert (VECTORS / name).read_text() == text, f"{name} is stale: scripts/regenerate_golden.py rebuilds it"


@pytest.mark.parametrize("game", DOCUMENT["games"], ids=lambda g: g["file"])
def test_complete_games_verify(game):
    lines = (VECTORS / game["file"]).read_text().splitlines()
    session, number, problem = verify_transcript(lines)
    assert problem is None, (number, problem)
    assert session.kind == game["kind"] and session.game_id == game["game"]
    assert result_of(session).text() == game["outcome"] and result_of(session).sentence() == game["sentence"]
    assert session.moves == game["moves"] and len(lines) == game["lines"]
    assert sorted(str(session.role_of(key)) for key in session.confirmed_by) == game["confirmed_by"]
    assert session.terms == game["terms"] and session.clocks == game["clocks"]  # every receiver's official clock
    assert {player: vars_of(side) for player, side in session.time_used().items()} == game["time_used"]
    keys = {name: key["public"] for name, key in DOCUMENT["keys"].items()}
    assert {player: keys[name] for player, name in game["seats"].items()} == {
        player: key.text for player, key in session.seats.items()
    }


def test_every_ending_and_every_message_type_has_a_game():
    reasons = {g["outcome"].split()[-1] for g in DOCUMENT["games"]}
    assert {"agreed", "resigned", "aborted", "forfeit", "withdrawn"} <= reasons
    assert any(g["confirmed_by"] == ["guest", "host"] for g in DOCUMENT["games"])
    assert any(g["confirmed_by"] == [] for g in DOCUMENT["games"])
    types = {line.split()[1] for g in DOCUMENT["games"] for line in (VECTORS / g["file"]).read_text().splitlines()}
    assert types >= {
        "offer",
        "join",
        "accept",
        "reveal",
        "claim",
        "move",
        "propose",
        "withdraw",
        "decline",
        "agree",
        "resign",
        "abort",
        "confirm",
    }


def test_every_rejection_code_and_every_refused_encoding_has_a_case():
    codes = {case["code"] for case in DOCUMENT["cases"]}
    assert {
        "bad-signature",
        "weak-key",
        "wrong-signer",
        "wrong-seat",
        "broken-link",
        "gap",
        "non-canonical",
        "oversize",
        "unknown-version",
        "unknown-term",
        "illegal-move",
        "equivocation",
        "after-end",
        "superseded",
        "limit",
    } <= codes
    weak = {case["name"].removeprefix("weak-key-") for case in DOCUMENT["cases"] if case["code"] == "weak-key"}
    small_r = {
        case["name"].removeprefix("bad-signature-small-order-r-")
        for case in DOCUMENT["cases"]
        if case["name"].startswith("bad-signature-small-order-r-")
    }
    expected = {key.hex()[:8] + key.hex()[-2:] for key in SMALL_ORDER_ENCODINGS}
    assert weak == small_r == expected and len(expected) == 14
    assert set(DOCUMENT["small_order_encodings"]) == {key.hex() for key in SMALL_ORDER_ENCODINGS}
    assert {bytes.fromhex(text) for text in DOCUMENT["small_order_encodings"]} == ref.small_order_encodings()


@pytest.mark.parametrize("case", DOCUMENT["cases"], ids=lambda c: c["name"])
def test_each_case_is_refused_at_its_last_line_with_its_code(case):
    lines = [line.encode("utf-8") for line in case["lines"]]
    if "last_hex" in case:
        lines.append(bytes.fromhex(case["last_hex"]))
    _, number, problem = verify_transcript(lines)
    assert problem is not None and problem.code == case["code"] and number == len(lines), (number, problem)
    _, number, problem = verify_transcript(lines[:-1])
    assert problem is None


@pytest.mark.parametrize("race", DOCUMENT["races"], ids=lambda r: r["name"])
def test_races_end_with_one_transcript_in_every_order(race):
    for order in itertools.permutations(race["lines"]):
        session = GameSession()
        session.receive_all([*race["prefix"], *order])
        assert list(session.transcript) == race["transcript"], order
        assert (session.result.text() if session.result else None) == race["outcome"]


@pytest.mark.parametrize("forfeit", DOCUMENT["forfeits"], ids=lambda f: f["name"])
def test_a_forfeit_is_the_same_in_every_order_and_its_record_verifies(forfeit):
    for order in itertools.permutations(forfeit["lines"]):
        session = GameSession()
        session.receive_all([*forfeit["prefix"], *order])
        assert result_of(session).text() == forfeit["outcome"] and result_of(session).sentence() == forfeit["sentence"]
        assert (len(session.chain) == forfeit["chain"] and list(session.record) == forfeit["record"]) or (
            sorted(session.record) == sorted(forfeit["record"])
        )
        assert (session.branch[0].hash if session.branch else None) == forfeit["branch"]
    session, _number, problem = verify_transcript(forfeit["record"])
    assert problem is None and result_of(session).text() == forfeit["outcome"]


def test_confirmations_are_rated_against_the_receivers_ending():
    vector = DOCUMENT["confirmations"]
    session = GameSession()
    session.receive_all(vector["prefix"])
    keys = {name: key["public"] for name, key in DOCUMENT["keys"].items()}
    seen = []
    for line in vector["lines"]:
        session.receive(line)
        seen.append(
            {
                name: session.confirmation(
                    next(k for k in (session.host, session.guest) if k is not None and k.text == keys[name])
                )
                for name in ("host", "guest")
            }
        )
    assert seen == vector["confirmation"]
    assert seen[-1] == {"host": "confirmed", "guest": "confirmed"} and "disputed" in seen[1].values()


@pytest.mark.parametrize("case", DOCUMENT["relay_lines"], ids=lambda c: c["name"])
def test_what_the_reference_relay_keeps_on_a_games_topics(case):
    from relay.lines import refusal

    held = case["held"].encode() if case["held"] is not None else None
    assert (refusal(case["topic"], case["payload"].encode(), held) is None) is case["kept"]


@pytest.mark.parametrize("proof", DOCUMENT["proofs"], ids=lambda p: p["why"])
def test_equivocation_proofs(proof):
    signer = check_equivocation_proof(proof["first"], proof["second"])
    assert (signer.text if signer else None) == proof["signer"]


def test_presence_is_the_latest_line():
    vector = DOCUMENT["presence"]
    session = GameSession()
    session.receive_all(vector["prefix"])
    guest = session.guest
    assert guest is not None
    seen = []
    for line in vector["lines"]:
        session.receive(line)
        seen.append(session.present(guest))
    assert seen == vector["here"] == [True, False, False, True, True]


def vars_of(side) -> dict[str, int]:
    return {"used": side.used, "unexplained": side.unexplained, "moves": side.moves, "measured": side.measured}
