"""The search's exact parts: the Oxono endgame solver, proven values (draws included), and the tree kept between moves.

Every test uses fixed seeds and iteration budgets (no timing)."""

from __future__ import annotations

import random

import pytest
from engine_helpers import analysis_of

from olixono import bot_oxono
from olixono.bots import MctsBot, make_bot, within
from olixono.common import MoveLike
from olixono.mcts import Mcts
from olixono.oxono import OxonoBoard

# Black to move, 15 pawns left, has a forced win (no win in one or in two), which a plain 300-iteration search
# misses; the exact solver proves it in fewer than 1,000 positions.
FORCED_WIN = "6/O1o1XX/oxO1Xx/3Oo1/1o1O1X/O1oo2 black f6 e1"


def minimax(board: OxonoBoard) -> int:
    """The value for the player to move (1, 0, -1), by brute force on the engine's own board."""
    best = -1
    for move in board.legal_moves():
        board.push(move)
        outcome = board.outcome()
        if outcome is None:
            value = -minimax(board)
        else:
            value = 0 if outcome.winner is None else 1  # only the mover can complete a line on its move
        board.pop()
        if value > best:
            best = value
            if best == 1:
                break
    return best


def endgame(seed: int, left: int) -> OxonoBoard:
    """A position in progress with ``left`` pawns to place, reached by random moves that end nothing."""
    rng = random.Random(seed)
    board = OxonoBoard()
    while 32 - board.pawns.bit_count() > left:
        moves = board.legal_moves()
        rng.shuffle(moves)
        for move in moves:
            board.push(move)
            if board.outcome() is None:
                break
            board.pop()
        else:  # every move ends the game: start again
            board = OxonoBoard()
    return board


def test_the_solver_finds_a_forced_win_the_plain_search_misses():
    board = OxonoBoard.from_position(FORCED_WIN)
    state = bot_oxono.state_of(board)
    assert bot_oxono.winning_move(state) is None and bot_oxono.forced_win(state) is None
    for seed in range(3):
        plain = Mcts(random.Random(seed)).search(bot_oxono.OxonoSearch(board), iterations=300).move
        board.play(plain.text())
        assert minimax_after(board) != -1  # the plain search's move does not win
        board.pop()
        bot = make_bot("mcts", seed=seed, iterations=1000)
        move = bot.choose(board)
        assert analysis_of(bot).candidates[0].proven == "won"
        board.push(move)
        assert minimax_after(board) == -1  # the opponent is lost whatever it plays
        board.pop()


def minimax_after(board: OxonoBoard) -> int:
    """The value for the player to move now, by the solver (exact: checked against :func:`minimax` below)."""
    value = bot_oxono.solve(bot_oxono.state_of(board), {}, 10**6)
    assert value is not None  # a million nodes: enough for these endgames
    return value


@pytest.mark.parametrize("seed", range(6))
def test_proven_values_are_exact(seed):
    """On small endgames: the solver's value, and every value the tree search proves (without the solver: by
    propagation alone, draws included), equal brute-force minimax."""
    board = endgame(seed, 4)
    state = bot_oxono.state_of(board)
    assert bot_oxono.solve(state, {}, 10**6) == minimax(board)
    found = bot_oxono.best_move(state, {}, 10**6)
    assert found is not None
    value, move = found
    board.push(bot_oxono.board_move(move))
    reached = (
        1
        if (outcome := board.outcome()) is not None and outcome.winner is not None
        else (0 if outcome is not None else -minimax(board))
    )
    board.pop()
    assert reached == value
    result = Mcts(random.Random(seed)).search(bot_oxono.OxonoSearch(board), iterations=3000)
    assert_proofs_exact(board, result.candidates)


def assert_proofs_exact(board: OxonoBoard, candidates) -> None:
    """Some of ``candidates`` (a search's from ``board``) are proven, and each as brute-force minimax values it."""
    proven = [c for c in candidates if c.proven]
    assert proven
    for candidate in proven:
        board.push(candidate.move)
        outcome = board.outcome()
        exact = -minimax(board) if outcome is None else (0 if outcome.winner is None else 1)
        board.pop()
        assert {"won": 1, "drawn": 0, "lost": -1}[candidate.proven] == exact, (board.position(), candidate)


def test_a_drawn_last_move_is_proven_drawn():
    for seed in range(20):
        board = endgame(seed, 1)
        if minimax(board) == 0:
            break
    else:
        pytest.fail("no drawn endgame among the seeds")
    result = Mcts(random.Random(0)).search(bot_oxono.OxonoSearch(board), iterations=200)
    assert result.candidates[0].proven == "drawn"


