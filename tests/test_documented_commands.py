"""Every ``olixono`` command README.md, CONTRIBUTING.md, CHANGELOG.md and docs/*.md show, checked through the real
command line: each parses with the real argparse parser (a failure names its file and line), and the ones that play
(the bot-seat examples, and export, verify, replay and analyze on the finished game) are run against a relay this test
starts. CONTRIBUTING.md's other commands are the suite's own tools: each is run here, or is one the suite itself runs.

Every process is started here and stopped by its PID; traffic goes to 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_helpers import ROOT, finish, home, read_until, run, spawn, stop, typed

from client.cli import build_parser
from olixono.arguments import option_strings, protect_ids
from protocol import Identity

DOCUMENTS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
GAME_ID = "b8iwQmV2RfS9dxX4kPz1AA"
"""A well-formed game id, for GAME and ID where the command is only parsed."""
KINDS = ("host", "play")
"""Where GAME would be a game's kind, not its id (the docs write ``oxono`` or ``olix`` there)."""


@dataclass(frozen=True)
class Documented:
    """One command as a document shows it: where, and its text (``olixono …``, a shell's comment and prompt off)."""

    path: Path
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}: {self.text}"


def documented() -> list[Documented]:
    """Every ``olixono`` command line of the documents: in code blocks (indented or fenced; ``$ `` and ``# comments``
    off, a line ending in ``\\`` joined to the next, commands joined by ``&&`` taken apart) and in inline code that
    begins with it (after ``VAR=value`` words, or a pipe into it). A bare ``olixono NAME`` in prose names a command:
    it is kept too, and checked as a name."""
    found: list[Documented] = []
    for path in DOCUMENTS:
        lines = path.read_text(encoding="utf-8").splitlines()
        fence, pending = False, ""
        for number, line in enumerate(lines, 1):
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
            if fence or line.startswith("    "):
                text = pending + line.strip().removeprefix("$ ")
                if text.endswith("\\"):
                    pending = text[:-1]
                    continue
                pending = ""
                texts = [part.strip() for part in re.sub(r"\s+#( .*)?$", "", text).split(" && ")]
            else:
                texts = [part.replace("\\|", "|") for part in re.findall(r"`([^`]+)`", line)]
            for text in texts:
                if re.match(r"^(\w+=\S+ )*olixono( |$)", text) or re.search(r"\| olixono ", text):
                    found.append(Documented(path, number, " ".join(text.split())))
    return found


def words(command: Documented, values: dict[str, str]) -> list[str]:
    """The command's arguments after ``olixono``: a synopsis's ``[--x A|B]`` as ``--x A``; placeholders replaced by
    ``values`` (GAME a game's kind after host and play); ``VAR=value`` words before it, and a pipe into it or out of
    it, or a redirection, left out."""
    start = re.search(r"(^|\s)olixono( |$)", command.text)
    assert start is not None, command
    text = re.sub(r"\[([^\[\]]*)\]", r"\1", command.text[start.end(1) :])
    tokens = shlex.split(text)
    while tokens and tokens[0] != "olixono":
        tokens.pop(0)
    args: list[str] = []
    for token in tokens[1:]:
        if token in ("|", ">", "<", ">>"):
            break
        if "|" in token:
            token = token.split("|")[0]
        if token == "GAME" and args and args[0] in KINDS:
            token = "oxono"
        args.append(values.get(token, token))
    return args


def parse(args: list[str]) -> None:
    parser = build_parser()
    parser.parse_args(protect_ids(args, option_strings(parser)))


COMMANDS = documented()


def test_the_documents_show_the_commands_this_test_runs():
    texts = {command.text for command in COMMANDS}
    assert len(COMMANDS) > 80, COMMANDS
    assert {
        "olixono join GAME --level hard",
        "olixono host oxono --level normal",
        "olixono verify game.txt",
        "olixono replay game.txt",
        "olixono export GAME > game.txt",
    } <= {re.sub(r"\s+#.*$", "", text) for text in texts}


