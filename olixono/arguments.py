"""What both command lines (``client.cli``'s ``olixono``, ``relay.cli``'s ``olixono relay``) do to their arguments
before argparse reads them: game ids and keys that begin with ``-`` made values.

Pure, and below both: the client and the relay stand side by side, so neither imports the other's command line for
it. :func:`option_strings` walks argparse's private ``_actions`` (it keeps no public list of a parser's options); that
use lives here alone.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Collection, Sequence

ID_OR_KEY = re.compile(r"-[A-Za-z0-9_-]{21}(?:[A-Za-z0-9_-]{21})?")
"""A game id (22 characters) or a public key (43) that begins with ``-``: about one in 64 does."""
ID_OPTIONS = frozenset({"--invite", "--witness"})
"""Options whose value is a key."""


def option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every option a parser and its subcommands know (``--relay``, ``--bridge-password-file``, ``-h``)."""
    known: set[str] = set()
    for action in parser._actions:  # argparse keeps them here, subcommands' parsers among its choices
        known.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                known |= option_strings(sub)
    return known


def protect_ids(argv: Sequence[str], options: Collection[str] = ()) -> list[str]:
    """``argv`` with every game id or key that begins with ``-`` made a value, as argparse would never take it:
    ``--invite -96kk…`` becomes ``--invite=-96kk…``, and a positional one moves after a ``--``. So every command the
    program prints for a person to type (``olixono join GAME``) works when typed or pasted, whatever the id.
    ``options``: the parser's own option strings, which are never ids (``--bridge-password-file`` looks like one)."""
    out: list[str] = []
    positional: list[str] = []
    for index, token in enumerate(argv):
        if token == "--":
            return [*out, "--", *positional, *argv[index + 1 :]]
        if ID_OR_KEY.fullmatch(token) and token not in options:
            if out and out[-1] in ID_OPTIONS:
                out[-1] = f"{out[-1]}={token}"
            else:
                positional.append(token)
            continue
        out.append(token)
    return [*out, "--", *positional] if positional else out
