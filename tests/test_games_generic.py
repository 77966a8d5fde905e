"""Tests every game must pass, in the manner of OpenSpiel's generic game tests.

Each test runs for every board class in ``olixono.games.BOARDS``: bounded
random playouts with invariants checked after every move, position-text
round trips, copies, undo, terminal exactly when no legal move, and parsers
that raise only their own errors whatever the text.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olixono.common import GameOverError, IllegalMoveError, InvalidMoveError, InvalidPositionError
from olixono.games import BOARDS

GAMES = sorted(BOARDS)
MAX_PLIES = 200


def check_invariants(board) -> None:
    """What must hold in every position of every game."""
    text = board.position()
    loaded = type(board).from_position(text)
    assert loaded.position() == text
    assert loaded.outcome() == board.outcome() or board.outcome().reason in ("resigned", "agreed")
    assert board.copy() == board
    moves = board.legal_moves()
    texts = [m.text() for m in moves]
    assert len(set(texts)) == len(texts)
    assert (board.outcome() is None) == bool(moves)
    assert board.turn in board.PLAYERS
    for move in moves[:5]:
        assert board.parse_move(move.text()) == move


def random_game(kind: str, seed: int):
    """Play a seeded random game to its end, checking invariants at every ply."""
    board = BOARDS[kind]()
    rng = random.Random(seed)
    for _ in range(MAX_PLIES):
        check_invariants(board)
        moves = board.legal_moves()
        if not moves:
            return board
        before = board.position()
        mover = board.turn
        move = rng.choice(moves)
        board.play(move)
        if board.outcome() is None:
            assert board.turn != mover
        board.pop()
        assert board.position() == before
        board.play(move.text())
    raise AssertionError(f"{kind} game {seed} did not end in {MAX_PLIES} plies")


@pytest.mark.parametrize("kind", GAMES)
@pytest.mark.parametrize("seed", range(20))
def test_random_playout_invariants(kind, seed):
    board = random_game(kind, seed)
    assert board.outcome() is not None
    assert board.legal_moves() == []


@pytest.mark.parametrize("kind", GAMES)
def test_start_position_round_trips_and_has_moves(kind):
    board = BOARDS[kind]()
    assert type(board).from_position(board.position()) == board
    assert board.turn == board.PLAYERS[0]
    assert board.legal_moves()
    assert board.outcome() is None


@pytest.mark.parametrize("kind", GAMES)
def test_play_after_the_end_is_illegal_and_changes_nothing(kind):
    board = random_game(kind, 7)
    final = board.position()
    for text in ("a1", "Xa1a2", "f6"):
        with pytest.raises((IllegalMoveError, InvalidMoveError)):
            board.play(text)
    assert board.position() == final


@pytest.mark.parametrize("kind", GAMES)
def test_resign_ends_the_game_for_the_other_player_and_undo_takes_it_back(kind):
    board = BOARDS[kind]()
    board.play(board.legal_moves()[0])
    outcome = board.resign()
    assert outcome.winner == board.PLAYERS[0] and outcome.reason == "resigned"
    assert board.outcome() == outcome and board.legal_moves() == []
    with pytest.raises(GameOverError):
        board.resign()
    board.pop()
    assert board.outcome() is None and len(board.move_stack) == 1


@pytest.mark.parametrize("kind", GAMES)
def test_the_player_not_to_move_may_resign(kind):
    board = BOARDS[kind]()
    first, second = board.PLAYERS
    assert board.resign(first).winner == second  # the player to move, named
    board.pop()
    assert board.resign(second).winner == first  # the other one, while first thinks
    with pytest.raises(ValueError):
        BOARDS[kind]().resign("nobody")


@pytest.mark.parametrize("kind", GAMES)
def test_copy_is_independent(kind):
    board = BOARDS[kind]()
    twin = board.copy()
    twin.play(twin.legal_moves()[0])
    assert board.move_stack == [] and board != twin


@pytest.mark.parametrize("kind", GAMES)
def test_perft_one_is_the_number_of_legal_moves(kind):
    board = BOARDS[kind]()
    assert board.perft(0) == 1
    assert board.perft(1) == len(board.legal_moves())


@pytest.mark.parametrize("kind", GAMES)
@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=12))
def test_parse_move_raises_only_its_own_error(kind, text):
    board = BOARDS[kind]()
    try:
        move = board.parse_move(text)
    except InvalidMoveError:
        return
    assert board.parse_move(move.text()) == move
    assert move.text().lower() == text.lower()


@pytest.mark.parametrize("kind", GAMES)
@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=80))
def test_from_position_raises_only_its_own_error(kind, text):
    try:
        board = BOARDS[kind].from_position(text)
    except InvalidPositionError:
        return
    assert board.position() == text


@pytest.mark.parametrize("kind", GAMES)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_mutated_positions_load_exactly_or_fail_cleanly(kind, data):
    board = random_game(kind, data.draw(st.integers(0, 50)))
    text = board.position()
    index = data.draw(st.integers(0, len(text) - 1))
    char = data.draw(st.sampled_from("0123456789XOxo/ abcdefghijk"))
    mutated = text[:index] + char + text[index + 1 :]
    try:
        loaded = BOARDS[kind].from_position(mutated)
    except InvalidPositionError:
        return
    assert loaded.position() == mutated


@pytest.mark.parametrize("kind", GAMES)
@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=12))
def test_play_garbage_raises_a_value_error_and_changes_nothing(kind, text):
    board = BOARDS[kind]()
    board.play(board.legal_moves()[3])
    before = board.position()
    legal = {move.text().lower() for move in board.legal_moves()}
    try:
        board.play(text)
    except (InvalidMoveError, IllegalMoveError):
        assert board.position() == before
    else:
        played = BOARDS[kind].from_position(before).parse_move(text)  # garbage that happens to be a legal move
        assert played.text().lower() in legal and board.position() != before


def test_the_registry_names_each_game_once_with_its_board_and_bots():
    from olixono.common import Board, GameKind
    from olixono.games import GAMES, game_of, new_board

    assert set(GAMES) == set(GameKind) == set(BOARDS)
    for kind, game in GAMES.items():
        board = new_board(kind)
        assert game.kind == kind == board.KIND and game_of(board) is game and isinstance(board, game.board)
        scored = game.bots.greedy_scores(board)
        assert {game.bots.board_move(move).text() for _, move in scored} == {m.text() for m in board.legal_moves()}
    with pytest.raises(TypeError):
        Board()  # type: ignore[abstract]  # the contract is abstract: a game supplies every rule


@pytest.mark.parametrize("kind", sorted(BOARDS))
def test_ending_by_agreement_leaves_the_board_as_it_was(kind):
    board = BOARDS[kind]()
    board.push(board.legal_moves()[0])
    before = board.position()
    agreed = board.agreed()
    assert agreed.reason == "agreed" and board.position() == before and board.outcome() is None
    assert agreed.markers == (kind == "olix")  # Olix scores the markers; Oxono's agreement is a draw
    assert kind == "olix" or agreed.winner is None


def test_every_front_end_table_knows_every_game():
    from client.frontends.screen import DRAWINGS
    from client.words.board import GAME_WORDS
    from olixono.common import GameKind

    assert set(GAME_WORDS) == set(DRAWINGS) == set(GameKind)
    assert len({words.end_word for words in GAME_WORDS.values()}) == len(GameKind)
