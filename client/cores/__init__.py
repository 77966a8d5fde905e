"""Sans I/O: what a person asks of a game, and the cores that answer (a network game's, a game at one terminal's)."""
