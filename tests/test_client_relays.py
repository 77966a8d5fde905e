"""Several relays for one game, sans I/O (:mod:`client.cores.relays`): what arrives from any relay reaches the game
once, what a relay lacks is known, and a relay's going and coming back is one sentence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client.cores.relays import MOST_RELAYS, Relays, distinct_relays

A, B, C = "mqtt://a.example:1883", "mqtt://b.example:1883", "mqtts://c.example:8883"

lines = st.lists(
    st.tuples(st.sampled_from(["t/1", "t/2", "t/presence", "t/copy/x"]), st.binary(min_size=1, max_size=4)),
    min_size=1,
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(lines, st.lists(st.integers(0, 2), min_size=1, max_size=40), st.randoms(use_true_random=False))
def test_every_live_line_reaches_the_game_once_whatever_relay_brings_it_first(sent, relays_of, rng):
    """Each relay brings every line live (in an order of its own, some more than once): each distinct line, and each
    other line a relay holds on a topic, is given to the game exactly once."""
    relays = Relays([A, B, C])
    arrivals = [(index, topic, payload) for index in range(3) for topic, payload in sent]
    arrivals += [(relays_of[n % len(relays_of)], *sent[n % len(sent)]) for n in range(len(relays_of))]  # again
    rng.shuffle(arrivals)
    given_to_game = [(topic, payload) for index, topic, payload in arrivals if relays.arrived(index, topic, payload)]
    assert sorted(given_to_game) == sorted(set(sent))


def test_what_a_relay_sends_from_its_store_always_reaches_the_game():
    """The game asks for lines again when it dropped them (a resync), or catches up on a connection: what a relay sends
    from its store goes to the game every time, and does not stop the same line coming live from another relay."""
    relays = Relays([A, B])
    assert relays.arrived(0, "t/3", b"move", live=False)
    assert relays.arrived(0, "t/3", b"move", live=False)  # asked for again
    assert relays.arrived(1, "t/3", b"move")  # live from the other relay: the witness dates it then
    assert not relays.arrived(0, "t/3", b"move")  # and live again from the first: the same line
    assert relays.arrived(0, "t/3", b"move", live=False)


def test_a_relays_going_and_coming_back_is_one_sentence():
    relays = Relays([A, B])
    assert relays.connection(0, True, "connected") == f"relay back: R1 ({A}); playing through R1"
    assert relays.connection(1, True, "connected") == f"relay back: R2 ({B}); playing through R1, R2"
    assert relays.connection(1, True, "connected") is None  # no change
    assert relays.summary() == "R1 up, R2 up"
    assert (
        relays.connection(1, False, "the connection was lost")
        == f"relay lost: R2 ({B}): the connection was lost; playing on through R1"
    )
    assert relays.connection(0, False, "refused") == f"relay lost: R1 ({A}), the last: refused"
    assert relays.summary() == "R1 down, R2 down"
    single = Relays([A])
    assert single.connection(0, False, "the relay went away") is None  # down from the start: no change
    assert single.connection(0, True, "connected to it") == "connected to it"  # one relay: its own words, as today


def test_the_relays_given_are_kept_once_each_in_order_and_bounded():
    assert distinct_relays([B, A, B, " " + A]) == [B, A]
    with pytest.raises(ValueError, match="no relay given"):
        distinct_relays(["", " "])
    with pytest.raises(ValueError, match=f"at most {MOST_RELAYS} relays"):
        distinct_relays([f"mqtt://r{n}.example" for n in range(MOST_RELAYS + 1)])


def test_public_stands_for_every_public_broker_and_reads_back_from_a_command_line():
    """``public`` names every broker of the kept list (TLS each), a broker's short name names that one, and a join
    command written for a game on them says ``public`` again, where the first of them was."""
    from client.cores.relays import PUBLIC_BROKERS, expand, named

    public = [broker.url for broker in PUBLIC_BROKERS]
    assert expand(["public"]) == public and all(url.startswith("mqtts://") for url in public)
    assert expand([A, "PUBLIC", B]) == [A, *public, B]
    assert expand(["emqx", A]) == ["mqtts://broker.emqx.io:8883", A]
    assert named([A, *public, B]) == [A, "public", B] and expand(named([A, *public, B])) == [A, *public, B]
    assert named([A, public[0]]) == [A, public[0]]  # not every public broker: each by its URL
    assert len(public) <= MOST_RELAYS and len({broker.name for broker in PUBLIC_BROKERS}) == len(public)
