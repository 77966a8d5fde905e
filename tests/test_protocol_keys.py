"""Keys and signatures: the strict verification rule (PROTOCOL.md §2), against a plain Ed25519 reference."""

from __future__ import annotations

import ed25519_reference as ref
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from protocol_helpers import GUEST, HOST, NONCE

from protocol import GameSession, LineRejected, PublicKey, WeakKeyError
from protocol.errors import RemoteProtocolError
from protocol.keys import FIELD_P, GROUP_L, SMALL_ORDER_ENCODINGS, b64, point_problem, signature_problem
from protocol.messages import decode, encode

WEAK = sorted(SMALL_ORDER_ENCODINGS)


def test_the_refused_list_is_every_encoding_of_every_small_order_point():
    assert ref.small_order_encodings() == SMALL_ORDER_ENCODINGS
    assert len(SMALL_ORDER_ENCODINGS) == 14


@pytest.mark.parametrize("public", WEAK, ids=lambda b: b.hex()[:8] + b.hex()[-2:])
def test_anyone_can_sign_for_a_small_order_key_so_it_is_refused(public):
    line = ref.forged_offer(public)
    unsigned, _, _sig = line.rpartition(" sig=")
    raw_sig = ref.encode_point(ref.IDENTITY) + bytes(32)
    Ed25519PublicKey.from_public_bytes(public).verify(raw_sig, unsigned.encode())  # the hole: cryptography accepts it
    with pytest.raises(WeakKeyError):
        PublicKey(public)
    with pytest.raises(RemoteProtocolError) as info:
        decode(line)
    assert info.value.code == "weak-key"
    session = GameSession()
    assert [e.code for e in session.receive(line) if isinstance(e, LineRejected)] == ["weak-key"]
    assert not session.chain


def test_non_canonical_encodings_of_ordinary_points_are_refused():
    refused = 0
    for y in range(2, 19):  # y + p still fits in 255 bits only for y < 19
        point = ref.decode_point(y.to_bytes(32, "little"))
        if point is None or ref.mul(8, point) == ref.IDENTITY:
            continue
        encoding = ref.encode_point(point, y_plus_p=True)
        assert ref.decode_point(encoding) == point  # a lenient decoder reads the same point
        assert point_problem(encoding) == "a non-canonical point encoding (y is not below p)"
        assert point_problem(ref.encode_point(point)) is None
        refused += 1
    assert refused >= 3


def test_a_signature_whose_r_is_the_identity_is_refused():
    seed = bytes(range(32))
    data = b"olixono/1 whatever"
    signature = ref.sign_with_identity_r(seed, HOST.public.raw, data)
    Ed25519PublicKey.from_public_bytes(HOST.public.raw).verify(signature, data)  # cryptography accepts it
    assert signature_problem(signature) == "its R is a small-order point"
    assert not HOST.public.verify(signature, data)


@pytest.mark.parametrize("r", WEAK, ids=lambda b: b.hex()[:8] + b.hex()[-2:])
def test_every_small_order_r_is_refused(r):
    assert signature_problem(r + bytes(32)) == "its R is a small-order point"


def test_s_must_be_below_the_group_order():
    data = b"olixono/1 whatever"
    signature = HOST.sign(data)
    s = int.from_bytes(signature[32:], "little")
    assert HOST.public.verify(signature, data)
    assert (
        signature_problem(signature[:32] + (s + GROUP_L).to_bytes(32, "little")) == "its S is not below the group order"
    )
    non_canonical_r = (FIELD_P + 5).to_bytes(32, "little")  # y = p + 5: the same y as 5, spelled the long way
    assert (
        signature_problem(non_canonical_r + signature[32:])
        == "its R is a non-canonical point encoding (y is not below p)"
    )


def test_a_weak_key_named_in_a_field_is_refused():
    weak = b64(WEAK[2])
    line = encode(
        "offer",
        [
            ("kind", "oxono"),
            ("nonce", NONCE),
            ("terms", "rules:1"),
            ("at", "1790000000"),
            ("invite", GUEST.public.text),
        ],
        HOST,
    )
    with pytest.raises(RemoteProtocolError) as info:
        decode(line.replace(GUEST.public.text, weak))
    assert info.value.code == "weak-key"
    with pytest.raises(ValueError):
        encode(
            "offer",
            [("kind", "oxono"), ("nonce", NONCE), ("terms", "rules:1"), ("at", "1790000000"), ("invite", weak)],
            HOST,
        )


def test_keys_compare_by_bytes_and_round_trip_as_text():
    assert PublicKey(HOST.public.raw) == HOST.public and hash(PublicKey(HOST.public.raw)) == hash(HOST.public)
    assert PublicKey.from_text(HOST.public.text) == HOST.public
    assert HOST.public != GUEST.public
    with pytest.raises(ValueError):
        PublicKey(b"short")
