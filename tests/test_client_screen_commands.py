"""What a line typed at the full screen does (``client.words.commands.screen_typed``), with no terminal: every outcome
of the screen's own commands, a table's commands, moves, refusals and the questions that confirm first; and the screen's
own commands listed once, in ``client.words.commands.COMMANDS``."""

from __future__ import annotations

import re

import pytest

from client.cores.local_game import LocalCore
from client.frontends.screen import OWN_COMMANDS, own_help, screen_candidates
from client.words.commands import (
    COMMANDS,
    END,
    END_WORD,
    SCREEN_COMMANDS,
    Mode,
    ScreenDo,
    ScreenTyped,
    command_names,
    completions,
    help_text,
    parse,
    screen_typed,
)

LOCAL = ("legal", "board", "undo", "resign", "draw")
"""A table's own commands, as a game at one terminal's table has them."""


@pytest.mark.parametrize(
    "typed, what",
    [
        ("/help", ScreenDo.HELP),
        ("/flip", ScreenDo.FLIP),
        ("/moves", ScreenDo.MOVES),
        ("/quit", ScreenDo.QUIT),
        ("/FLIP", ScreenDo.FLIP),
        ("flip", ScreenDo.FLIP),
        ("quit", ScreenDo.QUIT),
    ],
)
def test_the_screens_own_commands_are_its_own_at_every_table(typed, what):
    for commands in ((), LOCAL):
        assert screen_typed(typed, commands=commands) == ScreenTyped(what)
    assert screen_typed(typed, commands=LOCAL, game=LocalCore("oxono")) == ScreenTyped(what)


def test_a_tables_command_goes_to_the_table_with_what_follows_it():
    assert screen_typed("/legal", commands=LOCAL) == ScreenTyped(ScreenDo.COMMAND, "legal")
    assert screen_typed("/SAY  good luck", commands=("say",)) == ScreenTyped(ScreenDo.COMMAND, "say", "good luck")
    assert screen_typed("board", commands=LOCAL) == ScreenTyped(ScreenDo.COMMAND, "board")  # without its /, too


def test_text_without_a_slash_that_names_no_command_is_a_move():
    assert screen_typed("Oc6c5", commands=LOCAL) == ScreenTyped(ScreenDo.MOVE, text="Oc6c5")
    assert screen_typed("hello there", commands=LOCAL) == ScreenTyped(ScreenDo.MOVE, text="hello there")
    assert screen_typed("12", commands=()) == ScreenTyped(ScreenDo.MOVE, text="12")  # a replay's move number


def test_a_slash_before_no_command_is_refused():
    assert screen_typed("/nonsense x", commands=LOCAL) == ScreenTyped(
        ScreenDo.REFUSE, text="no command /nonsense: /help lists them"
    )
    assert screen_typed("/say hi", commands=LOCAL).what is ScreenDo.REFUSE  # not this table's


def test_a_command_the_table_refuses_says_why_with_or_without_its_slash():
    refused = {"say": "watchers talk elsewhere", "flip": "no board"}
    for typed in ("/say hi", "say hi", "/Say"):
        assert screen_typed(typed, commands=("say",), refused=refused) == ScreenTyped(
            ScreenDo.REFUSE, text="watchers talk elsewhere"
        )
    assert screen_typed("/flip", commands=(), refused=refused).text == "no board"  # before the screen's own


def test_a_resignation_asks_first_and_the_same_line_next_confirms_it():
    game = LocalCore("oxono")
    asking = screen_typed("/resign", commands=LOCAL, game=game)
    assert asking == ScreenTyped(ScreenDo.ASK, text="Resign and lose the game? Type /resign again to confirm.")
    for again in ("/resign", "RESIGN", " resign "):
        assert screen_typed(again.strip(), commands=LOCAL, game=game, asked="/resign") == ScreenTyped(
            ScreenDo.COMMAND, "resign"
        )
    assert screen_typed("/resign", commands=LOCAL, game=game, asked="/legal").what is ScreenDo.ASK
    assert screen_typed("/resign", commands=LOCAL).what is ScreenDo.COMMAND  # no game typed into: a replay's
    assert screen_typed("/legal", commands=LOCAL, game=game) == ScreenTyped(ScreenDo.COMMAND, "legal")


def test_flip_and_moves_are_listed_once_in_the_command_table_for_the_screen_alone():
    screen = [command.name for command in COMMANDS if command.screen]
    assert screen == ["flip", "moves"] and SCREEN_COMMANDS == OWN_COMMANDS == ("help", "flip", "moves", "quit")
    assert own_help("; gone").splitlines()[:2] == [
        "  /flip                turn the board round",
        "  /moves               every move so far, in the log (PgUp/PgDn scroll the moves)",
    ]
    game = LocalCore("olix")
    assert not {"flip", "moves"} & set(command_names(game))  # the line consoles have no board to turn, no pane
    assert "flip" not in help_text(game) and "flip" not in completions(game, "f")
    assert parse("flip", game).problem is not None and parse("moves", game).problem is not None


def test_the_screen_completes_its_own_commands_from_the_command_table():
    from client.frontends.local_screen import LocalTable

    table = LocalTable("olix", seed=1)
    offered = screen_candidates(table, "/")
    assert offered[-4:] == [f"/{name}" for name in SCREEN_COMMANDS]
    assert offered[:-4] == [f"/{name}" for name in table.commands]


def test_the_readmes_table_of_the_screens_commands_names_every_command_a_player_has():
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`/(\w+)", "\n".join(row for row in readme.splitlines() if row.startswith("| `/"))))
    players = {
        name
        for command in COMMANDS
        if Mode.PLAYER in command.helps and not command.olix
        for name in (END_WORD.values() if command.name == END else [command.name])
    }
    assert {"flip", "moves", "draw", "end"} <= players
    assert players <= named, sorted(players - named)
