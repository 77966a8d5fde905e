"""A seated game's time witnesses on the embedded relay: it keeps a named witness's witness lines and the players'
copies of them, counted in the witness's share and the players', and nothing else of theirs; a key the offer does not
name is a stranger. Through the real relay on a free 127.0.0.1 port and the real library. The first test fails on a
relay that knows nothing of witnesses (it would refuse every witness line of a seated game); the second keeps what
must stay refused."""

from __future__ import annotations

import pytest
from protocol_helpers import GUEST, HOST, STRANGER, game_id_in
from relay_fixtures import retained_topics, signed_line, topic_of
from test_relay_shares import FAST, copy_of, own, publish, settle

from protocol import GameSession, Identity
from protocol.messages import encode
from protocol.session import Witnessing
from relay.embedded import EmbeddedRelay, RelaySettings

WITNESS = Identity.from_seed(bytes(range(100, 132)))


def witnessed_game(witness: Identity = WITNESS) -> tuple[list[tuple[str, bytes]], Witnessing, GameSession, GameSession]:
    """A game naming ``witness``, seated and its coin drawn: its lines (topic, line) in order, the witness (which saw
    them all), the host's session and the guest's."""
    host, offer = GameSession.offer("oxono", HOST, terms=f"rules:1,witness:{witness.public.text}")
    guest = GameSession(host.game_id or "", GUEST)
    lines = [offer]
    guest.receive(offer.line)
    lines.append(guest.join())
    host.receive(lines[-1].line)
    lines.append(host.accept(GUEST.public))
    guest.receive(lines[-1].line)
    lines.append(guest.reveal())
    host.receive(lines[-1].line)
    seer = Witnessing(host.game_id, witness)
    for out in lines:
        seer.receive(out.line)
    return [own(out) for out in lines], seer, host, guest


@pytest.fixture
async def fast_relay():
    """An embedded relay whose limits let a test's lines through at once."""
    async with EmbeddedRelay(RelaySettings(port=0, limits=FAST)) as started:
        yield started


async def test_a_seated_game_keeps_its_witness_lines_and_the_players_copies_of_them(fast_relay):
    lines, seer, host, _guest = witnessed_game()
    game = game_id_in(host)
    await publish(fast_relay.port, lines)
    await settle(fast_relay)
    out = seer.attest(1_000)
    assert out is not None
    witness_line = out.line.encode()
    copies = [copy_of(game, player, witness_line) for player in (HOST, GUEST)]
    await publish(fast_relay.port, [(out.topic, witness_line), *copies])
    await settle(fast_relay)
    kept = retained_topics(fast_relay)
    assert out.topic in kept and all(topic in kept for topic, _ in copies)
    quotas = fast_relay.broker.quotas
    assert quotas.shares(game, WITNESS.public.text) == (1, 0)
    assert quotas.shares(game, HOST.public.text)[1] == 1 and quotas.non_players(game) == 0


async def test_nothing_else_of_a_witness_and_no_unnamed_witness_stands_in_a_seated_game(fast_relay):
    lines, _seer, host, _guest = witnessed_game()
    game = game_id_in(host)
    await publish(fast_relay.port, lines)
    await settle(fast_relay)
    other = Witnessing(game, STRANGER)  # signs witness lines, but the offer does not name it
    for _, line in lines:
        other.receive(line)
    unnamed = other.attest(1_000)
    assert unnamed is None  # the library signs nothing for a game that does not name it: one made by hand
    forged = encode(
        "witness",
        [("game", game), ("seq", "1"), ("prev", host.chain[0].hash), ("time", "1000"), ("lines", host.chain[0].hash)],
        STRANGER,
    ).encode()
    refused = [
        (topic_of(game, STRANGER, "witness-1"), forged),  # a witness line of a key the offer does not name
        (topic_of(game, WITNESS, "chat-1"), signed_line(WITNESS, game, "chat-1")),  # the witness's chat
        copy_of(game, WITNESS, lines[1][1]),  # a copy the witness holds
        copy_of(game, HOST, forged),  # a player's copy of the unnamed one's witness line
    ]
    await publish(fast_relay.port, refused)
    await settle(fast_relay)
    kept = retained_topics(fast_relay)
    assert not any(topic in kept for topic, _ in refused)
