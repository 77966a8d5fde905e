"""Lines for the browser's judge to receive, each feed with what Python's watcher made of it, line by line.

    python tests/web_judge_cases.py OUT.json

Two parts, seeded so that each run writes the same file: every vector of ``protocol/vectors`` (its transcripts, its
cases, races, forfeits, confirmations and presence), and a few hundred games played here between two
``GameSession``s (random legal moves, chat, proposals agreed, declined and withdrawn, resignations, races, aborts, the
host's claim and a guest's late reveal, confirmations, presence), with damaged, forged, illegal, wrong-seat,
after-end and other games' lines mixed in, fed to a fresh watcher (no key) in their order, shuffled, and shuffled
with duplicates. For each feed: the events of each line received (``normal``), the state at the end and
``verify_transcript``'s verdict. ``web/tests/judge.test.js`` (run by ``tests/test_web_judge.py``) replays them;
nothing generated is committed.
"""

from __future__ import annotations

import contextlib
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from protocol_helpers import board_of, identity_of, playable

from protocol import GameSession, Identity
from protocol import events as ev
from protocol.keys import b64
from protocol.messages import decode, encode, line_hash
from protocol.session import Witnessing
from protocol.transcript import verify_transcript

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
DOCUMENT = json.loads((VECTORS / "vectors.json").read_text())
KEYS = [Identity.from_seed(bytes([n]) * 32) for n in range(0x51, 0x56)]
Case = dict[str, Any]


def normal(event: ev.Event) -> list[Any] | None:
    """An event as both implementations write it down; ``None`` for one this file has no form for (an error)."""
    if isinstance(event, ev.LineApplied):
        return ["LineApplied", event.message.hash]
    if isinstance(event, ev.LineRejected):
        return ["LineRejected", str(event.code)]
    if isinstance(event, ev.OfferReceived):
        return [
            "OfferReceived",
            event.game,
            str(event.kind),
            event.host.text,
            None if event.invite is None else event.invite.text,
            event.terms,
            event.at,
        ]
    if isinstance(event, (ev.JoinRequested, ev.GuestAccepted, ev.ConfirmationReceived)):
        return [type(event).__name__, event.key.text]
    if isinstance(event, ev.GameStarted):
        return ["GameStarted", [[player, key.text] for player, key in event.seats]]
    if isinstance(event, ev.MoveApplied):
        return ["MoveApplied", event.seq, event.player, event.move, event.ply]
    if isinstance(event, (ev.EndProposed, ev.ProposalWithdrawn, ev.EndDeclined)):
        return [type(event).__name__, event.player]
    if isinstance(event, ev.ChatReceived):
        return ["ChatReceived", event.key.text, event.text]
    if isinstance(event, ev.PresenceChanged):
        return ["PresenceChanged", event.key.text, event.here]
    if isinstance(event, ev.GameOver):
        return ["GameOver", event.result.code(), event.result.sentence()]
    if isinstance(event, ev.Superseded):
        return ["Superseded", event.message.hash, event.by.hash]
    if isinstance(event, ev.ResyncNeeded):
        return ["ResyncNeeded"]
    if isinstance(event, ev.EquivocationDetected):
        return [
            "EquivocationDetected",
            event.key.text,
            event.slot,
            line_hash(event.first),
            line_hash(event.second),
            event.point,
            event.played_on,
        ]
    if isinstance(event, ev.ClaimVoided):
        return ["ClaimVoided", event.timeout.hash]
    if isinstance(event, ev.MovesTakenBack):
        return ["MovesTakenBack", event.seq, event.player, event.plies, list(event.moves)]
    if isinstance(event, ev.TakebackAsked):
        return ["TakebackAsked", event.player, event.plies, event.seq, event.message.hash]
    if isinstance(event, ev.RematchAsked):
        return ["RematchAsked", event.key.text, event.game, event.message.hash]
    return None


