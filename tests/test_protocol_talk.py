"""The watchers' talk beside a game (``PROTOCOL.md`` §5, "A watcher's talk"): its line, its limits, the gallery that
keeps it, and the judge and the verifier that refuse it in a record."""

from __future__ import annotations

import pytest
from protocol_helpers import STRANGER, full_game, game_id_in, start

from protocol import Code, MessageType, decode, encode, verify_transcript
from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.events import LineRejected, TalkReceived
from protocol.gallery import MAX_TALK_LINES, MAX_TALKERS, Gallery, is_talk
from protocol.keys import Identity
from protocol.messages import MAX_CHAT_BYTES, encode_text
from protocol.topics import talk_filter, topic_for

WATCHER = Identity.from_seed(bytes(range(3, 35)))


def talk_line(identity: Identity, game: str, seq: int, text: str = "nice move") -> str:
    return encode(MessageType.TALK, [("game", game), ("seq", str(seq)), ("text", encode_text(text))], identity)


def test_a_talk_line_sits_on_its_own_topic_beneath_its_key():
    host, _ = start()
    message = decode(talk_line(WATCHER, game_id_in(host), 3))
    assert message.slot == "talk/3" and message.prev == "" and message.seq == 3
    topic = topic_for(message)
    assert topic.endswith(f"/{host.game_id}/{WATCHER.public.text}/talk/3")
    assert talk_filter(game_id_in(host)) == f"olixono/1/games/{host.game_id}/+/talk/+"
    assert is_talk(message.line) and is_talk(message.line.encode()) and not is_talk(host.transcript[0])


def test_the_gallery_keeps_each_line_once_and_tells_it_in_arrival_order():
    host, _ = start()
    gallery = Gallery(game_id_in(host))
    second, first = talk_line(WATCHER, game_id_in(host), 2, "second"), talk_line(STRANGER, game_id_in(host), 1, "first")
    assert gallery.receive(second) == TalkReceived(WATCHER.public, 2, "second")
    assert gallery.receive(first) == TalkReceived(STRANGER.public, 1, "first")
    assert gallery.receive(second) is None  # QoS 1 delivers it again: nothing new
    assert [line.line for line in gallery.lines()] == [second, first]
    assert gallery.talkers() == [WATCHER.public, STRANGER.public]


def test_a_second_line_for_a_slot_is_refused_and_the_first_stands():
    host, _ = start()
    gallery = Gallery(game_id_in(host))
    gallery.receive(talk_line(WATCHER, game_id_in(host), 1, "first"))
    with pytest.raises(RemoteProtocolError) as info:
        gallery.receive(talk_line(WATCHER, game_id_in(host), 1, "replaced"))
    assert info.value.code == Code.WRONG_SEAT
    assert [line.text for line in gallery.lines()] == ["first"]


@pytest.mark.parametrize(
    "line, code",
    [
        (lambda game: talk_line(WATCHER, "Z2FtZS1nYW1lLWdhbWUtZw", 1), Code.WRONG_GAME),
        (lambda game: talk_line(WATCHER, game, MAX_TALK_LINES + 1), Code.LIMIT),
        (lambda game: talk_line(WATCHER, game, 1).replace("text=nice", "text=nicE"), Code.BAD_SIGNATURE),
        (
            lambda game: talk_line(WATCHER, game, 1).replace("text=nice%20move", "text=" + "a" * (MAX_CHAT_BYTES + 1)),
            Code.BAD_FIELD,
        ),
        (lambda game: talk_line(WATCHER, game, 1).replace("text=nice%20move", "text=%1B%5B2J"), Code.BAD_FIELD),
        (lambda game: talk_line(WATCHER, game, 1).replace(" seq=1 ", " seq=1 prev=x "), Code.UNKNOWN_FIELD),
    ],
)
def test_a_bad_talk_line_is_refused_with_its_code_and_nothing_is_kept(line, code):
    host, _ = start()
    gallery = Gallery(game_id_in(host))
    with pytest.raises(RemoteProtocolError) as info:
        gallery.receive(line(host.game_id))
    assert info.value.code == code
    assert gallery.lines() == [] and gallery.talkers() == []


def test_at_most_so_many_keys_talk_in_a_game():
    host, _ = start()
    gallery = Gallery(game_id_in(host))
    keys = [Identity.from_seed(bytes([n]) * 32) for n in range(MAX_TALKERS + 1)]
    for key in keys[:MAX_TALKERS]:
        assert gallery.receive(talk_line(key, game_id_in(host), 1)) is not None
    with pytest.raises(RemoteProtocolError) as info:
        gallery.receive(talk_line(keys[-1], game_id_in(host), 1))
    assert info.value.code == Code.LIMIT
    assert len(gallery.talkers()) == MAX_TALKERS
    gallery.receive(talk_line(keys[0], game_id_in(host), 2))  # those who talk may go on
    with pytest.raises(LocalProtocolError, match="no more may"):
        gallery.talk(keys[-1], "me too")


def test_a_watcher_signs_its_next_line_after_what_the_relay_holds_of_it():
    host, _ = start()
    gallery = Gallery(game_id_in(host))
    gallery.receive(talk_line(WATCHER, game_id_in(host), 4, "said before"))  # its own, from an earlier watch
    message = gallery.talk(WATCHER, "and again")
    assert message.seq == 5 and message.text == "and again" and message.signer == WATCHER.public
    for text in ("", "x" * (MAX_CHAT_BYTES + 1), "\x1b[2J"):
        with pytest.raises(LocalProtocolError, match="cannot say that"):
            gallery.talk(WATCHER, text)
    for seq in range(6, MAX_TALK_LINES + 1):
        gallery.talk(WATCHER, f"line {seq}")
    with pytest.raises(LocalProtocolError, match=f"said {MAX_TALK_LINES} things"):
        gallery.talk(WATCHER, "one more")


def test_the_judge_refuses_talk_and_nothing_of_the_game_changes():
    host, _guest = start()
    before = tuple(host.transcript)
    events = host.receive(talk_line(WATCHER, game_id_in(host), 1))
    (refused,) = events
    assert isinstance(refused, LineRejected)
    assert refused.code == Code.WRONG_SEAT and "talk" in refused.detail
    assert tuple(host.transcript) == before


def test_verify_refuses_a_transcript_that_holds_talk():
    host, _ = full_game(seed=3)
    lines = list(host.transcript)
    assert verify_transcript(lines)[1] is None
    lines.insert(5, talk_line(WATCHER, game_id_in(host), 1))
    _session, number, problem = verify_transcript(lines)
    assert number == 6 and problem is not None and problem.code == Code.WRONG_SEAT
