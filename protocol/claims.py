"""A timed game's clocks and claims, sans I/O: the receipts, the flag claims, the answers they time, the verdict.

Nobody's clock is trusted (``PROTOCOL.md`` §3): a move carries its mover's own
measure of its thinking, the other player's receipt measures it again, and a
claim on time is its claimant's word, which the record may contradict.
:class:`Claims` keeps each seated player's receipts and flag claims (one a line:
of two, the one with the lower hash counts, whichever came first), the lines a
claimant's timeout set aside (its answers: a move or a remark for the timeout's
place), and rules on the clock of a move (:meth:`Claims.check_move`), the wait of
a claim (:meth:`Claims.check_wait`), a timeout (:meth:`Claims.check_timeout`) and
how a claimant's timeout ends the game (:meth:`Claims.verdict`).

The chain and the seats are the receiver's (:mod:`protocol.judge`): each method is
given what it needs of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from protocol.clock import Answer, TimeControl, TimeUsed, answer_window, claim_after, dispute_bound
from protocol.domain import Code, MessageType, ResultReason
from protocol.errors import RemoteProtocolError
from protocol.events import Result
from protocol.keys import PublicKey
from protocol.messages import Message
from protocol.rules import FINAL, clocked

ANSWERS = frozenset(
    {
        MessageType.MOVE,
        MessageType.PROPOSE,
        MessageType.WITHDRAW,
        MessageType.DECLINE,
        MessageType.ABORT,
        MessageType.UNDO,
    }
)
"""The player to move's lines that a claimant's timeout may set aside: each answers the claim (a dispute); an abort
too, which ranks below the timeout (no abort escapes a valid claim)."""
MAX_EARLY = 4
"""Early claims of one key held to be judged again as its receipts grow."""


class Claims:
    """The receipts and flag claims of one game's seated players, and the answers a claimant's timeout set aside."""

    def __init__(self, clock: TimeControl | None = None) -> None:
        self.clock = clock
        """The game's time control (``None``: untimed)."""
        self.first_free = False
        """Whether each player's first move is off its clock (``rules:2``, a timed game: :meth:`check_move`), and a
        claim against a missing one aborts the game (:meth:`verdict`)."""
        self._receipts: dict[PublicKey, dict[int, Message]] = {}  # each key's receipts, by the seq they receipt
        self._flags: dict[PublicKey, dict[int, Message]] = {}  # each key's flag claims, by the turn's first line
        self._changes = 0  # receipts kept so far: what the answers were computed from
        self._displaced: dict[str, Message] = {}  # the mover's lines a claimant's timeout set aside, by hash
        self._answers: tuple[tuple[int, str, int], list[Answer]] | None = None  # the answers, and what they are of
        self._claimed: dict[tuple[PublicKey, str], dict[tuple[int | None, int | None], Message]] = {}  # by times
        self._early: dict[PublicKey, dict[str, Message]] = {}  # claims refused as early, to judge again

    # -- keeping -----------------------------------------------------------------------------------
    def keep(self, message: Message) -> bool | None:
        """Keep a checked receipt or flag claim, one a line named and signer: of two (a proof already), the one with
        the lower hash counts, whichever came first. ``True``: kept, the first of its slot; ``False``: kept in the
        place of the other; ``None``: the other stays."""
        store = self._receipts if message.type is MessageType.RECEIPT else self._flags
        mine = store.setdefault(message.signer, {})
        earlier = mine.get(message.seq)
        if earlier is not None and message.hash >= earlier.hash:
            return None
        mine[message.seq] = message
        if message.type is MessageType.RECEIPT:
            self._changes += 1
        return earlier is None

    def note_claim(self, flag: Message) -> None:
        """Keep a checked flag claim's times (every one a key signed for a turn, a few: a timeout may restate any)."""
        times = self._claimed.setdefault((flag.signer, flag.prev), {})
        if len(times) < MAX_EARLY:
            held = times.setdefault((flag.sent, flag.now), flag)
            if flag.hash < held.hash:  # (two claims with the same times: the lower hash, whichever came first)
                times[(flag.sent, flag.now)] = flag

    def claimed(self, timeout: Message, began: Message) -> bool:
        """Whether the claim a claimant's ``timeout`` closes is on record: a flag claim of its signer against the turn
        ``began`` began, with the times it restates (``sent``, ``flagged``)."""
        return self.claim_of(timeout, began) is not None

    def claim_of(self, timeout: Message, began: Message) -> Message | None:
        """The flag claim a claimant's ``timeout`` closes (:meth:`claimed`), if on record."""
        return self._claimed.get((timeout.signer, began.hash), {}).get((timeout.sent, timeout.flagged))

    def hold_early(self, claim: Message) -> None:
        """A flag claim or a claimant's timeout refused as early: held (a few a key) to be judged again when the
        claimant's receipts grow (its watch of the other's clock, :meth:`take_early`)."""
        held = self._early.setdefault(claim.signer, {})
        if len(held) < MAX_EARLY:
            held[claim.hash] = claim

    def take_early(self, key: PublicKey) -> list[Message]:
        """``key``'s claims held as early, to judge again (taken out)."""
        return list(self._early.pop(key, {}).values())

    def kept(self, kind: MessageType, key: PublicKey, seq: int) -> Message | None:
        """``key``'s receipt of the line at ``seq``, or its flag claim against the turn that line began (``kind``),
        whatever the chain holds now."""
        return (self._receipts if kind is MessageType.RECEIPT else self._flags).get(key, {}).get(seq)

    def receipts_of(self, key: PublicKey, chain: Sequence[Message]) -> dict[int, Message]:
        """``key``'s receipts of lines that are on the chain as it stands (a receipt of a line a race or a forfeit cut
        is kept, and counts again should the line come back)."""
        return _on_chain(self._receipts, key, chain)

    def flags_of(self, key: PublicKey, chain: Sequence[Message]) -> dict[int, Message]:
        """``key``'s flag claims against turns the chain holds as it stands, by the seq of the line that began each."""
        return _on_chain(self._flags, key, chain)

    def displace(self, message: Message) -> None:
        """A line of the player to move that a claimant's timeout set aside: its answer to the claim."""
        self._displaced[message.hash] = message

    def displaced(self, timeout: Message) -> list[Message]:
        """The lines of the other player that ``timeout`` set aside for its own place, in a fixed order."""
        return sorted(
            (line for line in self._displaced.values() if line.signer != timeout.signer and line.seq == timeout.seq),
            key=lambda line: (line.seq, line.hash),
        )

    # -- what the receipts show ----------------------------------------------------------------------
    def answers(
        self,
        chain: Sequence[Message],
        seated: tuple[PublicKey, PublicKey],
        player_of: Callable[[PublicKey], str | None],
        doubled: Callable[[Message], bool],
    ) -> list[Answer]:
        """Every move of a timed game as the receipts show it (:class:`protocol.clock.Answer`), in order; ``seated``:
        the host and the guest; ``doubled``: whether a receipt's signer signed two for its line (neither counts)."""
        key = (len(chain), chain[-1].hash, self._changes)
        if self._answers is not None and self._answers[0] == key:
            return list(self._answers[1])
        receipts = {seat: self.receipts_of(seat, chain) for seat in seated}
        host, guest = seated
        answers: list[Answer] = []
        answered: int | None = None  # the last line that gave a turn: the one each move answers
        for move in chain:
            if not clocked(move):
                answered = move.seq if move.type is MessageType.REVEAL else answered
                continue
            answering, answered = answered, move.seq
            player = player_of(move.signer) or ""
            think = int(move.value("think"))
            other = host if move.signer != host else guest
            theirs = receipts.get(other, {}).get(move.seq)
            if theirs is not None and doubled(theirs):
                theirs = None  # its signer signed two: neither is its word
            if theirs is None or theirs.sent is None:  # not measured: no receipt, or nothing of theirs answered
                answers.append(Answer(player, think))
                continue
            # the other's measure alone, on their clock: from sending the line this move answers to verifying it
            elapsed, ack = theirs.recv - theirs.sent, theirs.ack
            mine = receipts.get(move.signer, {}).get(answering) if answering is not None else None
            offset = None if mine is None or ack is None else mine.recv - (theirs.sent + ack) // 2
            answers.append(Answer(player, think, elapsed, None if ack is None else ack - theirs.sent, offset))
        self._answers = (key, answers)
        return list(answers)

    def statuses(self, chain: Sequence[Message], seated: Iterable[PublicKey]) -> list[tuple[Message, str]]:
        """Every flag claim on the record, in the order of the turns claimed, and how it stands: ``answered`` (the
        player to move moved), ``conceded``, ``closed`` (the claimant's timeout ended the game), ``ended`` (the game
        ended otherwise in that turn) or ``open``."""
        out = []
        for key in seated:
            for seq, flag in self.flags_of(key, chain).items():
                status = "open"
                for line in chain[seq + 1 :]:
                    if clocked(line):
                        status = "answered"
                    elif line.type is MessageType.TIMEOUT:
                        status = "closed" if line.signer == key else "conceded"
                    elif line.type in FINAL:
                        status = "ended"
                    else:
                        continue
                    break
                out.append((flag, status))
        return sorted(out, key=lambda item: (item[0].seq, item[0].hash))

    # -- the rules ----------------------------------------------------------------------------------
    def check_move(self, message: Message, remaining: int | None, first: bool = False) -> None:
        """A timed game's move carries its thinking time and the mover's clock after it, which must follow from the
        rule (:meth:`protocol.clock.TimeControl.after`; ``remaining``: the mover's clock before it; ``first``: the
        mover's first move, off its clock, :meth:`protocol.clock.TimeControl.first`); an untimed game's carries
        neither."""
        think, left = message.get("think"), message.get("left")
        assert (self.clock is None) == (remaining is None), "a timed game's clocks start with its seats"
        if self.clock is None or remaining is None:
            if think is not None or left is not None:
                raise RemoteProtocolError(Code.BAD_CLOCK, "an untimed game's moves carry no think= or left=")
            return
        if think is None or left is None:
            raise RemoteProtocolError(Code.BAD_CLOCK, f"a move of a {self.clock.text()} game carries think= and left=")
        try:
            expected = self.clock.first(int(think)) if first else self.clock.after(remaining, int(think))
        except ValueError as exc:
            raise RemoteProtocolError(Code.BAD_CLOCK, str(exc)) from None
        if int(left) != expected:
            raise RemoteProtocolError(
                Code.BAD_CLOCK, f"left={left} does not follow: after think={think} the clock shows {expected}"
            )

    def check_wait(self, sent: int | None, now: int | None, remaining: int, what: str) -> None:
        """That a claimant's times show the player to move (``remaining`` on its clock) silent for as long as a claim
        needs."""
        assert sent is not None and now is not None
        needed = claim_after(self.clock, remaining)
        if now - sent < needed:
            raise RemoteProtocolError(
                Code.EARLY_CLAIM,
                f"{what} waited {now - sent} ms by its own times, and the "
                f"player to move had {needed} ms (its clock and the grace)",
            )

    def check_timeout(self, message: Message, conceding: bool, remaining: int, first: bool = False) -> None:
        """The player to move concedes on time (``conceding``: a timed game's, carrying no times; never on a first
        move that is off the clock, ``first``); or the other closes its flag claim's answer window, restating the
        claim's times (``sent``, ``flagged``) and signing after the window."""
        times = (message.sent, message.flagged, message.now)
        if conceding:
            if self.clock is None:
                raise RemoteProtocolError(Code.WRONG_SEAT, "an untimed game has no clock to concede on: resign")
            if first:
                raise RemoteProtocolError(
                    Code.WRONG_SEAT,
                    "a first move is off the clock, with nothing to concede on "
                    "time: the first player may abort, either may resign",
                )
            if times != (None, None, None):
                raise RemoteProtocolError(Code.BAD_FIELD, "a concession on time carries no times")
            return
        sent, flagged, now = times
        if sent is None or flagged is None or now is None:
            raise RemoteProtocolError(Code.BAD_FIELD, "a claimant's timeout carries sent=, flagged= and now=")
        self.check_wait(sent, flagged, remaining, "the claim")
        window = answer_window(self.clock)
        if now - flagged < window:
            raise RemoteProtocolError(
                Code.EARLY_CLAIM,
                f"the timeout came {now - flagged} ms after the claim, within its {window} ms answer window",
            )

    def verdict(
        self,
        timeout: Message,
        claimant: str,
        other: str,
        loser: PublicKey,
        used: Callable[[], dict[str, TimeUsed]],
        *,
        witnessed: bool = False,
        first: bool = False,
    ) -> Result:
        """How a claimant's timeout ends the game, from the lines held (so the same for every receiver that holds
        them, whatever the order): a win on time (untimed, by abandonment), or a time dispute with the figures when the
        player to move's answer is on the record after all (its move, or remark, for the timeout's place, set aside by
        it: :data:`ANSWERS`), or when the claimant's own moves leave more unexplained than
        :func:`protocol.clock.dispute_bound`. ``claimant`` and ``other`` are the players' names, ``loser`` the key of
        the player to move, ``used`` each player's time so far; ``witnessed``: the game's time witnesses hold the
        claim good (a win on time, whatever came after it); ``first``: the turn claimed is the player to move's first
        move, off its clock (``rules:2``), and where the claim would have won on time the game is aborted instead
        (no result; the result names who made no first move)."""
        answers = [line for line in self.displaced(timeout) if line.signer == loser]
        assert timeout.sent is not None and timeout.flagged is not None
        waited = seconds(timeout.flagged - timeout.sent)
        if answers and not witnessed:
            answer = answers[0]
            think = answer.get("think")
            said = f" (it says it thought {seconds(int(think))})" if think is not None else ""
            what = f"move {answer.move}" if answer.type is MessageType.MOVE else str(answer.type)
            return Result(
                ResultReason.DISPUTE,
                by=timeout.signer,
                by_name=claimant,
                scored=False,
                detail=f"{claimant} claimed {other} had not moved after {waited}, and {other}'s {what} for "
                f"that place is on the record{said}",
            )
        bound = dispute_bound(self.clock)
        if bound is not None and not witnessed:
            own = used()[claimant].unexplained
            if own > bound:
                return Result(
                    ResultReason.DISPUTE,
                    by=timeout.signer,
                    by_name=claimant,
                    scored=False,
                    detail=f"{claimant} claimed {other}'s clock ran out, and {claimant}'s own moves leave "
                    f"{seconds(own)} unexplained (a claim wins with {seconds(bound)} at most)",
                )
        seen = ", as the time witnesses saw it" if witnessed else ""
        if first:
            return Result(
                ResultReason.ABORTED,
                by=timeout.signer,
                by_name=claimant,
                scored=False,
                detail=f"{other} made no first move in time{seen}",
            )
        if self.clock is None:
            return Result(
                ResultReason.ABANDONED,
                claimant,
                timeout.signer,
                timeout.signer,
                claimant,
                detail=f"{other} did not move for {waited}{seen}",
            )
        return Result(
            ResultReason.TIME,
            claimant,
            timeout.signer,
            timeout.signer,
            claimant,
            detail=f"{other}'s clock ran out and the claim went unanswered{seen}",
        )


def seconds(ms: int) -> str:
    """A duration as a result's figures give it: ``62.0 s``, ``3 h 10 min``."""
    if ms < 3_600_000:
        return f"{ms / 1000:.1f} s"
    hours, minutes = divmod(ms // 60_000, 60)
    return f"{hours} h {minutes} min" if hours < 48 else f"{hours // 24} days {hours % 24} h"


def _on_chain(
    store: dict[PublicKey, dict[int, Message]], key: PublicKey, chain: Sequence[Message]
) -> dict[int, Message]:
    """``key``'s lines in ``store`` (receipts, flag claims) that name a line the chain holds as it stands."""
    return {seq: line for seq, line in store.get(key, {}).items() if seq < len(chain) and chain[seq].hash == line.prev}
