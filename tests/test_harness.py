"""The harness itself, briefly (the long runs are marked slow; BENCHMARKS.md has their figures): the fuzzer's targets
hold their invariants on a few thousand seeded inputs each, the fuzzer finds a planted fault, and a short flood of a
live game harms neither the game nor a late watcher."""

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
        rejections = [event for event in events if isinstance(event, LineRejected)]
        if events and len(rejections) == len(events) and rejections[0].code == "wrong-signer":
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
    """The long run: at least 1,000,000 generated inputs for the line parser and the session (minutes)."""
    figures = fuzz.run_random(target, 1_000_000, seed=2)
    assert figures["runs"] == 1_000_000 and figures["peak_rss_mib"] < 500


def run_harness(*command: str, timeout: float) -> tuple[int, dict[str, str]]:
    """Run a harness part as its own process (as a person would); its exit status and its ``name: value`` figures."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, *command], cwd=root, capture_output=True, text=True, timeout=timeout)
    figures = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    return result.returncode, figures


def test_a_short_flood_leaves_the_game_and_a_late_watcher_unharmed():
    """Six seconds of 20 connections flooding a live game from one address (the long run: 40 s of 60)."""
    status, figures = run_harness("bench/flood.py", "--quick", timeout=300)
    assert figures["game_finished"] == "1" and figures["watcher_status"] == "0", figures
    assert figures["watcher_saw_result"] == "1" and float(figures["relay_peak_mib"]) < 300, figures
    assert int(figures["relay_log_refusal_lines"]) < 50, figures  # refusals are summarised, not one a line
    assert status == 0


@pytest.mark.parametrize("second", [(), ("--second-relay",)], ids=["one relay", "two relays"])
def test_a_short_soak_loses_nothing_and_leaves_nothing_stuck(second):
    """Eight bot games through both relays (with and without their data on disk) behind the chaos proxy, a relay
    killed 0.25 s into each phase, players killed and resumed from their journals, a stranger flooding (the long run:
    1,000 games); with ``--second-relay``, each game over a second relay too, either of the two killed."""
    status, figures = run_harness("-m", "harness.soak", "--quick", *second, timeout=600)
    assert figures["games_finished"] == "8", figures
    assert figures["moves_lost"] == figures["games_stuck"] == figures["false_proofs"] == "0", figures
    assert second or int(figures["player_kills"]) > 0, figures  # two relays: games end fast, often before a kill
    assert (
        sum(
            int(figures[f"{phase}_relay_kills"])
            for phase in ("embedded_data", "embedded_memory", "mosquitto_data", "mosquitto_memory")
        )
        > 0
    ), figures
    assert status == 0, figures


@pytest.mark.slow
@pytest.mark.parametrize("second", [(), ("--second-relay",)], ids=["one relay", "two relays"])
def test_a_thousand_games(second):
    """The long soak: 1,000 games, 250 in each phase, a relay killed every 20 s (about 35 minutes); with a second
    relay per game, either killed."""
    status, figures = run_harness(
        "-m", "harness.soak", "--games", "1000", "--relay-kill-every", "20", *second, timeout=4 * 3600
    )
    assert figures["games_finished"] == "1000", figures
    assert figures["moves_lost"] == figures["games_stuck"] == figures["false_proofs"] == "0", figures
    assert status == 0, figures
