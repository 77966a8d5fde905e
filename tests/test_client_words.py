"""The words every front end says of what happened, through the ``--plain`` front end on a test relay: a race of a
resignation with a winning move, and the line that says which of the two was set aside."""

from __future__ import annotations

import asyncio
import io
import random
import typing

from protocol_helpers import board_of, playable
from test_client_claims import FrontRunner
from test_client_core import Relay, hosted, my_key

from client.cores.intents import Intent
from client.cores.network_game import GameCore, Step, UiEvent
from client.frontends.plain import plain_front
from client.words.network import DESCRIBERS
from olixono.common import Board


def winning_move(board: Board[typing.Any]) -> str | None:
    for move in board.legal_moves():
        after = board.copy()
        after.push(move)
        if after.is_game_over():
            text: str = move.text()
            return text
    return None


def one_move_from_the_end(seed: int = 3) -> tuple[Relay, GameCore, GameCore, str]:
    """An Oxono game played at random until the player to move has a winning move: the relay, that player, the
    other (waiting), and the winning move."""
    relay, host, guest, _, _ = hosted("oxono")
    rng = random.Random(seed)
    for _ in range(200):  # bounded: a game of Oxono has at most 32 moves
        mover = host if host.my_turn else guest
        win = winning_move(board_of(mover))
        if win is not None:
            return relay, mover, guest if mover is host else host, win
        relay.publish(mover.act(Intent("move", rng.choice(playable(mover)))), mover)
    raise AssertionError("no winning move came")


class HeldRunner(FrontRunner):
    """A runner whose own lines are held (the test delivers them): the other player has not seen them yet."""

    def __init__(self, relay: Relay, core: GameCore) -> None:
        super().__init__(relay, core)
        self.held: list[Step] = []

    async def act(self, intent: Intent) -> None:
        step = self.core.act(intent)
        self.relay.record(self.core, step)
        self.held.append(step)
        for event in step.events:
            self.events.put_nowait(event)


def feed(core: GameCore, step: Step, runner: FrontRunner) -> None:
    """``step``'s lines to ``core`` alone, its events on to the front end (as the runner does)."""
    for item in step.publish:
        for event in core.feed(item.line).events:
            runner.events.put_nowait(event)


async def test_a_resignation_racing_a_winning_move_ends_with_both_confirmations_alike_said():
    """The waiting player resigns while the other plays a winning move: the move and its confirmation (of the win by
    the move) come after the resignation, which stands over them; the mover, once the resignation reaches it,
    confirms again. The ``--plain`` printer does not stop at the stale confirmation (another ending): it waits (a
    bounded while) for the other's latest, so that its last word is the one ``verify`` says. The line of the move
    set aside says what was set aside and why."""
    relay, mover, waiter, win = one_move_from_the_end()
    moved = mover.act(Intent("move", win))  # sent, not yet arrived: the mover confirms its win by the move
    assert mover.session.over
    runner = HeldRunner(relay, waiter)
    printed: list[str] = []
    front = asyncio.ensure_future(plain_front(printed.append, io.StringIO("resign\n"))(runner))  # type: ignore[arg-type]  # a FrontRunner stands in
    for _ in range(300):  # bounded: until the resignation is signed
        if waiter.over:
            break
        await asyncio.sleep(0.01)
    assert waiter.over
    feed(waiter, moved, runner)  # the winning move and its stale confirmation reach the resigner
    await asyncio.sleep(0.3)
    assert not front.done(), printed  # the other's confirmation names another ending: it waits for its latest
    for step in runner.held:  # the resignation reaches the mover, which confirms again; that reaches the resigner
        for item in step.publish:
            feed(waiter, mover.feed(item.line), runner)
    async with asyncio.timeout(10):
        assert await front == 0
    number = len(waiter.played()) + 1
    loser, winner = waiter.my_player, mover.my_player
    assert (
        f"set aside: {winner} {my_key(mover).fingerprint}'s move {number} ({win}) does not count: {loser} "
        f"{my_key(waiter).fingerprint} (you)'s resignation in the turn of move {number} was sent for the same place "
        "in the game, and stands over it"
    ) in printed, printed
    assert f"result: {winner} wins by {loser}'s resignation ({winner}-resigned)" in printed, printed
    confirmed = [line for line in printed if line.startswith("confirmed by ")]
    assert confirmed and confirmed[-1].endswith(": result confirmed by both players"), printed
    assert mover.session.result == waiter.session.result


def test_every_event_a_front_end_is_told_has_its_words():
    """``describe`` looks an event's words up by its type: every type of ``UiEvent`` has a row, and no other."""
    assert set(DESCRIBERS) == set(typing.get_args(UiEvent))
