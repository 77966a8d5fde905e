"""A seeded generator of one game's signed lines, with a cast that cheats while the seats are taken.

:func:`seating_game` makes, from a seed, every line a relay might hold for one game: the honest play (the host's
offer, the join it accepted, its accept, the reveal, a short random game with chat and confirmations), signed by
:class:`protocol.GameSession` as real clients sign, and around it the cheats, crafted with
:func:`protocol.messages.encode` where a session refuses to sign a second, conflicting line:

- the host: a second (or third) accept for another join, its salt ground so that either accept has the lower hash;
  an abort at seq 1 after accepting (a withdrawal); a claim at seq 3; and, after a game it did not win, a re-seat: a
  join by a puppet key of its own and an accept of it ground below every other accept of its, perhaps a puppet
  reveal, perhaps a puppet abort for the same slot;
- the candidate guests: a second join (another commit), a reveal or an abort at 3 on an accept the host did not
  play, a second line for seq 3, chat before the seat, confirmations while unseated;
- strangers: joins (twice), chat, presence.

What the cast did is said in words (:attr:`SeatingGame.cheats`), for a failing test to print.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from protocol import GameSession, Identity, PublicKey, decode, encode
from protocol.keys import b64
from protocol.messages import encode_text

AT = 1_790_000_000


@dataclass(frozen=True)
class SeatingGame:
    """One generated game: every line signed, in the order it was signed, and what the cast did."""

    seed: int
    kind: str
    lines: tuple[str, ...]
    cheats: tuple[str, ...]
    """What the cast did beyond honest play (and the honest host's claim, the guest's walk-out), in words."""
    names: dict[str, str]
    """Each key of the cast (its base64url text) and its name: ``host``, ``guest-a``, ``stranger-b``, ``puppet``."""
    host: PublicKey
    guest: PublicKey
    """The guest of the accept the host played (the one its own client applied)."""
    before_reseat: tuple[str, ...] | None = None
    """The lines signed before the host re-seated a puppet after the end (``None``: it did not)."""
    puppet: PublicKey | None = None

    def name(self, key: PublicKey) -> str:
        return self.names.get(key.text, key.fingerprint)

    def describe(self) -> str:
        """The seed, the game and the cast's cheats, for a failure message."""
        return f"seed {self.seed} ({self.kind}, {len(self.lines)} lines), cheats: {'; '.join(self.cheats) or 'none'}"


@dataclass(frozen=True)
class Join:
    """A candidate's join, and the secret its commit hides."""

    key: Identity
    secret: str
    line: str

    @property
    def hash(self) -> str:
        return decode(self.line, verify=False).hash