def summary(session: GameSession) -> dict[str, Any]:
    """What a watcher shows of a game: the phase, the board, the moves, the result, the seats, the record."""
    result = session.result
    keys = [key for key in (session.host, session.guest) if key is not None]
    return {
        "phase": session.phase.value,
        "position": session.position,
        "moves": [line.move for line in session.standing()],
        "turns": session.moves,
        "result": None
        if result is None
        else {
            "code": result.code(),
            "sentence": result.sentence(),
            "winner": result.winner,
            "reason": str(result.reason),
        },
        "seats": {player: key.text for player, key in session.seats.items()},
        "host": None if session.host is None else session.host.text,
        "guest": None if session.guest is None else session.guest.text,
        "actor": None if session.actor is None else session.actor.text,
        "proposal": session.proposal,
        "transcript": list(session.transcript),
        "waiting": len(session.waiting),
        "confirmations": {key.text: session.confirmation(key) for key in keys},
        "confirmed_endings": {key.text: session.confirmed_ending(key) for key in keys},
        "confirmed_by": sorted(key.text for key in session.confirmed_by),
        "waiting_of": {key.text: [line.hash for line in session.waiting_of(key)] for key in keys},
        "present": {key.text: session.present(key) for key in keys},
        "clocks": session.clocks,
        "first_move_ms": session.first_move_ms,
        "claim_remaining": session.claim_remaining(),
        "claims": [[flag.hash, status] for flag, status in session.claims()],
        "time_used": {
            player: [used.used, used.unexplained, used.moves, used.measured]
            for player, used in session.time_used().items()
        },
        "answers": [[a.player, a.think, a.elapsed, a.round_trip, a.offset, a.unexplained] for a in session.answers()],
        "record": list(session.record),
        "takebacks": {key.text: None if (taken := session.takeback_of(key)) is None else taken.hash for key in keys},
        "rematches": {key.text: session.rematch_of(key) for key in keys},
        "rematch": session.rematch,
        "proofs": [
            [proof.key.text, proof.slot, line_hash(proof.first), line_hash(proof.second), proof.point]
            for proof in session.proofs
        ],
        "compromised_by": sorted(key.text for key in session.compromised_by),
        "forfeit_pending": session.forfeit_pending,
        "branch": None if session.branch is None else [line.hash for line in session.branch],
        "seating_lines": list(session.seating_lines()),
        "witness_lies": {key.text: why for key, why in session.witness_lies().items()},
    }


def feed(name: str, lines: Sequence[str | bytes], game_id: str | None = None) -> Case:
    """Python's watcher on ``lines`` in this order: the events of each, the state at the end, the strict verdict.
    A line given as bytes (what MQTT delivers, UTF-8 or not) is written as its hex; ``game_id``: a watcher that knows
    the game it watches (as the page does, from its address), so that another game's offer is refused."""
    session = GameSession(game_id)
    events: list[list[Any]] = []
    for line in lines:
        written = [normal(event) for event in session.receive(line)]
        if any(item is None for item in written):
            raise ValueError(f"{name}: an event the JavaScript test has no form for: {session.receive(line)}")
        events.append([item for item in written if item is not None])
    checked, number, problem = verify_transcript(lines)
    written_lines = [line if isinstance(line, str) else {"hex": line.hex()} for line in lines]
    return {
        "name": name,
        "game": game_id,
        "lines": written_lines,
        "events": events,
        "summary": summary(session),
        "verify": {
            "number": number,
            "code": None if problem is None else str(problem.code),
            "result": None if checked.result is None else checked.result.code(),
            "phase": checked.phase.value,
        },
    }


# -- the vectors ----------------------------------------------------------------------------------------------------
def vector_feeds() -> list[Case]:
    """Every vector, as feeds: the transcripts and the cases in their order, races and forfeits in several."""
    cases: list[Case] = []
    for path in sorted(VECTORS.glob("*.txt")):
        transcript = path.read_text().splitlines()
        cases.append(feed(f"file {path.name}", transcript))
        cases.append(feed(f"file {path.name} reversed", transcript[::-1]))
    for vector in DOCUMENT["cases"]:
        lines: list[str | bytes] = list(vector["lines"])
        if "last_hex" in vector:  # the last line as MQTT delivers it: bytes that are no UTF-8
            lines[-1] = bytes.fromhex(vector["last_hex"])
        cases.append(feed(f"case {vector['name']}", lines))
    for part in ("races", "forfeits"):
        for vector in DOCUMENT[part]:
            prefix, rest = list(vector["prefix"]), list(vector["lines"])
            cases.append(feed(f"{part} {vector['name']}", prefix + rest))
            cases.append(feed(f"{part} {vector['name']} reversed", prefix + rest[::-1]))
            cases.append(feed(f"{part} {vector['name']} all reversed", (prefix + rest)[::-1]))
    for part in ("confirmations", "presence"):
        vector = DOCUMENT[part]
        cases.append(feed(part, list(vector["prefix"]) + list(vector["lines"])))
        cases.append(feed(f"{part} reversed", (list(vector["prefix"]) + list(vector["lines"]))[::-1]))
    return cases