def test_every_documented_command_parses(tmp_path):
    """Each with the real parser; placeholders as a person fills them in; a bare ``olixono NAME`` in prose, a
    command's name that exists."""
    values = {
        "GAME": GAME_ID,
        "ID": GAME_ID,
        "KEY": Identity.generate().public.text,
        "FILE": "game.txt",
        "URL": "mqtt://127.0.0.1:1883",
        "N": "3",
        "S": "2",
        "H": "127.0.0.1",
        "DIR": str(tmp_path),
        "NAME": "alice",
        "F": "file",
        "OTHER:1883": "127.0.0.1:1883",
        "bridge.NAME": "bridge.alice",
    }
    names = next(action for action in build_parser()._actions if action.dest == "command").choices
    assert names is not None
    broken = []
    for command in COMMANDS:
        args = words(command, values)
        prose = command.path.read_text(encoding="utf-8").splitlines()[command.line - 1].startswith("    ") is False
        if prose and len(args) <= 2 and "|" not in command.text and not any("-" in arg[:1] for arg in args):
            if not args:
                continue
            if args[0] not in names:
                broken.append(f"{command}  (no command {args[0]!r})")
                continue
            try:  # a command's name (``olixono relay mosquitto-config``), else a command that must parse
                parse([*args, "--help"])
            except SystemExit as exc:
                if exc.code == 0:
                    continue
        try:
            parse(args)
        except SystemExit as exc:
            if exc.code != 0:
                broken.append(str(command))
    assert not broken, "documented commands that do not parse:\n" + "\n".join(broken)


def documented_as(text: str) -> list[str]:
    """The arguments of the documented command ``text`` (it must be in a document: a test that runs it fails when
    the documents change it)."""
    for command in COMMANDS:
        if re.sub(r"\s+#.*$", "", command.text) == text:
            return words(command, {})
    raise AssertionError(f"no document shows {text!r}")


async def test_the_documented_bot_seats_play_and_the_record_commands_work_on_the_game(relay, tmp_path):
    """``olixono host oxono --level normal`` and ``olixono join GAME --level hard`` as documented (the relay from
    OLIXONO_RELAY, as a person sets it), each against a person who resigns; then ``export``, ``verify``, ``replay``
    and ``analyze`` as documented, on the finished game; ``watch GAME --plain`` and ``games --all`` too."""
    host_env, _ = home(tmp_path, "host")
    guest_env, _ = home(tmp_path, "guest")
    host_env["OLIXONO_RELAY"] = guest_env["OLIXONO_RELAY"] = relay.url
    host = await spawn(host_env, *documented_as("olixono host oxono --level normal"))
    lines: list[str] = []
    try:
        game = (await read_until(host, r"olixono join (\S{22})", lines)).group(1)
        code, out, err = await run(guest_env, "join", game, "--plain", stdin_text="resign\n", timeout=60)
        assert code == 0 and "result: " in out, (out, err)
        assert await finish(host, lines, 60) == 0, lines
    finally:
        await stop(host)

    host = await spawn(host_env, "host", "oxono", "--plain", stdin=True)
    lines = []
    try:
        game = (await read_until(host, r"olixono join (\S{22})", lines)).group(1)
        await typed(host, b"resign\n")  # held until the seats are drawn
        joining = [game if word == "GAME" else word for word in documented_as("olixono join GAME --level hard")]
        code, out, err = await run(guest_env, *joining, timeout=90)
        assert code == 0 and "result: " in out, (out, err)
        assert await finish(host, lines, 60) == 0, lines
    finally:
        await stop(host)

    record = tmp_path / "game.txt"
    values = {"GAME": game, "game.txt": str(record)}
    code, out, err = await run(guest_env, *documented_with("olixono export GAME > game.txt", values))
    assert code == 0 and out.strip(), (out, err)
    record.write_text(out)
    for text, expected in (
        ("olixono verify game.txt", "finished"),
        ("olixono replay game.txt", "oxono"),
        ("olixono analyze game.txt --iterations 1000", "mean loss"),
    ):
        code, out, err = await run(guest_env, *documented_with(text, values), timeout=120)
        assert code == 0 and expected in out.lower(), (text, out, err)
    code, out, err = await run(guest_env, *documented_with("olixono watch GAME --plain", values), timeout=60)
    assert code == 0 and "result: " in out, (out, err)
    code, out, err = await run(guest_env, *documented_with("olixono games --all", values))
    assert code == 0 and game in out, (out, err)