def test_the_solver_gives_up_past_its_budget():
    board = OxonoBoard()
    assert bot_oxono.solve(bot_oxono.state_of(board), {}, 500) is None


@pytest.mark.parametrize("seed", range(3))
def test_a_win_in_one_is_never_missed(seed):
    rng = random.Random(seed)
    checked = 0
    while checked < 10:
        board = OxonoBoard()
        while board.outcome() is None:
            state = bot_oxono.state_of(board)
            if bot_oxono.winning_move(state) is not None:
                mover = board.turn
                board.play(make_bot("mcts", seed=checked, iterations=50).choose(board))
                outcome = board.outcome()
                assert outcome is not None and outcome.winner == mover
                checked += 1
                break
            board.push(board.random_move(rng))


def midgame(plies: int, seed: int) -> OxonoBoard:
    """A position after ``plies`` random moves where the player to move cannot win at once (the first such seed from
    ``seed`` on)."""
    while True:
        board = endgame(seed, 32 - plies)
        if bot_oxono.winning_move(bot_oxono.state_of(board)) is None:
            return board
        seed += 1


def test_searching_on_from_the_kept_tree_is_a_longer_search():
    """Asked twice about one position (``answer_end``, then ``choose``), the bot goes on from its tree: exactly what
    one search of twice the budget gives."""
    board = midgame(6, seed=1)
    twice = make_bot("mcts", seed=5, iterations=300)
    twice.answer_end(board, board.turn)
    move = twice.choose(board)
    once = make_bot("mcts", seed=5, iterations=600)
    assert once.choose(board) == move
    assert analysis_of(once).candidates == analysis_of(twice).candidates
    assert analysis_of(twice).iterations == 300
    assert sum(c.visits for c in analysis_of(twice).candidates) == 600


def test_the_tree_is_kept_where_the_game_went_as_expected():
    board = midgame(6, seed=2)
    bot = make_bot("mcts", seed=3, iterations=400)
    board.play(bot.choose(board))
    reply = analysis_of(bot).pv[1]  # the reply the search expected, searched the most
    board.play(reply.text())
    bot.choose(board)
    visits = sum(c.visits for c in analysis_of(bot).candidates)
    assert visits > analysis_of(bot).iterations  # the expected reply's subtree came along
    fresh = make_bot("mcts", seed=3, iterations=400)
    fresh.choose(board)
    assert sum(c.visits for c in analysis_of(fresh).candidates) == analysis_of(fresh).iterations
    forgetful = MctsBot(random.Random(3), iterations=400, keep=False)
    board.pop()
    forgetful.choose(board.copy())
    board.play(reply.text())
    forgetful.choose(board)
    assert sum(c.visits for c in analysis_of(forgetful).candidates) == analysis_of(forgetful).iterations


def test_a_game_that_went_elsewhere_starts_a_new_tree():
    board = midgame(6, seed=2)
    bot = make_bot("mcts", seed=3, iterations=400)
    board.play(bot.choose(board))
    expected = analysis_of(bot).pv[1]
    other = next(m for m in board.legal_moves() if m != expected and not _wins(board, m))
    board.play(other)
    bot.choose(board)
    child_visits = sum(c.visits for c in analysis_of(bot).candidates)
    # A move the tree did not search starts afresh; one it searched once brings one visit's subtree (none below).
    assert child_visits <= analysis_of(bot).iterations + 1
    loaded = OxonoBoard.from_position(board.position())  # the same position, no history: nothing to match
    again = make_bot("mcts", seed=3, iterations=400)
    again.choose(board)
    again.choose(loaded)
    assert sum(c.visits for c in analysis_of(again).candidates) == analysis_of(again).iterations


def _wins(board: OxonoBoard, move) -> bool:
    board.push(move)
    over = board.outcome() is not None
    board.pop()
    return over


# Black to move wins in two moves (Xd5e5, then a win in one whatever pink plays), with no win in one now.
WIN_IN_TWO = "6/2X3/4oX/4oO/6/6 black f5 d4"
# Pink to move: a 300-iteration search without the checks (seed 0) plays Oc4d4, after which black wins in two; 10
# moves do not allow that.
ALLOWS_WIN_IN_TWO = "6/6/4o1/oOOXx1/6/6 pink f3 a4"


