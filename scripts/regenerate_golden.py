"""Write the golden files again: the engines' playthroughs and the analysis's planted game (``tests/golden/``) and the
protocol's vectors (``protocol/vectors/``), from the very functions the tests compare them with.

    python3 scripts/regenerate_golden.py

Run it only after a change that is meant to change them (a rule, a message's format), then read the diff: the
tests only compare, so a golden file that goes stale fails them, it never rewrites itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import test_analysis  # noqa: E402
import test_olix  # noqa: E402
import test_oxono  # noqa: E402
import vector_maker  # noqa: E402


def main() -> int:
    written: dict[Path, str] = {}
    for seed, style in test_olix.PLAYTHROUGHS:
        written[test_olix.GOLDEN / f"olix_playthrough_{style}_{seed}.txt"] = (
            "\n".join(test_olix.playthrough(seed, style)) + "\n"
        )
    for seed in test_oxono.PLAYTHROUGHS:
        written[test_oxono.GOLDEN / f"oxono_playthrough_{seed}.txt"] = test_oxono.playthrough(seed)
    written[test_analysis.PLANTED] = test_analysis.planted_text()
    for name, text in vector_maker.build().items():
        written[vector_maker.VECTORS / name] = text
    changed = 0
    for path, text in written.items():
        if not path.exists() or path.read_text() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            changed += 1
            print(f"wrote {path.relative_to(ROOT)}")
    print(f"{changed} of {len(written)} golden files changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