@dataclass
class Cast:
    """Who signs what while a game is made: the lines so far, each key's chat chain, the cheats in words.

    ``cheating`` off, :meth:`dares` is always ``False``: the same generator makes honest games. Tests that build
    their lines by hand use its methods (each returns the line it signed) and pick the lines and orders they need.
    """

    rng: random.Random
    cheating: bool
    game: str = ""
    offer_hash: str = ""
    lines: list[str] = field(default_factory=list)
    cheats: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    chats: dict[str, tuple[int, str]] = field(default_factory=dict)
    confirms: dict[str, int] = field(default_factory=dict)

    def open(self, kind: str, host: Identity) -> GameSession:
        """The host's session, its offer signed (the first line)."""
        session, offer = GameSession.offer(kind, host, nonce=b64(self.rng.randbytes(16)), at=AT)
        self.game, self.offer_hash = session.game_id or "", offer.message.hash
        self.add(offer.line)
        return session

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def dares(self, p: float, words: str) -> bool:
        """Whether the cast cheats this way, with probability ``p`` (and says so)."""
        if self.cheating and self.rng.random() < p:
            self.cheats.append(words)
            return True
        return False

    def identity(self, name: str) -> Identity:
        key = Identity.from_seed(self.rng.randbytes(32))
        self.names[key.public.text] = name
        return key

    def name(self, key: Identity) -> str:
        return self.names[key.public.text]

    def add(self, line: str) -> str:
        self.lines.append(line)
        return line

    def sign(self, kind: str, fields: list[tuple[str, str]], key: Identity) -> str:
        return self.add(encode(kind, fields, key))

    def chat(self, key: Identity) -> str:
        """The next line of ``key``'s own chat chain."""
        number, head = self.chats.get(key.public.text, (0, self.offer_hash))
        text = encode_text(f"{self.name(key)} says {number + 1}")
        line = self.sign("chat", [("game", self.game), ("seq", str(number + 1)), ("prev", head), ("text", text)], key)
        self.chats[key.public.text] = (number + 1, decode(line, verify=False).hash)
        return line

    def presence(self, key: Identity) -> str:
        return self.sign("presence", [("game", self.game), ("seq", "1"), ("state", "here")], key)

    def join(self, key: Identity, *, publish: bool = True) -> Join:
        """A join as a client signs it, with a fresh secret (a key's second join is a second client's); among the
        lines unless ``publish`` is off."""
        secret = b64(self.rng.randbytes(16))
        candidate = GameSession(self.game, key)
        candidate.receive(self.lines[0])
        line = candidate.join(secret).line
        return Join(key, secret, self.add(line) if publish else line)

    def accept(self, host: Identity, join: Join, below: str | None = None, above: str | None = None) -> str:
        """The host's accept of ``join``, its salt ground until its hash is below ``below`` (or above ``above``)."""
        line = self.grind(host, join, below, above)
        if line is None:
            raise RuntimeError(f"no salt puts an accept's hash between {above} and {below}")
        return line

    def grind(
        self, host: Identity, join: Join, below: str | None = None, above: str | None = None, tries: int = 4096
    ) -> str | None:
        """:meth:`accept`, or ``None`` when no salt of ``tries`` does it (a bound near either end of the alphabet):
        then nothing is signed."""
        for _ in range(tries):
            fields = [
                ("game", self.game),
                ("seq", "2"),
                ("prev", join.hash),
                ("guest", join.key.public.text),
                ("salt", b64(self.rng.randbytes(16))),
            ]
            line = encode("accept", fields, host)
            digest = decode(line, verify=False).hash
            if (below is None or digest < below) and (above is None or digest > above):
                return self.add(line)
        return None

    def after(self, kind: str, key: Identity, parent: str, *extra: tuple[str, str]) -> str:
        """A main-chain line of ``kind`` by ``key`` right after ``parent`` (a line): an abort at 1 after the offer
        (a withdrawal), a reveal (``("secret", …)``) or an abort at 3 after an accept."""
        message = decode(parent, verify=False)
        return self.sign(
            kind, [("game", self.game), ("seq", str(message.seq + 1)), ("prev", message.hash), *extra], key
        )

    def confirm(self, key: Identity, head: str, result: str) -> str:
        """A confirmation of the ending at ``head`` (a line), as ``key`` would sign it whoever it is."""
        message = decode(head, verify=False)
        number = self.confirms.get(key.public.text, 0) + 1
        self.confirms[key.public.text] = number
        return self.sign(
            "confirm",
            [
                ("game", self.game),
                ("seq", str(number)),
                ("prev", message.hash),
                ("final", str(message.seq)),
                ("result", result),
            ],
            key,
        )


def seating_game(seed: int, *, cheating: bool = True) -> SeatingGame:
    """The lines of one game from ``seed``: honest play on the seating the host played, and (``cheating``) the
    cast's cheats around it."""
    rng = random.Random(seed)
    cast = Cast(rng, cheating)
    kind = rng.choice(("oxono", "olix"))
    host_key = cast.identity("host")
    guests = [cast.identity(f"guest-{letter}") for letter in "ab"[: rng.choice((1, 2, 2))]]
    strangers = [cast.identity(f"stranger-{letter}") for letter in "ab"[: rng.choice((0, 1, 1, 2))]]
    host = cast.open(kind, host_key)

    joins, stranger_joins = _candidates(cast, guests, strangers)
    played = rng.choice(joins)
    host.receive(played.line)
    accept = cast.add(host.accept(played.key.public, b64(rng.randbytes(16))).line)
    accepts = [accept, *_more_accepts(cast, host_key, played, accept, [*joins, *stranger_joins])]
    if cast.dares(0.15, "host withdraws (abort at 1) after accepting"):
        cast.after("abort", host_key, cast.lines[0])
    guest = _seat(cast, host, played, accept)
    _play(cast, host, guest)
    _confirm(cast, host, guest, [*joins, *stranger_joins], accepts)
    before = tuple(cast.lines)
    puppet = _reseat(cast, host, host_key, accepts)
    return SeatingGame(
        seed,
        kind,
        tuple(cast.lines),
        tuple(cast.cheats),
        dict(cast.names),
        host_key.public,
        played.key.public,
        before if puppet is not None else None,
        puppet,
    )


