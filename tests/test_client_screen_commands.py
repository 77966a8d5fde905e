"""The full screen's own commands, listed once in ``client.commands.COMMANDS``: its help, its completion and the
README's table of its commands come from there."""

from __future__ import annotations

import re

from client.commands import COMMANDS, END, END_WORD, SCREEN_COMMANDS, Mode, command_names, completions, help_text, parse
from client.local_game import LocalCore
from client.screen import OWN_COMMANDS, own_help, screen_candidates


def test_flip_and_moves_are_listed_once_in_the_command_table_for_the_screen_alone():
    screen = [command.name for command in COMMANDS if command.screen]
    assert screen == ["flip", "moves"] and SCREEN_COMMANDS == OWN_COMMANDS == ("help", "flip", "moves", "quit")
    assert own_help("; gone").splitlines()[:2] == ["  /flip                turn the board round",
                                                    "  /moves               every move so far, in the log (PgUp/PgDn "
                                                    "scroll the moves)"]
    game = LocalCore("olix")
    assert not {"flip", "moves"} & set(command_names(game))  # the line consoles have no board to turn, no pane
    assert "flip" not in help_text(game) and "flip" not in completions(game, "f")
    assert parse("flip", game).problem is not None and parse("moves", game).problem is not None


def test_the_screen_completes_its_own_commands_from_the_command_table():
    from client.local_screen import LocalTable

    table = LocalTable("olix", seed=1)
    offered = screen_candidates(table, "/")
    assert offered[-4:] == [f"/{name}" for name in SCREEN_COMMANDS]
    assert offered[:-4] == [f"/{name}" for name in table.commands]


def test_the_readmes_table_of_the_screens_commands_names_every_command_a_player_has():
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`/(\w+)", "\n".join(row for row in readme.splitlines() if row.startswith("| `/"))))
    players = {name for command in COMMANDS if Mode.PLAYER in command.helps and not command.olix
               for name in (END_WORD.values() if command.name == END else [command.name])}
    assert {"flip", "moves", "draw", "end"} <= players
    assert players <= named, sorted(players - named)
