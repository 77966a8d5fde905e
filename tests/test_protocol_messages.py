"""The message grammar: one table of cases drives both the writer and the reader."""

from __future__ import annotations

import importlib.util
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import HOST, NONCE

from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.keys import b64, fingerprint, unb64
from protocol.messages import MAX_LINE_BYTES, SCHEMAS, check_text, decode, decode_text, encode, encode_text, game_id_of

GAME = "Z2FtZS1nYW1lLWdhbWUtZw"
HASH = b64(bytes(range(32)))
SIG = b64(HOST.sign(b"a takeback line"))
CASES = [
    ("offer", [("kind", "oxono"), ("nonce", NONCE), ("terms", "rules:1"), ("at", "1790000000")]),
    (
        "offer",
        [
            ("kind", "olix"),
            ("nonce", NONCE),
            ("terms", "clock:300+5,rules:1"),
            ("at", "1"),
            ("invite", HOST.public.text),
        ],
    ),
    ("join", [("game", GAME), ("seq", "1"), ("prev", HASH), ("terms", "rules:1"), ("commit", HASH)]),
    ("accept", [("game", GAME), ("seq", "2"), ("prev", HASH), ("guest", HOST.public.text), ("salt", NONCE)]),
    ("reveal", [("game", GAME), ("seq", "3"), ("prev", HASH), ("secret", NONCE)]),
    ("move", [("game", GAME), ("seq", "4"), ("prev", HASH), ("move", "Oc6c5")]),
    ("move", [("game", GAME), ("seq", "104"), ("prev", HASH), ("move", "k11")]),
    *[
        (kind, [("game", GAME), ("seq", "9"), ("prev", HASH)])
        for kind in ("claim", "resign", "propose", "withdraw", "agree", "decline", "abort")
    ],
    ("chat", [("game", GAME), ("seq", "1"), ("prev", HASH), ("text", encode_text("good game! 🎉 ça va?"))]),
    ("presence", [("game", GAME), ("seq", "3"), ("state", "here")]),
    ("talk", [("game", GAME), ("seq", "64"), ("text", encode_text("what a move 🎉"))]),
    ("presence", [("game", GAME), ("seq", "3"), ("state", "gone")]),
    ("confirm", [("game", GAME), ("seq", "1"), ("prev", HASH), ("final", "41"), ("result", "pink-colour")]),
    ("confirm", [("game", GAME), ("seq", "2"), ("prev", HASH), ("final", "0"), ("result", "equivocation")]),
    ("receipt", [("game", GAME), ("seq", "7"), ("prev", HASH), ("recv", "81234567")]),
    ("receipt", [("game", GAME), ("seq", "8"), ("prev", HASH), ("recv", "0"), ("ack", "9999999999999")]),
    ("flag", [("game", GAME), ("seq", "9"), ("prev", HASH), ("sent", "0"), ("now", "604801000")]),
    ("timeout", [("game", GAME), ("seq", "10"), ("prev", HASH)]),
    (
        "timeout",
        [("game", GAME), ("seq", "10"), ("prev", HASH), ("sent", "5"), ("flagged", "301005"), ("now", "331005")],
    ),
    ("witness", [("game", GAME), ("seq", "1"), ("prev", HASH), ("time", "0"), ("lines", HASH)]),
    ("rematch", [("game", GAME), ("seq", "41"), ("prev", HASH), ("next", GAME)]),
    ("takeback", [("game", GAME), ("seq", "9"), ("prev", HASH), ("plies", "0")]),
    ("undo", [("game", GAME), ("seq", "10"), ("prev", HASH), ("plies", "2"), ("consent", SIG)]),
    (
        "undo",
        [
            ("game", GAME),
            ("seq", "10"),
            ("prev", HASH),
            ("plies", "1"),
            ("think", "0"),
            ("left", "1000"),
            ("consent", SIG),
        ],
    ),
    (
        "witness",
        [
            ("game", GAME),
            ("seq", "12"),
            ("prev", HASH),
            ("time", "1790000000123"),
            ("lines", f"{HASH}.{GAME}AAAAAAAAAAAAAAAAAAAAA"),
        ],
    ),
    (
        "offer",
        [("kind", "oxono"), ("nonce", NONCE), ("terms", f"clock:60+0,rules:1,witness:{HOST.public.text}"), ("at", "1")],
    ),
]


@pytest.mark.parametrize("kind, fields", CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(CASES)])
def test_encode_then_decode_gives_the_same_message(kind, fields):
    line = encode(kind, fields, HOST)
    assert line.startswith(f"olixono/1 {kind} ")
    assert " by=" + HOST.public.text + " sig=" in line
    message = decode(line)
    assert message.type == kind and list(message.fields) == fields and message.signer == HOST.public
    assert message.line == line and decode(line.encode("utf-8")) == message


def test_every_type_has_a_case():
    assert {kind for kind, _ in CASES} == set(SCHEMAS)