def wins_in_one(board: OxonoBoard) -> bool:
    """Whether the player to move can win at once (by brute force on the engine's board)."""
    for move in board.legal_moves():
        board.push(move)
        won = (outcome := board.outcome()) is not None and outcome.winner is not None
        board.pop()
        if won:
            return True
    return False


def wins_in_two(board: OxonoBoard, move) -> bool:
    """Whether ``move`` wins within two moves of its player's whatever the opponent answers (brute force)."""
    board.push(move)
    try:
        outcome = board.outcome()
        if outcome is not None:
            return outcome.winner is not None
        if wins_in_one(board):
            return False
        for reply in board.legal_moves():
            board.push(reply)
            ok = board.outcome() is None and wins_in_one(board)
            board.pop()
            if not ok:
                return False
        return True
    finally:
        board.pop()


def test_a_win_in_two_is_found_and_real():
    board = OxonoBoard.from_position(WIN_IN_TWO)
    state = bot_oxono.state_of(board)
    assert bot_oxono.winning_move(state) is None
    move = bot_oxono.forced_win(state)
    assert move is not None and wins_in_two(board, bot_oxono.board_move(move))
    bot = make_bot("mcts", seed=0, iterations=100)
    assert wins_in_two(board, bot.choose(board))
    assert analysis_of(bot).candidates[0].proven == "won"


def test_forced_wins_agree_with_brute_force():
    """What :func:`forced_win` finds is real, and where it finds nothing, no move wins in two (it searches only the
    moves that threaten a win in one: a sound search, and complete on these positions)."""
    for seed in range(4):
        board = endgame(seed, 24)
        state = bot_oxono.state_of(board)
        found = bot_oxono.forced_win(state)
        if found is not None:
            assert wins_in_one(board) or wins_in_two(board, bot_oxono.board_move(found))
        else:
            assert not any(wins_in_two(board, move) for move in board.legal_moves())


def test_the_search_does_not_allow_a_win_in_two_it_can_avoid():
    board = OxonoBoard.from_position(ALLOWS_WIN_IN_TWO)
    plain = Mcts(random.Random(0)).search(bot_oxono.OxonoSearch(board), iterations=300).move
    board.play(plain.text())
    assert bot_oxono.allows_forced_win(bot_oxono.state_of(board))
    assert any(wins_in_two(board, move) for move in board.legal_moves())
    board.pop()
    move = make_bot("mcts", seed=0, iterations=300).choose(board)
    board.push(move)
    assert not any(wins_in_two(board, reply) for reply in board.legal_moves())


def test_copies_made_for_a_clock_share_the_kept_tree():
    board = midgame(6, seed=2)
    bot = make_bot("mcts", seed=3, iterations=400)
    first = within(bot, 60.0)
    board.play(first.choose(board))
    board.play(analysis_of(first).pv[1].text())
    thinker = within(bot, 60.0)
    thinker.choose(board)
    assert sum(c.visits for c in analysis_of(thinker).candidates) > analysis_of(thinker).iterations


class _Toy:
    """A search view of a made-up game of two plies: the first player's moves 0-3 and the second's answers 0-3. The
    first player's moves 0, 1 and 2 lose at once (they end the game lost); after move 3 every answer is a draw."""

    def __init__(self) -> None:
        self.line: list[int] = []

    def moves(self) -> list[int]:
        return [0, 1, 2, 3]

    def push(self, move: int) -> int | None:
        self.line.append(move)
        if len(self.line) == 1:
            return -1 if move < 3 else None
        return 0

    def pop(self) -> None:
        self.line.pop()

    def winning_move(self) -> int | None:
        return None

    def leaf_value(self, rng: random.Random) -> float:
        return 0.0

    def refuted(self) -> bool:
        return False

    def board_move(self, move: int) -> MoveLike:
        class Move:
            def text(self) -> str:
                return str(move)

        return Move()


@pytest.mark.parametrize("width", [1, 2, 3])
def test_moves_beyond_the_width_come_in_when_every_searched_move_loses(width):
    """The search tries the first ``width`` ordered moves; when all are proven lost, it brings in the next (widening),
    until it finds the one that holds: here the fourth, a draw, proven."""
    search = Mcts(random.Random(1), order=lambda view: view.moves(), width=width)
    result = search.search(_Toy(), iterations=200)
    assert result.move.text() == "3"
    assert result.candidates[0].proven == "drawn"
    assert sorted(c.move.text() for c in result.candidates) == ["0", "1", "2", "3"]
    assert all(c.proven == "lost" for c in result.candidates[1:])
    assert result.iterations < 200  # proven: the search stops
