"""The journal: one file of lines per game, flushed as written; metadata beside it; private to the user."""

from __future__ import annotations

import os
import stat

import pytest
from protocol_helpers import HOST

from client.shell.journal import Journal, JournalError, JournalMeta, check_game_id, games_dir, journals, state_dir
from protocol import EquivocationDetected

GAME = "AAECAwQFBgcICQoLDA0ODw"


def meta(game: str = GAME, **changes) -> JournalMeta:
    fields = {"game": game, "kind": "oxono", "role": "host", "key": HOST.public.text, "relay": "mqtt://127.0.0.1:1883"}
    return JournalMeta(**(fields | changes))


def test_xdg_state_home_decides_the_folder(tmp_path):
    assert state_dir({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "olixono"
    assert games_dir({"XDG_STATE_HOME": "relative/path"}).parts[-3:] == ("state", "olixono", "games")


def test_lines_are_on_disk_as_soon_as_they_are_appended(tmp_path):
    journal = Journal.create(meta(), tmp_path)
    journal.append("olixono/1 first")
    journal.append("olixono/1 second")
    assert (tmp_path / f"{GAME}.lines").read_text() == "olixono/1 first\nolixono/1 second\n"
    assert Journal.open(GAME, tmp_path).lines() == ["olixono/1 first", "olixono/1 second"]
    with pytest.raises(JournalError):
        journal.append("two\nlines")


def test_a_flush_goes_to_the_disk_once_for_everything_written_before_it(tmp_path, monkeypatch):
    flushed: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        flushed.append(fd)
        real_fsync(fd)

    monkeypatch.setattr("client.shell.journal.os.fsync", fsync)
    journal = Journal.create(meta(), tmp_path)
    flushed.clear()  # creating the journal flushes its metadata
    journal.write("olixono/1 mine")
    journal.write("olixono/1 theirs")
    journal.sync()
    journal.sync()  # nothing new: nothing to flush
    assert len(flushed) == 1
    journal.write("olixono/1 next")
    journal.sync()
    assert len(flushed) == 2


def test_a_line_cut_short_by_a_crash_is_left_out(tmp_path):
    journal = Journal.create(meta(), tmp_path)
    journal.append("olixono/1 whole")
    with open(journal.lines_path, "a") as handle:
        handle.write("olixono/1 cut sh")
    assert journal.lines() == ["olixono/1 whole"]


def test_files_are_private(tmp_path):
    folder = tmp_path / "games"
    journal = Journal.create(meta(secret="c2VjcmV0"), folder)
    journal.append("x")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for path in (journal.lines_path, journal.meta_path):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_metadata_round_trips_and_updates_atomically(tmp_path):
    journal = Journal.create(meta(), tmp_path)
    journal.update(connections=3, secret="c2VjcmV0")
    again = Journal.open(GAME, tmp_path)
    assert again.meta.connections == 3 and again.meta.secret == "c2VjcmV0"
    assert not list(tmp_path.glob("*.tmp"))
    assert Journal.create(meta(), tmp_path).meta.connections == 3  # the same seat reopens its journal
    with pytest.raises(JournalError, match="another seat"):
        Journal.create(meta(role="guest"), tmp_path)


def test_bad_ids_and_damaged_files_get_one_sentence(tmp_path):
    with pytest.raises(JournalError, match="not a game id"):
        check_game_id("../../etc/passwd")
    with pytest.raises(JournalError, match=r"no id ends in 'B'.*typo"):
        check_game_id(GAME[:-1] + "B")
    assert check_game_id(GAME) == GAME
    with pytest.raises(JournalError, match="no game"):
        Journal.open(GAME, tmp_path)
    (tmp_path / f"{GAME}.json").write_text("{not json")
    with pytest.raises(JournalError, match="damaged"):
        Journal.open(GAME, tmp_path)


def test_games_are_listed_newest_first_and_proofs_kept(tmp_path):
    older = Journal.create(meta(created=1.0), tmp_path)
    newer = Journal.create(meta("BBECAwQFBgcICQoLDA0ODw", created=2.0), tmp_path)
    (tmp_path / "junk.json").write_text("x")
    assert [j.meta.game for j in journals(tmp_path)] == [newer.meta.game, older.meta.game]
    proof = EquivocationDetected(HOST.public, "5", "line one", "line two")
    path = older.save_proof(proof)
    assert path.read_text() == "line one\nline two\n" and older.save_proof(proof) != path
    assert list(journals(tmp_path / "nowhere")) == []


def test_the_command_lines_default_relay_is_the_protocols():
    """``client.cli`` writes it out (``--help`` never imports the protocol): the two must agree."""
    from client.cli import DEFAULT_RELAY_TEXT
    from protocol.topics import DEFAULT_RELAY

    assert DEFAULT_RELAY_TEXT == DEFAULT_RELAY