def test_a_known_line_byte_for_byte():
    line = encode("move", [("game", GAME), ("seq", "4"), ("prev", HASH), ("move", "Oc6c5")], HOST)
    assert line == (
        "olixono/1 move game=Z2FtZS1nYW1lLWdhbWUtZw seq=4 prev=AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8 "
        f"move=Oc6c5 by={HOST.public.text} sig=" + line.rsplit("sig=", 1)[1]
    )
    assert len(line.rsplit("sig=", 1)[1]) == 86


BAD_LINES = [
    ("", "syntax"),
    ("hello", "syntax"),
    ("olixono/2 move game=x", "unknown-version"),
    ("olixono/1 teleport game=x by=y sig=z", "unknown-type"),
    ("olixono/1 move", "syntax"),
    ("olixono/1 move game=x seq=1 by=y sig=z", "syntax"),
    ("olixono/1  move", "non-canonical"),
    ("olixono/1 move\tgame", "control-character"),
    ("olixono/1 move game=é", "syntax"),
]


@pytest.mark.parametrize("line, code", BAD_LINES)
def test_bad_lines_get_their_code(line, code):
    with pytest.raises(RemoteProtocolError) as info:
        decode(line)
    assert info.value.code == code


def mutate(line: str, old: str, new: str) -> str:
    assert old in line
    return line.replace(old, new, 1)


VALID = encode("move", [("game", GAME), ("seq", "4"), ("prev", HASH), ("move", "Oc6c5")], HOST)


@pytest.mark.parametrize(
    "line, code",
    [
        (mutate(VALID, " seq=4", " seq=04"), "bad-field"),
        (mutate(VALID, " seq=4", " seq=0"), "bad-field"),
        (mutate(VALID, " seq=4 prev", " prev=x seq=4 prev"), "syntax"),
        (mutate(VALID, "game=Z2FtZS1nYW1lLWdhbWUtZw seq=4", "seq=4 game=Z2FtZS1nYW1lLWdhbWUtZw"), "non-canonical"),
        (mutate(VALID, " move=Oc6c5", " move=Oc6c5 colour=pink"), "unknown-field"),
        (mutate(VALID, " move=Oc6c5", ""), "syntax"),
        (mutate(VALID, "move=Oc6c5", "move=Oc6c5!"), "bad-field"),
        (mutate(VALID, "move=Oc6c5", "move=Oc6c6"), "bad-signature"),
        (VALID + " ", "non-canonical"),
        (VALID + "\n", "control-character"),
        (mutate(VALID, "olixono/1", "olixono/1.1"), "unknown-version"),
        (VALID[: VALID.index(" sig=")], "syntax"),
        (VALID + "A" * MAX_LINE_BYTES, "oversize"),
    ],
)
def test_a_changed_valid_line_gets_its_code(line, code):
    with pytest.raises(RemoteProtocolError) as info:
        decode(line)
    assert info.value.code == code


def test_a_witness_line_names_each_line_once():
    unsigned = f"olixono/1 witness game={GAME} seq=1 prev={HASH} time=5 lines={HASH}.{HASH} by={HOST.public.text}"
    with pytest.raises(RemoteProtocolError) as info:
        decode(f"{unsigned} sig={b64(HOST.sign(unsigned.encode()))}")
    assert info.value.code == "bad-field" and "a line is named once" in str(info.value)


def test_invalid_utf8_and_lone_surrogates():
    with pytest.raises(RemoteProtocolError) as info:
        decode(VALID.encode() + b"\xff")
    assert info.value.code == "bad-utf8"
    with pytest.raises(RemoteProtocolError) as info:
        decode(VALID + "\udc80")
    assert info.value.code == "bad-utf8"


def test_non_canonical_base64_is_refused():
    unsigned, _, sig = VALID.rpartition(" sig=")
    last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    bumped = last[last.index(sig[-1]) + 1]  # same bytes when decoded, other unused bits
    with pytest.raises(RemoteProtocolError) as info:
        decode(f"{unsigned} sig={sig[:-1]}{bumped}")
    assert info.value.code == "bad-field"
    with pytest.raises(ValueError):
        unb64(sig[:-1] + bumped, 64)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("", "malformed"),
        ("a" * 501, "longer"),
        ("bell\x07", "control"),
        ("evil\x1b[2J", "control"),
        ("rtl\u202e", "format"),  # a bidirectional override
        ("lrm\u200e", "format"),  # LEFT-TO-RIGHT MARK
        ("rlm\u200f", "format"),  # RIGHT-TO-LEFT MARK
        ("line\u2028sep", "separator"),  # LINE SEPARATOR
        ("para\u2029sep", "separator"),  # PARAGRAPH SEPARATOR
        ("zero\u200bwidth", "format"),  # ZERO WIDTH SPACE
        ("joiner\u200d", "format"),  # ZERO WIDTH JOINER
        ("bom\ufeff", "format"),
        ("tag\U000e0041", "format"),  # TAG LATIN CAPITAL LETTER A
        ("nbsp\u00a0", "separator"),  # a space that is not U+0020
        ("ideographic\u3000", "separator"),
        ("soft\u00adhyphen", "format"),
        ("private\ue000", "format"),  # private use
        ("\u0301starts", "starts with the combining"),
        ("z" + "\u0301" * 5, "combining marks in a row"),
        ("c1\x85", "control"),  # NEXT LINE, a C1 control
    ],
)
def test_chat_text_that_could_forge_a_terminal_is_refused(text, problem):
    with pytest.raises(LocalProtocolError, match=problem):
        encode("chat", [("game", GAME), ("seq", "1"), ("prev", HASH), ("text", encode_text(text))], HOST)