def documented_with(text: str, values: dict[str, str]) -> list[str]:
    return [values.get(word, word) for word in documented_as(text)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("printf 'play Oc6c5\\nperft 2\\noutcome\\n' | olixono engine", "= "),
        ("printf 'genmove mcts 2000\\nanalyze\\n' | olixono engine --seed 1", "= "),
    ],
)
async def test_the_documented_engine_pipes_answer(tmp_path, text, expected):
    env, _ = home(tmp_path, "engine")
    command = next(command for command in COMMANDS if command.text == text)
    stdin = shlex.split(command.text.split("|")[0])[1].encode().decode("unicode_escape")
    code, out, err = await run(env, *words(command, {}), stdin_text=stdin, timeout=60)
    assert code == 0 and expected in out and "?" not in out.split("\n", 1)[0], (out, err)


CONTRIBUTING = ROOT / "CONTRIBUTING.md"
SUITE_RUNS = {
    "bash scripts/test": "the suite itself, as CI runs it",
    "python3 -m pytest ": "the suite's runner, on one file",
    "python3 -m mypy": "scripts/test runs it before the suite",
    "python3 -m pip install .": "scripts/test installs the project (with the test tools) before the suite",
    "python3 scripts/regenerate_golden.py": "writes what the golden and vector tests compare, from the same functions",
}
"""CONTRIBUTING.md's commands that only the suite itself can run (or that it runs before the tests), by beginning."""
RUN_HERE = ("python3 -m ruff format FILE", "python3 -m ruff check FILE")
"""CONTRIBUTING.md's commands this file runs (``test_the_contributing_ruff_commands_pass_on_a_file_of_the_tree``)."""


def contributing_commands() -> list[str]:
    """Every command of CONTRIBUTING.md's code blocks (indented; ``# comments`` off, ``&&`` taken apart)."""
    commands = []
    for line in CONTRIBUTING.read_text(encoding="utf-8").splitlines():
        if line.startswith("    ") and not line.lstrip().startswith("|"):
            commands += [part.strip() for part in re.sub(r"\s+#( .*)?$", "", line.strip()).split(" && ")]
    return commands


def test_every_command_contributing_shows_is_run_by_a_test():
    """An ``olixono`` command is parsed with the others (``COMMANDS``); the ruff commands run below; the rest are the
    suite's own, which it runs by being run."""
    commands = contributing_commands()
    collected = {command.text for command in COMMANDS if command.path == CONTRIBUTING}
    assert "bash scripts/test" in commands and "olixono host oxono" in collected, commands
    uncovered = [
        text
        for text in commands
        if text not in collected and text not in RUN_HERE and not text.startswith(tuple(SUITE_RUNS))
    ]
    assert not uncovered, "CONTRIBUTING.md shows commands no test runs:\n" + "\n".join(uncovered)


def test_the_contributing_ruff_commands_pass_on_a_file_of_the_tree(tmp_path):
    """``ruff format FILE`` leaves this file as it is, and ``ruff check FILE`` finds nothing in it (a copy, with the
    tree's settings: ruff reads the pyproject.toml of the folder it runs in). Ruff is a test tool; run without the test
    tools installed, a skip."""
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed (python3 -m pip install -e '.[test]')")
    text = Path(__file__).read_text(encoding="utf-8")
    copy = tmp_path / "copy.py"
    copy.write_text(text, encoding="utf-8")
    for command in RUN_HERE:
        assert command in contributing_commands(), command
        args = [str(copy) if word == "FILE" else word for word in shlex.split(command)[1:]]
        done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert copy.read_text(encoding="utf-8") == text
