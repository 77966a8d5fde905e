"""The olixono client: the command line, the game core, journal, transport and front ends.

Until a command is ready to handle Ctrl-C itself (:func:`client.cli.interruptible`), an interrupt while the
program starts (importing, parsing) ends it with one line, never a traceback.
"""

import os
import signal
import sys


def _interrupted_while_starting(signum: int, frame: object) -> None:
    sys.stderr.write("\nInterrupted.\n")
    sys.stderr.flush()
    os._exit(130)


if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted_while_starting)