def _candidates(cast: Cast, guests: list[Identity], strangers: list[Identity]) -> tuple[list[Join], list[Join]]:
    """The guests' joins (some twice), chat and presence before any seat; the strangers' likewise."""
    joins: list[Join] = []
    for guest in guests:
        joins.append(cast.join(guest))
        if cast.dares(0.25, f"{cast.name(guest)} joins twice"):
            joins.append(cast.join(guest))
        if cast.dares(0.3, f"{cast.name(guest)} chats before its seat"):
            cast.chat(guest)
        if cast.chance(0.2):
            cast.presence(guest)
    stranger_joins = []
    for stranger in strangers:
        stranger_joins.append(cast.join(stranger))
        if cast.dares(0.4, f"{cast.name(stranger)} joins twice"):
            stranger_joins.append(cast.join(stranger))
        if cast.chance(0.5):
            cast.chat(stranger)
        if cast.chance(0.5):
            cast.presence(stranger)
    return joins, stranger_joins


def _more_accepts(cast: Cast, host: Identity, played: Join, accept: str, joins: list[Join]) -> list[str]:
    """The host's accepts of other joins than the one it played (each ground below or above the played accept's
    hash), and what the guests they name do: reveal on them, walk away too, chat."""
    others = [join for join in joins if join.line != played.line]
    played_hash = decode(accept, verify=False).hash
    accepts = []
    for _ in range(cast.rng.choice((0, 0, 1, 1, 2)) if others and cast.cheating else 0):
        join = cast.rng.choice(others)
        lower = cast.rng.random() < 0.5
        extra = cast.grind(
            host, join, below=played_hash if lower else None, above=None if lower else played_hash
        ) or cast.accept(host, join, below=None if lower else played_hash, above=played_hash if lower else None)
        lower = decode(extra, verify=False).hash < played_hash
        cast.cheats.append(
            f"host also accepts {cast.name(join.key)}'s join ({'lower' if lower else 'higher'} hash "
            "than the played accept)"
        )
        accepts.append(extra)
        if join.key.public == played.key.public:
            continue
        name = cast.name(join.key)
        if cast.dares(0.4, f"{name} reveals on the host's other accept"):
            cast.after("reveal", join.key, extra, ("secret", join.secret))
            if cast.dares(0.4, f"{name} also aborts at 3"):
                cast.after("abort", join.key, extra)
        if cast.dares(0.3, f"{name} chats as a guest the host's other accept names"):
            cast.chat(join.key)
    return accepts


def _seat(cast: Cast, host: GameSession, played: Join, accept: str) -> GameSession:
    """The played guest's session: it reveals (perhaps over the host's claim), walks away, or stays silent while the
    host claims; it may also sign an abort for 3 beside its reveal."""
    guest = GameSession(cast.game, played.key)
    guest.receive(cast.lines[0])
    guest.join(played.secret)
    guest.receive(accept)
    name = cast.name(played.key)
    choice = cast.rng.random()
    if choice >= 0.9 or cast.chance(0.2):
        claim = cast.add(host.claim().line)
        cast.cheats.append("host claims at 3" + (" (the guest is silent)" if choice >= 0.9 else ""))
        guest.receive(claim)
    if choice < 0.8:
        if guest.phase.value == "accepted":
            reveal = cast.add(guest.reveal().line)
        else:  # the claim came first: its client reveals all the same, which stands over it
            reveal = cast.after("reveal", played.key, accept, ("secret", played.secret))
            guest.receive(reveal)
        host.receive(reveal)
        if cast.dares(0.15, f"{name} also aborts at 3"):
            cast.after("abort", played.key, accept)
    elif choice < 0.9:
        cast.cheats.append(f"{name} walks away (abort at 3)")
        cast.after("abort", played.key, accept)
    if cast.chance(0.3):
        cast.chat(played.key)
    return guest


