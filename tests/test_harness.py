"""The harness itself, briefly (the long runs are marked slow; BENCHMARKS.md has their figures): the fuzzer's targets
hold their invariants on a few thousand seeded inputs each, and the fuzzer finds a planted fault."""

from __future__ import annotations

import pytest

from harness import fuzz


@pytest.mark.parametrize("target", fuzz.TARGETS)
def test_every_target_holds_its_invariants_briefly(target):
    figures = fuzz.run_random(target, 1500 if target == "journal" else 3000, seed=1)
    assert figures["runs"] >= 1500


def test_the_fuzzer_finds_a_planted_fault(monkeypatch):
    """A session that changes its state on a refused line is caught, with the input that did it."""
    from protocol import GameSession, LineRejected

    real = GameSession.receive

    def careless(self, data):
        events = real(self, data)
        if events and all(isinstance(event, LineRejected) for event in events) and events[0].code == "wrong-signer":
            self._transcript.append("a refused line, kept by mistake")
        return events

    monkeypatch.setattr(GameSession, "receive", careless)
    with pytest.raises(fuzz.Broken, match="a refused line changed the game"):
        fuzz.run_random("session", 3000, seed=1)


def test_a_decoder_that_raises_the_wrong_error_is_caught(monkeypatch):
    def broken(data, verify=True):
        raise IndexError("out of range")

    monkeypatch.setattr(fuzz, "decode", broken)
    with pytest.raises(fuzz.Broken, match="decode raised IndexError"):
        fuzz.run_random("line", 10, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("target", ["line", "session"])
def test_a_million_inputs(target):
    """The issue's run: at least 1,000,000 generated inputs for the line parser and the session (minutes)."""
    figures = fuzz.run_random(target, 1_000_000, seed=2)
    assert figures["runs"] == 1_000_000 and figures["peak_rss_mib"] < 500