@pytest.mark.parametrize(
    "text",
    [
        "é",
        "e\u0301",
        "Vi\u1ec7t",
        "a\u0323\u0302",
        "z" + "\u0301" * 4,
        "नमस्ते",
        "שָׁלוֹם",
        "good game 🎉",
        "🇫🇷",
        "日本語",
        "a b",
    ],
)
def test_chat_text_in_any_script_is_allowed(text):
    line = encode("chat", [("game", GAME), ("seq", "1"), ("prev", HASH), ("text", encode_text(text))], HOST)
    assert decode_text(decode(line).value("text")) == text


def test_the_unicode_tables_are_what_the_generator_writes():
    generator = Path(__file__).resolve().parent.parent / "scripts" / "unicode_tables.py"
    spec = importlib.util.spec_from_file_location("unicode_tables_generator", generator)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if unicodedata.unidata_version != module.UNICODE_VERSION:
        pytest.skip(
            f"the tables are pinned to Unicode {module.UNICODE_VERSION}; this Python has {unicodedata.unidata_version}"
        )
    assert module.TARGET.read_text() == module.render()


@pytest.mark.parametrize(
    "terms, ok",
    [
        ("rules:1", True),
        ("clock:300+5,rules:1", True),
        ("rules:1,clock:300+5", False),
        ("rules:1,rules:2", False),
        ("Rules:1", False),
        ("rules:", False),
        ("rules", False),
        ("a:1,b:2,c:3,d:4,e:5,f:6,g:7,h:8,i:9", False),
    ],
)
def test_terms_are_sorted_unique_and_bounded(terms, ok):
    fields = [("kind", "oxono"), ("nonce", NONCE), ("terms", terms), ("at", "1790000000")]
    if ok:
        assert decode(encode("offer", fields, HOST)).value("terms") == terms
    else:
        with pytest.raises(LocalProtocolError):
            encode("offer", fields, HOST)


def test_chat_text_has_one_percent_encoding():
    assert encode_text("a b") == "a%20b"
    with pytest.raises(ValueError, match="canonical"):
        decode_text("%61")  # 'a' must be written as itself
    with pytest.raises(ValueError):
        decode_text("%FF")


@settings(max_examples=300, deadline=None)
@given(text=st.text(min_size=1, max_size=120))
def test_chat_text_round_trips_or_is_refused_by_both_sides(text):
    problem = check_text(text)
    fields = [("game", GAME), ("seq", "1"), ("prev", HASH), ("text", encode_text(text))]
    if problem is None:
        assert decode_text(decode(encode("chat", fields, HOST)).value("text")) == text
    else:
        with pytest.raises(LocalProtocolError):
            encode("chat", fields, HOST)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=3000))
def test_garbage_bytes_raise_only_a_protocol_error(data):
    with pytest.raises(RemoteProtocolError) as caught:  # random bytes are never a validly signed line
        decode(data)
    assert str(caught.value)


@settings(max_examples=300, deadline=None)
@given(index=st.integers(0, len(VALID) - 1), char=st.characters())
def test_any_one_character_change_is_rejected(index, char):
    line = VALID[:index] + char + VALID[index + 1 :]
    if line == VALID:
        return
    with pytest.raises(RemoteProtocolError):
        decode(line)


def test_encode_refuses_wrong_fields():
    with pytest.raises(LocalProtocolError, match="takes the fields"):
        encode("move", [("seq", "1")], HOST)
    with pytest.raises(LocalProtocolError, match="unknown message type"):
        encode("teleport", [], HOST)
    with pytest.raises(LocalProtocolError, match="malformed"):
        encode("move", [("game", GAME), ("seq", "x"), ("prev", HASH), ("move", "Oc6c5")], HOST)


def test_game_id_and_fingerprint_are_stable():
    """Pinned: a change to either (the hash, its length, the encoding) would make every earlier game another."""
    offer = encode("offer", [("kind", "oxono"), ("nonce", NONCE), ("terms", "rules:1"), ("at", "1790000000")], HOST)
    assert decode(offer).game == game_id_of(offer) == "6e70Gysti45N0gEL6acbTw"
    assert fingerprint(HOST.public.raw) == HOST.fingerprint == "5647-5aa7-5463-474c"