def _play(cast: Cast, host: GameSession, guest: GameSession) -> None:
    """Random legal moves on the played seating, with chat between; then, often, one player resigns."""
    if not host.started or host.over:
        return
    rng = cast.rng
    sessions = (host, guest)
    keys = {session: session.identity for session in sessions}
    for _ in range(rng.randrange(0, 30)):
        if host.over:
            return
        mine = host if host.actor == host.host else guest
        theirs = guest if mine is host else host
        if rng.random() < 0.1:
            chatter = keys[rng.choice(sessions)]
            assert chatter is not None
            cast.chat(chatter)
        board = mine.board
        assert board is not None
        out = mine.move(rng.choice(board.legal_moves()).text())
        theirs.receive(out.line)
        cast.add(out.line)
    if not host.over and rng.random() < 0.6:
        loser = rng.choice(sessions)
        out = loser.resign()
        (guest if loser is host else host).receive(out.line)
        cast.add(out.line)


def _confirm(cast: Cast, host: GameSession, guest: GameSession, joins: list[Join], accepts: list[str]) -> None:
    """The players confirm the ending and chat on; guests the host's other accepts name confirm it too, unseated;
    the played guest may sign an abort for 3 after the game (a loser re-signing its slot)."""
    if not host.over or host.result is None or host.head is None:
        return
    for session in (host, guest):
        out = session.confirm()
        if out is not None:
            cast.add(out.line)
        identity = session.identity
        if cast.chance(0.3) and identity is not None:
            cast.chat(identity)
    named = {decode(line, verify=False).peer for line in accepts[1:]} - {guest.guest}
    for join in joins:
        if join.key.public in named and cast.dares(0.3, f"{cast.name(join.key)} confirms the ending, unseated"):
            named.discard(join.key.public)
            cast.confirm(join.key, host.head.line, host.result.code())
    guest_key = guest.identity
    if (
        len(host.chain) > 3
        and guest_key is not None
        and cast.dares(0.1, f"{cast.name(guest_key)} signs an abort for 3 after the game")
    ):
        cast.after("abort", guest_key, accepts[0])


def _reseat(cast: Cast, host: GameSession, host_key: Identity, accepts: list[str]) -> PublicKey | None:
    """After the end, a host that did not win seats a puppet of its own: the puppet's join, an accept of it ground
    below every other accept of the host's, perhaps a puppet reveal, perhaps a puppet abort for the same slot."""
    result = host.result
    if not host.over or result is None:
        return None
    lost = result.winner_key is not None and result.winner_key != host_key.public
    if not cast.dares(0.7 if lost else 0.2, "after the end, the host accepts its puppet's join (lowest hash)"):
        return None
    puppet_key = cast.identity("puppet")
    puppet = cast.join(puppet_key, publish=False)
    lowest = min(decode(line, verify=False).hash for line in accepts)
    accept = cast.grind(host_key, puppet, below=lowest)
    if accept is None:  # the real accept's hash is too low to grind below: no re-seat after all
        cast.cheats.pop()
        return None
    cast.lines.insert(-1, puppet.line)
    if cast.dares(0.6, "the puppet reveals"):
        cast.after("reveal", puppet_key, accept, ("secret", puppet.secret))
        if cast.dares(0.5, "the puppet also aborts at 3"):
            cast.after("abort", puppet_key, accept)
    elif cast.dares(0.3, "the puppet aborts at 3"):
        cast.after("abort", puppet_key, accept)
    return puppet_key.public
