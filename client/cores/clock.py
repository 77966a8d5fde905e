"""What every clock shown or watched agrees on, protocol-free (local play loads it too)."""

from __future__ import annotations

LOW_MS = 10_000
"""A clock under this is low: the core tells its player once a turn (:class:`client.cores.network_game.ClockLow`), and
the words show it in tenths, marked (:func:`client.words.board.clock_left_text`)."""