# -- games played here --------------------------------------------------------------------------------------------
class Game:
    """One game between two sessions, every line signed kept in order, and the junk to mix in."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.host_key, self.guest_key, self.stranger, witness_key = rng.sample(KEYS, 4)
        kind = rng.choice(["oxono", "olix"])
        terms = rng.choice(
            [
                "rules:1",
                "rules:2",
                "rules:2",
                "first:guest,rules:2",
                "first:host,rules:1",
                "clock:60+2,rules:2",
                "clock:60+0,rules:1",
                "clock:900+5,first:host,rules:2",
                "days:3,rules:2",
                "days:1,rules:1",
            ]
        )
        invite = self.guest_key.public if rng.random() < 0.2 else None
        if terms.startswith("clock:") and rng.random() < 0.4:  # a time witness (its term sorts last)
            terms = f"{terms},witness:{witness_key.public.text}"
        self.host, offer = GameSession.offer(
            kind, self.host_key, invite=invite, nonce=self.token(), terms=terms, at=1_790_000_000 + rng.randrange(10**6)
        )
        self.guest = GameSession(self.host.game_id, self.guest_key)
        self.witness = Witnessing(self.host.game_id, witness_key) if "witness:" in terms else None
        self.lines: list[str] = [offer.line]
        self.junk: list[str] = []
        self.guest.receive(offer.line)
        if self.witness is not None:
            self.witness.receive(offer.line)
        self.timed = self.host.clock is not None
        self.now = 1_000  # both monotonic clocks, one origin (receipts use only differences within one line)
        self.left_at: dict[bytes, int] = {}  # when each key's last turn line left it
        self.claimed = False

    def token(self) -> str:
        return b64(bytes(self.rng.randrange(256) for _ in range(16)))

    def append(self, *lines: str) -> None:
        """Lines of the game, in the order signed: a witness sees each, and now and then signs what it saw (at times
        that now and then lie: going back, or a second line for one of its seq)."""
        for line in lines:
            self.lines.append(line)
            if self.witness is None:
                continue
            self.witness.receive(line)
            if self.rng.random() < 0.3 and line.split(" ", 2)[1] not in ("flag", "timeout"):
                continue
            out = self.witness.attest(self.now)
            if out is None:
                continue
            self.lines.append(out.line)
            for session in (self.host, self.guest):
                session.receive(out.line)
            roll = self.rng.random()
            if roll < 0.1:  # a second line for its seq: it lies
                fields = [
                    (name, str(int(value) + 1) if name == "time" else value) for name, value in out.message.fields
                ]
                self.junk.append(self.signed(self.witness.signer, "witness", fields))

    def both(self, line: str, *sessions: GameSession) -> None:
        self.append(line)
        for session in sessions or (self.host, self.guest):
            session.receive(line)

    def sides(self) -> tuple[GameSession, GameSession]:
        """(the session of the player to move, the other's)."""
        return (self.host, self.guest) if self.host.actor == self.host_key.public else (self.guest, self.host)

    def signed(self, identity: Identity, kind: str, fields: list[tuple[str, str]]) -> str:
        return encode(kind, fields, identity)

    def chain_fields(self, session: GameSession) -> list[tuple[str, str]]:
        head = session.head
        assert head is not None and session.game_id is not None
        return [("game", session.game_id), ("seq", str(session.next_seq)), ("prev", head.hash)]

    def seat(self) -> bool:
        """Join, accept, reveal (or walk away, withdraw, claim): whether the game is played."""
        rng = self.rng
        if rng.random() < 0.3:  # a stranger's candidacy (refused when the game invites someone)
            stranger = GameSession(self.host.game_id, self.stranger)
            stranger.receive(self.lines[0])
            with contextlib.suppress(Exception):  # an invited game: the client refuses to sign (LocalProtocolError)
                self.junk.append(stranger.join(self.token()).line)
        if rng.random() < 0.05:
            self.both(self.host.abort().line)
            return False
        self.both(self.guest.join(self.token()).line)
        for line in self.junk:
            self.host.receive(line)
        self.both(self.host.accept(self.guest_key.public, self.token()).line)
        ending = rng.random()
        if ending < 0.05:
            self.both(self.guest.abort().line)
            return False
        if ending < 0.12:  # the host claims; the guest's reveal, sent meanwhile, stands over it (or never comes)
            claim = self.host.claim().line
            self.append(claim)
            if rng.random() < 0.5:
                return False
            revealed = self.guest.reveal().line
            self.append(revealed)
            self.host.receive(revealed)
            self.guest.receive(claim)
            return not self.host.over
        reveal = self.guest.reveal()
        self.both(reveal.line)
        self.left_at[self.guest_key.public.raw] = self.now
        self.receipt(self.host, reveal.message.seq, with_sent=False)
        return True

    def receipt(self, session: GameSession, seq: int, *, with_sent: bool = True) -> None:
        """``session``'s receipt of the line at ``seq`` (a timed game's), now and then slow or without its times."""
        if not self.timed or self.rng.random() < 0.1:
            return
        self.now += self.rng.randint(5, 80)
        me = session.identity.public.raw if session.identity is not None else b""
        sent = self.left_at.get(me) if with_sent and self.rng.random() < 0.9 else None
        ack = None if sent is None or self.rng.random() < 0.3 else min(self.now, sent + self.rng.randint(10, 200))
        recv = self.now + (self.rng.choice([0, 0, 0, 4000, 9000]) if sent is not None else 0)
        out = session.receipt(seq, recv, sent, ack)
        if out is not None:
            self.both(out.line)

    def timed_move(self, mine: GameSession, theirs: GameSession, text: str, *, receipted: bool = True) -> str:
        """``mine`` plays ``text`` (in a timed game, with a think= that fits its clock), ``theirs`` receipts it."""
        think = None
        if self.timed:
            board = mine.board
            clocks = mine.clocks
            assert board is not None and clocks is not None
            limit = mine.first_move_ms if mine.first_move_ms is not None else clocks[board.turn]
            think = min(self.rng.choice([0, 40, 350, 1_500, 6_000, 20_000]), limit - 1)
            self.now += think + self.rng.randint(5, 60)
        out = mine.move(text, think_ms=think)
        assert mine.identity is not None
        self.left_at[mine.identity.public.raw] = self.now
        if receipted:
            self.both(out.line)
            self.receipt(theirs, out.message.seq)
        return out.line

    def play(self) -> None:
        rng = self.rng
        plies = rng.choice([0, 2, 6, 20, 60, 200])
        quiet = self.witness is None and rng.random() < 0.2  # to its end by the rules: no resignation, abort, agreement
        if quiet:
            plies = 400
        for _ in range(plies):
            if self.host.over:
                break
            mine, theirs = self.sides()
            if rng.random() < 0.1:
                talker = rng.choice([mine, theirs])
                self.both(talker.chat(rng.choice(["gg", "hi there", "é ✓ ok", "thinking…"])).line)
            roll = 1.0 if quiet else rng.random()
            if roll < 0.02 and mine.may("abort") is None:
                self.both(mine.abort().line)
                break
            if roll < 0.04:
                self.both(mine.resign().line)
                break
            if roll < 0.06:  # the waiter resigns while the actor plays its turn: a race
                moved = self.timed_move(mine, theirs, rng.choice(playable(mine)), receipted=False)
                resigned = theirs.resign().line
                self.append(moved, resigned)
                mine.receive(resigned)
                theirs.receive(moved)
                break
            if mine.proposal is not None and mine.proposal != mine.player_of(identity_of(mine).public):
                answer = rng.random()
                if answer < 0.3 and mine.may("agree") is None:
                    self.both(mine.agree().line)
                    break
                if answer < 0.6 and mine.may("decline") is None:
                    self.both(mine.decline().line)
            elif mine.proposal is not None and rng.random() < 0.3 and mine.may("withdraw") is None:
                self.both(mine.withdraw().line)
            elif mine.proposal is None and not quiet and rng.random() < 0.08 and mine.may("propose") is None:
                self.both(mine.propose().line)
            if (
                rng.random() < 0.06
                and mine.board is not None
                and len(mine.board.move_stack) >= 4
                and not any(mine.takeback_of(key) for key in (self.host_key.public, self.guest_key.public))
            ):
                self.take_back(mine, theirs)
                continue
            if rng.random() < 0.04:  # the waiter signs a move out of turn (its next line is at a later seq)
                text = rng.choice(playable(theirs)) if board_of(theirs).legal_moves() else "a1"
                self.junk.append(self.signed(identity_of(theirs), "move", [*self.chain_fields(theirs), ("move", text)]))
            clocks, board = mine.clocks, mine.board
            if clocks is not None and board is not None and mine.first_move_ms is None and clocks[board.turn] <= 1000:
                break  # nearly out of time: the game is left to a claim or a concession
            self.timed_move(mine, theirs, rng.choice(playable(mine)))
        if not self.host.over and self.host.started and rng.random() < (0.9 if self.witness is not None else 0.5):
            self.claim()

    def take_back(self, mine: GameSession, theirs: GameSession) -> None:
        """A takeback: the player who just moved asks for its move back, or the player to move for two (the other
        consents, or refuses); the player to move carries it out with an undo, or refuses and plays on."""
        rng = self.rng
        if rng.random() < 0.5:
            self.both(theirs.takeback(1).line)
        else:
            self.both(mine.takeback(2).line)
            if rng.random() < 0.3:
                self.both(theirs.takeback(0).line)
                return
            self.both(theirs.takeback(2).line)
        if rng.random() < 0.2:  # refused (a refusal of the other's), or left to lapse
            if (
                mine.takeback_of(identity_of(theirs).public) is not None
                and mine.takeback_of(identity_of(mine).public) is None
            ):
                self.both(mine.takeback(0).line)
            return
        think = None
        if self.timed and mine.clocks is not None and mine.board is not None:
            think = min(self.rng.choice([0, 300, 2_000]), mine.clocks[mine.board.turn] - 1)
            self.now += think + 20
        out = mine.undo(think)
        self.both(out.line)
        if out.message.plies == 1:
            self.left_at[identity_of(mine).public.raw] = self.now
            self.receipt(theirs, out.message.seq)

    def equivocate(self) -> None:
        """Now and then, a second line of a key's for a slot it signed: a main-chain line (a proof that forfeits the
        game at that point, unless it ended before), a line after its own final line, a second join or accept, chat,
        confirmation or receipt (reported, deciding nothing)."""
        rng = self.rng
        keys = {self.host_key.public: self.host_key, self.guest_key.public: self.guest_key}
        chain = self.host.chain
        game, offer = chain[0].game, chain[0]
        if rng.random() < 0.2 and len(chain) > 1:  # a second line for a main-chain slot
            line = rng.choice(chain[1:])
            kind = "abort" if line.type == "resign" else "resign"
            self.junk.append(
                self.signed(keys[line.signer], kind, [("game", game), ("seq", str(line.seq)), ("prev", line.prev)])
            )
        head = chain[-1]
        if rng.random() < 0.15 and self.host.over and head.type in ("resign", "abort", "agree") and head.signer in keys:
            self.junk.append(
                self.signed(
                    keys[head.signer],
                    "move",
                    [("game", game), ("seq", str(head.seq + 1)), ("prev", head.hash), ("move", "a1")],
                )
            )
        if rng.random() < 0.1:  # the guest joins again, with another secret
            self.junk.append(
                self.signed(
                    self.guest_key,
                    "join",
                    [
                        ("game", game),
                        ("seq", "1"),
                        ("prev", offer.hash),
                        ("terms", self.host.terms or ""),
                        ("commit", b64(bytes(rng.randrange(256) for _ in range(32)))),
                    ],
                )
            )
        if rng.random() < 0.1 and len(chain) > 2:  # the host accepts the same join again, with another salt
            self.junk.append(
                self.signed(
                    self.host_key,
                    "accept",
                    [
                        ("game", game),
                        ("seq", "2"),
                        ("prev", chain[1].hash),
                        ("guest", self.guest_key.public.text),
                        ("salt", self.token()),
                    ],
                )
            )
        chats = [line for line in map(decode, self.lines) if line.type == "chat"]
        if rng.random() < 0.3 and chats:
            line = rng.choice(chats)
            self.junk.append(
                self.signed(
                    keys[line.signer],
                    "chat",
                    [("game", game), ("seq", str(line.seq)), ("prev", line.prev), ("text", "no%20wait")],
                )
            )
        said = [line for line in map(decode, self.lines) if line.type in ("confirm", "receipt")]
        if rng.random() < 0.3 and said:
            line = rng.choice(said)
            fields = list(line.fields)
            name = "result" if line.type == "confirm" else "recv"
            value = "aborted" if line.type == "confirm" else str(int(line.value("recv")) + 1)
            self.junk.append(
                self.signed(keys[line.signer], line.type, [(key, value if key == name else old) for key, old in fields])
            )

    def claim(self) -> None:
        """The game ends on time, or is claimed: the player to move concedes, or the other claims (early, in time, and
        then closes it, or the player to move answers late and the claimant closes it over the move: a dispute)."""
        rng = self.rng
        mine, theirs = self.sides()
        if self.timed and rng.random() < 0.25:
            with contextlib.suppress(Exception):  # LocalProtocolError: nothing to concede on
                self.both(mine.timeout().line)  # a concession (refused on a first move off the clock)
            return
        remaining = theirs.claim_remaining()
        assert remaining is not None and theirs.identity is not None
        sent = self.left_at.get(theirs.identity.public.raw, self.now)
        wait = (remaining if self.timed else 7 * 86_400_000) + 1000
        early = rng.random() < 0.15
        flagged = sent + (wait // 2 if early else wait + rng.randint(0, 5000))
        if early:  # refused by every receiver (early-claim): its client would not sign it, so signed here
            began = theirs.chain[-1] if theirs.chain[-1].type in ("move", "reveal") else None
            if began is not None:
                self.lines.append(
                    self.signed(
                        theirs.identity,
                        "flag",
                        [
                            ("game", began.game),
                            ("seq", str(began.seq)),
                            ("prev", began.hash),
                            ("sent", str(sent)),
                            ("now", str(flagged)),
                        ],
                    )
                )
            return
        if self.witness is None or rng.random() < 0.5:  # (else its claim's times lie: the witness sees it early)
            self.now = max(self.now, flagged)
        self.both(theirs.flag(sent, flagged).line)
        self.claimed = True
        window = theirs.clock.base_ms // 20 if theirs.clock is not None and not theirs.clock.days else 86_400_000
        closing = (
            flagged
            + max(30_000 if self.timed and theirs.clock is not None and not theirs.clock.days else window, window)
            + rng.randint(0, 9)
        )
        if rng.random() < 0.3 and mine.board is not None and mine.board.legal_moves():  # answered late, then closed
            late = self.timed_move(mine, theirs, rng.choice(mine.board.legal_moves()).text(), receipted=False)
            self.append(late)
            mine.receive(late)
            theirs.receive(late)
            if rng.random() < 0.5:
                return
        try:
            out = theirs.timeout(closing)
        except Exception:  # LocalProtocolError: the move won the game, nothing to close over
            return
        self.now = max(self.now, closing)
        self.append(out.line)
        for session in (self.host, self.guest):
            session.receive(out.line)

    def finish(self) -> None:
        """The last lines: an illegal or non-canonical move of the player to move, or one after the end; the
        confirmations, presence, and lines of strangers and of another game."""
        rng = self.rng
        if not self.host.over and self.host.started and rng.random() < 0.2 and self.host.moves >= 3:
            mine, _theirs = self.sides()  # an undo with a consent= its waiter never signed
            head = mine.head
            assert head is not None and mine.identity is not None
            forged = self.signed(
                mine.identity,
                "takeback",
                [("game", head.game), ("seq", str(head.seq)), ("prev", head.hash), ("plies", "2")],
            )
            self.junk.append(
                self.signed(
                    mine.identity,
                    "undo",
                    [*self.chain_fields(mine), ("plies", "2"), ("consent", forged.rsplit(" sig=", 1)[1])],
                )
            )
        elif not self.host.over and self.host.started:
            mine, _ = self.sides()
            legal = sorted(move.text() for move in board_of(mine).legal_moves())
            text = rng.choice(
                [
                    legal[0].lower() if legal[0] != legal[0].lower() else legal[0].upper(),
                    "a1",
                    "zz9",
                    mine.standing()[-1].move if mine.standing() else "a1",
                ]
            )
            if text not in legal:
                self.junk.append(self.signed(identity_of(mine), "move", [*self.chain_fields(mine), ("move", text)]))
        if self.host.over:
            head = self.host.head
            assert head is not None
            quiet = self.guest if head.signer == self.host_key.public else self.host
            if rng.random() < 0.3 and head.type in ("move", "agree"):
                quiet = rng.choice([self.host, self.guest])
            if rng.random() < 0.3 and not (
                head.signer == identity_of(quiet).public and head.type in ("abort", "resign", "agree")
            ):
                self.junk.append(self.signed(identity_of(quiet), "move", [*self.chain_fields(quiet), ("move", "a1")]))
            if self.host.guest is not None and rng.random() < 0.5:
                for session in rng.sample([self.host, self.guest], rng.choice([1, 2])):
                    if session.over:
                        self.lines.append(session.ask_rematch(self.token()).line)
            for session in (self.host, self.guest):
                if (rng.random() < 0.7 and session.started) or session.guest is not None:
                    try:
                        out = session.confirm()
                    except Exception:  # a guest never seated confirms nothing (LocalProtocolError)
                        out = None
                    if out is not None:
                        self.lines.append(out.line)
        for session in (self.host, self.guest):
            if rng.random() < 0.3 and session.guest is not None:
                seq = rng.randrange(1, 4)
                self.lines.append(session.presence(True, seq).line)
                if rng.random() < 0.5:
                    self.lines.append(session.presence(False, seq).line)
        self.equivocate()
        game, offer = self.host.game_id, self.lines[0]
        assert game is not None
        stranger = self.stranger
        fields = [("game", game), ("seq", "1"), ("prev", decode(offer).hash)]
        self.junk.append(self.signed(stranger, "chat", [*fields, ("text", "hello")]))
        if self.host.guest is not None:
            self.junk.append(
                self.signed(
                    stranger,
                    "resign",
                    [
                        ("game", game),
                        ("seq", str(max(3, self.host.next_seq - 1))),
                        ("prev", self.host.chain[max(2, self.host.next_seq - 2)].hash),
                    ],
                )
            )
        other, other_offer = GameSession.offer(
            self.host.kind or "oxono", self.host_key, nonce=self.token(), at=1_790_000_000
        )
        self.other_offer = other_offer.line  # (fed first, it would make the whole feed another game's: in order only)
        self.junk.append(
            self.signed(
                stranger,
                "join",
                [
                    ("game", other.game_id or ""),
                    ("seq", "1"),
                    ("prev", decode(other_offer.line).hash),
                    ("terms", "rules:2"),
                    ("commit", b64(bytes(32))),
                ],
            )
        )
        for line in rng.sample(self.lines, min(3, len(self.lines))):
            at = rng.randrange(len(line))
            swapped = line[:at] + rng.choice("Aa0_-= ") + line[at + 1 :]
            if swapped != line:
                self.junk.append(swapped)
        self.junk.append(self.lines[-1][: rng.randrange(10, len(self.lines[-1]))])


def game_feeds(count: int, seed: int) -> list[Case]:
    """``count`` games, each fed in order with its junk, shuffled, and shuffled with duplicates."""
    cases: list[Case] = []
    for number in range(count):
        rng = random.Random(seed * 100_003 + number)
        game = Game(rng)
        if game.seat():
            game.play()
        game.finish()
        honest = list(game.lines)
        mixed = honest + game.junk
        in_order = list(honest)
        for line in [*game.junk, game.other_offer]:
            in_order.insert(rng.randrange(1, len(in_order) + 1), line)
        shuffled = list(mixed)
        rng.shuffle(shuffled)
        doubled: list[str | bytes] = [line for line in mixed for _ in range(rng.choice([1, 1, 2, 3]))]
        rng.shuffle(doubled)
        doubled = [  # now and then as MQTT bytes
            line.encode() if isinstance(line, str) and rng.random() < 0.2 else line for line in doubled
        ]
        cases.append(feed(f"game {number} in order", in_order))
        cases.append(feed(f"game {number} shuffled", shuffled))
        cases.append(feed(f"game {number} shuffled with duplicates", doubled))
        watched = [game.other_offer, *shuffled]
        cases.append(
            feed(f"game {number} shuffled, another game's offer first, its id known", watched, game.host.game_id)
        )
        record = list(game.host.record)
        cases.append(feed(f"game {number} record", record))
        if len(record) > 3:
            at = rng.randrange(1, len(record) - 1)
            swapped = [*record[:at], record[at + 1], record[at], *record[at + 2 :]]
            cases.append(feed(f"game {number} record, two lines swapped", swapped))
    return cases


def build(count: int = 150, seed: int = 1) -> dict[str, Any]:
    return {"vectors": vector_feeds(), "games": game_feeds(count, seed)}


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(build()))
