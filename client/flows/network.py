"""The network commands: ``olixono host``, ``join``, ``watch``, ``resume``, ``games``, ``export`` and ``witness``
(and the time witness that ``olixono relay --witness`` runs beside the relay).

Each finds the relay (``--relay``, else ``OLIXONO_RELAY``, else
``mqtt://127.0.0.1:1883``; ``host`` starts the embedded relay in its own
process when nothing answers at that default), builds a :class:`GameCore` with
its journal, and runs it under a :class:`GameRunner` with the chosen front
end: the full-screen console, the line console, ``--plain``, or a ``--bot``.
Every failure the person can act on is one sentence and exit status 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import shlex
import sys
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from client.cores.intents import IntentRefused
from client.cores.network_game import GameCore, NextGame
from client.cores.relays import PUBLIC, PUBLIC_BROKERS, START_ONE, distinct_relays, expand, label, named, public_urls
from client.frontends.plain import bot_front, plain_front, stdout_writer
from client.shell.identity import IdentityError, config_dir, get_identity
from client.shell.journal import (
    LOCAL,
    Damage,
    Journal,
    JournalError,
    JournalMeta,
    check_game_id,
    journals,
    repaired,
    state_dir,
)
from client.shell.links import Links
from client.shell.runner import FrontEnd, GameRunner
from client.shell.settings import SettingsError, load_settings, settings_path
from client.shell.transport import (
    Link,
    LinkFactory,
    RelayAddress,
    RelayError,
    RelayLoginRefused,
    RelayNeedsLogin,
    account_text,
    reach,
    try_login,
)
from client.shell.witness import MOST_GAMES, TimeWitness, WitnessBusy, hold, witness_folder, witness_lock
from client.words.board import resume_text
from client.words.commands import Write
from client.words.network import (
    HOST_RAN_RELAY_LATER,
    claim_text,
    clocks_now_text,
    control_text,
    control_words,
    witness_words,
)
from client.words.record import PROVEN, code_text, confirmation_text, moves_text, open_claim_text, proof_text
from olixono.bots import Bot, bot_for
from protocol import GameSession, Identity, MessageType, Phase, PublicKey, ResyncNeeded, Role, game_filter, lobby_filter
from protocol.clock import TimeControl
from protocol.messages import decode
from protocol.rules import MAX_CONFIRMS, witness_term
from protocol.topics import DEFAULT_RELAY, PAGE_TOPIC, slot_filter

if TYPE_CHECKING:
    from relay.cli import Beside
    from relay.embedded import EmbeddedRelay, RelaySettings

PASSWORD_VARIABLE = "OLIXONO_RELAY_PASSWORD"
RELAY_VARIABLE = "OLIXONO_RELAY"
PUBLIC_VARIABLE = "OLIXONO_PUBLIC_RELAYS"
"""What ``--relay public`` stands for, when set (URLs apart by spaces): instead of olixono's own list of brokers."""
OFFER_WAIT = 10.0
"""Seconds ``join`` and ``watch`` wait for a game's offer before saying there is no such game."""


class Failure(Exception):
    """A command cannot go on; the message is the sentence to print (exit status 1)."""


class NeedsPassword(Failure):
    """The relay wants an account and no password was given: found before anything was made or signed, so that the
    command line can ask for it (hidden, outside the event loop) and run the command again. ``account`` is the account
    in words (:func:`client.shell.transport.account_text`: your key's by its fingerprint, or one the URL names)."""

    def __init__(self, message: str, account: str) -> None:
        super().__init__(message)
        self.account = account


class PasswordRefused(NeedsPassword):
    """The relay refused the password given: the command line asks again when a person typed it."""


@dataclass
class Options:
    """What the network commands share (the command line's options)."""

    relay: str | None = None
    cafile: Path | None = None
    timeout: float | None = None
    plain: bool = False
    bot: str | None = None
    iterations: int | None = None
    seconds: float | None = None
    seed: int | None = None
    invite: str | None = None
    control: TimeControl | None = None
    """``host``: the game's time control (``--clock``, ``--days``; none: untimed)."""
    witnesses: list[str] = field(default_factory=list)
    """``host``: the keys of the game's time witnesses (``--witness``, none to three)."""
    auto_claim: bool = False
    """``--claim auto``: claims on time are signed for the player as soon as they may be (:meth:`GameCore.tick`)."""
    watchers_chat: bool = True
    """A player's: whether the watchers' talk is shown from the start (``--no-watchers-chat``: hidden)."""
    journal_dir: Path | None = None
    write: Write = field(default_factory=stdout_writer)
    commands: TextIO | None = None
    """Where a ``--plain`` player's or watcher's commands come from (stdin)."""
    console: Callable[[GameRunner], Any] | None = None
    """A front end to use instead of the line console (tests pass one built on pipe input)."""
    screen: bool = False
    """The full-screen console instead of the line console."""
    bell: bool = False
    """The consoles ring the terminal's bell when the turn becomes the player's, or a claim is made against them
    (:mod:`client.words.bell`; on unless ``--no-bell`` or ``NO_BELL``)."""
    notes: list[str] = field(default_factory=list)
    """What was said before the front end started (the join command, the host's fingerprint): the full-screen
    console shows it again in its log, since it takes the whole terminal."""

    def say(self, text: str) -> None:
        """Tell the person, and keep it for a front end that starts later."""
        self.write(text)
        self.notes.append(text)

    warn: Write = field(default_factory=lambda: stdout_writer(sys.stderr))
    """Where what is said beside a command's output goes (``export`` writes the record on stdout)."""
    invitation: str | None = None
    """What a host's opponent types to join (the full screen shows it whole until someone does)."""
    page: str | None = None
    """The watching page's address, where the relay serves it (``http://127.0.0.1:PORT/``)."""
    all_games: bool = False
    """``games``: every game on the relay, not only the open offers."""
    anyway: bool = False
    """``export``: exit 0 even when the record holds a proof of equivocation."""
    check: bool = False
    """``relays``: ask each relay whether it takes a session, and say what each answered."""
    public: bool = False
    """``relays``: the public brokers ``--relay public`` names, with what their operators say of them."""
    environ: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    identity: Identity | None = None
    """The player's identity (default: the one in the config folder, ``olixono id``)."""


# -- the relay ---------------------------------------------------------------------------------
def relay_choice(options: Options) -> tuple[list[str], str]:
    """The relays named (``public`` expanded) and where they were named: ``--relay`` (once or more), else
    ``OLIXONO_RELAY`` (URLs apart by spaces), else the settings file's ``relays``, else the default (``default``)."""
    if options.relay:
        text, source = options.relay, "--relay"
    elif options.environ.get(RELAY_VARIABLE):
        text, source = options.environ[RELAY_VARIABLE], RELAY_VARIABLE
    else:
        try:
            settings = load_settings(options.environ)
        except SettingsError as exc:
            raise Failure(str(exc)) from None
        if not settings.relays:
            return [DEFAULT_RELAY], "default"
        return expand(settings.relays, _public(options)), str(settings.path)
    return expand(text.split(), _public(options)), source


def _public(options: Options) -> list[str]:
    """What ``public`` stands for: ``OLIXONO_PUBLIC_RELAYS``, else olixono's list (:data:`PUBLIC_BROKERS`)."""
    return public_urls(options.environ.get(PUBLIC_VARIABLE, "").split())


def relay_addresses(options: Options) -> tuple[list[RelayAddress], bool]:
    """The relays to use (:func:`relay_choice`), and whether it is the default."""
    urls, source = relay_choice(options)
    try:
        return [RelayAddress.parse(url) for url in distinct_relays(urls)], source == "default"
    except ValueError as exc:
        raise Failure(f"{exc} (from {source})" if source != "--relay" else str(exc)) from None


def relay_address(options: Options) -> tuple[RelayAddress, bool]:
    """The relay to use (the first, when several are named), and whether it is the default."""
    addresses, default = relay_addresses(options)
    return addresses[0], default


def played_at(options: Options, address: RelayAddress) -> str:
    """What a journal keeps of where its game is played (``resume`` goes back there): the relay, or every relay, apart
    by spaces."""
    addresses, _ = relay_addresses(options)
    return " ".join(one.url for one in addresses) if len(addresses) > 1 else address.url


def relays_text(addresses: list[RelayAddress]) -> str:
    """``mqtt://a:1883``, or ``mqtt://a:1883 and mqtt://b:1883``: where a command looks."""
    urls = [address.url for address in addresses]
    return urls[0] if len(urls) == 1 else ", ".join(urls[:-1]) + f" and {urls[-1]}"


def join_command(
    game: str,
    address: RelayAddress | list[RelayAddress],
    default: bool,
    public: list[str] | None = None,
    cafile: Path | None = None,
) -> str:
    """What the opponent types to join: every relay the game is on (``public`` for the public brokers), and the
    relay's CA when it was given (``--cafile``, as this machine names it)."""
    addresses = address if isinstance(address, list) else [address]
    return f"olixono join {game}{reach_words(addresses, default, public, cafile)}"


def reach_words(
    addresses: list[RelayAddress], default: bool, public: list[str] | None = None, cafile: Path | None = None
) -> str:
    """The options a pasted command needs to reach the same relays: ``--relay`` for each (none for the default;
    ``public`` for the public brokers), and ``--cafile`` when one was given."""
    words = [] if default else named([one.url for one in addresses], [_normal(url) for url in public or public_urls()])
    relays = "".join(f" --relay {shlex.quote(word)}" for word in words)
    return relays + ("" if cafile is None else f" --cafile {shlex.quote(str(cafile))}")


def relay_words(options: Options) -> str:
    """:func:`reach_words` for the relays this command uses (:func:`relay_addresses`) and its ``--cafile``."""
    addresses, default = relay_addresses(options)
    return reach_words(addresses, default, _public(options), options.cafile)


def _normal(url: str) -> str:
    """``url`` as :attr:`RelayAddress.url` writes it (its port written out), or as it is when it names no relay."""
    try:
        return RelayAddress.parse(url).url
    except ValueError:
        return url


@contextlib.asynccontextmanager
async def relay_for_host(
    options: Options, *, may_start: bool | None = None, host_ran: str | None = None
) -> AsyncIterator[tuple[RelayAddress, bool]]:
    """The relay a host plays through, and whether this process runs it: the one named, or at the default address, or
    one started here (when nothing answers there and ``may_start``: by default, when no relay was named). ``host_ran``:
    the game's id, where a guest knows that the relay ran in the host's program (nothing answering is said so)."""
    addresses, default = relay_addresses(options)
    address = addresses[0]
    problem = await reach(address)
    if problem is None or len(addresses) > 1:  # several: those that answer carry the game, the others join later
        yield address, False
        return
    if not (default if may_start is None else may_start) or address.tls:
        if host_ran is not None:
            raise Failure(f"{str(problem).removesuffix(START_ONE)}: {HOST_RAN_RELAY_LATER.format(game=host_ran)}")
        raise Failure(str(problem))  # before a game is made and journaled that could never be published
    from relay import page
    from relay.embedded import EmbeddedRelay, RelaySettings, quiet_amqtt

    quiet_amqtt()
    logging.getLogger("amqtt").setLevel(logging.ERROR)  # its shutdown warnings would land on the person's terminal
    web = 0 if page.ready(page.page_root()) else None  # the watching page, on a port of its own, where it is installed
    embedded = EmbeddedRelay(RelaySettings(host=address.host, port=address.port, web_port=web))
    try:
        await embedded.start()
    except OSError as exc:
        raise Failure(
            f"nothing answers at {address.host}:{address.port} and no relay could start there: {exc.strerror}"
        ) from None
    options.say(
        f"No relay answered at {address}, so this process runs one there (the embedded relay). "
        "The game ends for everybody when this process does."
    )
    options.page = embedded.web_url
    try:
        yield address, True
    finally:
        await embedded.stop()


def credentials(options: Options, address: RelayAddress, identity: Identity | None) -> tuple[str | None, str | None]:
    """(user name, password) for the relay: the account is the player's key; the password from the environment."""
    password = options.environ.get(PASSWORD_VARIABLE)
    user = address.user or (identity.public.text if identity is not None and password else None)
    return user, password


def make_link(options: Options, address: RelayAddress, identity: Identity | None) -> LinkFactory:
    """What makes the link to the relay (``address``), or to every relay the command names when it names several
    (:class:`client.shell.links.Links`: one game over all of them), given its callbacks (a runner's, or
    :func:`_collect`'s)."""
    addresses, _ = relay_addresses(options)
    factories = []
    for one in addresses if len(addresses) > 1 else [address]:
        user, password = credentials(options, one, identity)
        factories.append(
            functools.partial(
                Link, one, username=user, password=password, cafile=options.cafile, give_up=options.timeout
            )
        )
    if len(factories) == 1:
        return factories[0]
    # a Links offers every name of a Link the runner and the commands use (client/shell/links.py): it stands in for one
    return cast(LinkFactory, functools.partial(Links, factories))


def cancelled_meanwhile() -> None:
    """Raise the cancellation (a Ctrl-C) that an await swallowed: on Python 3.11 ``asyncio.wait_for``, and aiomqtt's
    connecting and leaving with it, lose one that comes as their work completes (CPython gh-86296), though the task
    still counts it as asked for; the command would otherwise go on as if nothing had been typed."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


async def log_in(options: Options, address: RelayAddress, identity: Identity | None) -> None:
    """Before anything is made or signed: whether the relay takes this account (or none). :class:`NeedsPassword`
    when it wants a password nobody gave (the URL naming the account or not), :class:`PasswordRefused` when it refuses
    the one given, :class:`Failure` when it refuses the session otherwise; a relay that does not answer
    is left to the link (it reconnects, and ``--timeout`` gives up). With several relays, each is asked: one that
    refuses the login is a failure, one that does not answer is not, as long as one does."""
    addresses, _ = relay_addresses(options)
    several = len(addresses) > 1
    asked = addresses if several else [address]
    problems = await asyncio.gather(
        *(try_login(one, *credentials(options, one, identity), options.cafile) for one in asked)
    )  # all at once: a relay that stalls delays nobody
    cancelled_meanwhile()
    for one, problem in zip(asked, problems, strict=True):
        user = credentials(options, one, identity)[0] or (identity.public.text if identity is not None else None)
        if problem is None or user is None:
            continue
        if isinstance(problem, RelayNeedsLogin) and options.environ.get(PASSWORD_VARIABLE) is None:
            raise NeedsPassword(str(problem), account_text(user))
        if isinstance(problem, RelayLoginRefused):
            raise PasswordRefused(str(problem), account_text(user))
    failed = [str(problem) for problem in problems if problem is not None]
    if not several and failed:
        raise Failure(failed[0])
    if len(failed) == len(asked):  # several, and not one takes us: what each said
        raise Failure("no relay takes this game: " + "; ".join(failed))
    for unanswered in failed:  # the game goes through the others; this one's link keeps trying (and says so)
        options.warn(f"warning: {unanswered}; playing through the other relays meanwhile")


async def run_game(runner: GameRunner, front: FrontEnd) -> int:
    """Run a game: the relay's failures are one sentence. Its seat is let go as it ends (the journal's lock), not
    whenever the journal happens to be collected: another process may take the game up at once."""
    try:
        return await runner.run(front)
    except RelayError as error:
        raise Failure(str(error)) from None
    finally:
        if runner.journal is not None:
            runner.journal.close()


MOST_REMATCHES = 100
"""Rematches one command plays on, one after the other."""


async def play_on(runner: GameRunner, front: FrontEnd, options: Options, address: RelayAddress) -> int:
    """A player's game, then each rematch both players agree to once it is over (:attr:`GameCore.next_game`), in the
    same terminal: the rematch's host publishes its offer and seats the other, who joins it once it has checked the
    offer (its host, the invitation, the kind and the terms, colours swapped). The last game's exit status."""
    runner.core.watchers_shown = options.watchers_chat
    status = await run_game(runner, front)
    for _ in range(MOST_REMATCHES):
        nxt = runner.core.next_game
        if nxt is None:
            break
        identity = load_identity(options)
        options.invitation, options.notes = None, []
        if nxt.hosting is not None:
            core, _ = nxt.hosting
            journal = _seat(
                Journal.create(
                    JournalMeta(
                        nxt.game,
                        nxt.kind,
                        Role.HOST,
                        identity.public.text,
                        played_at(options, address),
                        cafile=_cafile(options),
                    ),
                    options.journal_dir,
                )
            )
            options.say(f"Rematch: hosting {nxt.kind} game {nxt.game}, for your opponent alone (colours swapped).")
            runner = GameRunner(core, make_link(options, address, identity))
            runner.attach(journal)
            front = front_end(options, True)
        else:
            options.say(
                f"Rematch: joining {nxt.kind} game {nxt.game}, hosted by {nxt.host.fingerprint} (colours swapped)."
            )
            core = GameCore(GameSession(nxt.game, identity), auto_claim=options.auto_claim)
            runner = GameRunner(core, make_link(options, address, identity))
            front = joining(options, identity, address, expected=nxt)
        runner.core.watchers_shown = options.watchers_chat
        status = await run_game(runner, front)
    return status


# -- front ends ----------------------------------------------------------------------------------
def seat_bot(options: Options) -> Bot | None:
    """The bot that holds the seat (``--bot``, or ``--level``: any name :func:`olixono.bots.bot_for` knows, as
    ``olixono play`` takes it), or ``None``. A seat command builds it before anything is published or journaled, so
    that a budget the bot takes none of is one sentence and leaves no game behind."""
    if options.bot is None:
        return None
    try:
        return bot_for(options.bot, seed=options.seed, iterations=options.iterations, seconds=options.seconds)
    except ValueError as exc:
        raise Failure(str(exc)) from None


def front_end(options: Options, player: bool, bot: Bot | None = None) -> FrontEnd:
    """The seat's front end: ``bot`` (else :func:`seat_bot`'s) where one holds a player's seat, else ``--plain``, a
    console a test gives, the full screen or the line console."""
    if options.bot is not None and player:
        chosen = bot if bot is not None else seat_bot(options)
        assert chosen is not None  # options.bot names one
        return bot_front(chosen, options.write)
    if options.plain:
        return plain_front(options.write, options.commands)
    if options.console is not None:
        return options.console
    if options.screen:
        from client.frontends.network_screen import game_screen

        return game_screen(notes=options.notes, invitation=options.invitation, bell=options.bell)
    from client.frontends.console import line_console

    return line_console(bell=options.bell)


def load_identity(options: Options) -> Identity:
    if options.identity is not None:
        return options.identity
    try:
        return get_identity()[0]
    except (IdentityError, OSError) as exc:
        raise Failure(f"your identity cannot be used: {exc}") from None


def account_identity(options: Options) -> Identity | None:
    """The identity to log in to a private relay with, when only watching (none is fine on an open relay)."""
    with contextlib.suppress(Failure):
        return load_identity(options)
    return None


def witness_keys(texts: list[str]) -> list[PublicKey]:
    """The time witnesses ``--witness`` names; :class:`Failure` for a key that is none, or too many."""
    try:
        keys = [PublicKey.from_text(text) for text in texts]
        if keys:
            witness_term(keys)
    except ValueError as exc:
        raise Failure(f"--witness needs a time witness's public key, as `olixono witness` prints it: {exc}") from None
    return keys


def invite_key(text: str | None) -> PublicKey | None:
    if text is None:
        return None
    try:
        return PublicKey.from_text(text)
    except ValueError as exc:
        raise Failure(f"--invite needs the invited player's public key, as `olixono id` prints it: {exc}") from None


# -- host ------------------------------------------------------------------------------------------
async def host(kind: str, options: Options) -> int:
    identity = load_identity(options)
    invite = invite_key(options.invite)
    witnesses = witness_keys(options.witnesses)
    bot = seat_bot(options)  # every option checked before a relay starts or a game is made
    async with relay_for_host(options) as (address, ran_relay):
        addresses, default = relay_addresses(options)
        await log_in(options, address, identity)  # before a game is made that could never be published
        core, _ = GameCore.hosting(
            kind,
            identity,
            invite=invite,
            control=options.control,  # published on connecting
            witnesses=witnesses,
        )
        core.auto_claim = options.auto_claim
        core.host_relay = ran_relay  # said in our presence: the guest learns the relay ends with this process
        game = core.session.game_id or ""
        journal = _seat(
            Journal.create(
                JournalMeta(
                    game,
                    kind,
                    Role.HOST,
                    identity.public.text,
                    played_at(options, address),
                    ran_relay=ran_relay,
                    cafile=_cafile(options),
                ),
                options.journal_dir,
            )
        )
        who = "the invited key" if invite else "your opponent"
        timed = "" if options.control is None else f", {control_words(options.control)},"
        options.say(f"Hosting {kind} game {game}{timed} as {identity.fingerprint}.")
        for line in witness_words(core.session.witnesses, identity.public, None):
            options.say(line)
        options.invitation = join_command(
            game, addresses if len(addresses) > 1 else address, default, _public(options), options.cafile
        )
        options.write(f"Tell {who} to type:  {options.invitation}")  # whole, on one line: the terminal wraps it only
        options.notes.append(f"Tell {who} to type the command under the board (/copy copies it).")  # the screen's
        options.say(f"and to check that the host's fingerprint they see is {identity.fingerprint}.")
        if options.cafile is not None:
            options.say("--cafile names the relay's CA as this machine has it: they give the path of their copy.")
        watch_link(options, game)
        runner = GameRunner(core, make_link(options, address, identity))
        runner.attach(journal)  # the offer journaled, as every line the runner journals from then on
        return await play_on(runner, front_end(options, True, bot), options, address)


def watch_link(options: Options, game: str) -> None:
    """Say the link that watches ``game`` in a browser, where the relay serves the page (:attr:`Options.page`)."""
    if options.page is not None:
        from relay.page import game_link

        options.say(f"Anyone can watch it in a browser, every move checked there: {game_link(options.page, game)}")


PAGE_WAIT = 3.0
"""How long a command waits for the relay to say where its page is (:data:`protocol.topics.PAGE_TOPIC`)."""


async def relay_page(options: Options, identity: Identity | None) -> str | None:
    """The watching page's address, where the relay says it serves one (asked once the command's login was checked):
    its scheme and port, with the host this
    command reaches the relay at (so that the link leads nowhere else, whoever set the topic); ``None`` where it says
    none, names several relays, or does not answer in time."""
    addresses, _ = relay_addresses(options)
    if len(addresses) != 1:
        return None
    try:
        async with asyncio.timeout(PAGE_WAIT):
            said = await _collect(options, [PAGE_TOPIC], identity, logged_in=True)  # (watch logged in first)
    except (Failure, TimeoutError):
        return None
    for payload in said:
        try:
            url = urllib.parse.urlsplit(payload.decode("ascii"))
            port = url.port
        except (UnicodeDecodeError, ValueError):
            continue
        if url.scheme in ("http", "https") and port is not None:
            host = addresses[0].host
            return f"{url.scheme}://{f'[{host}]' if ':' in host else host}:{port}/"
    return None


# -- join and watch ----------------------------------------------------------------------------------
async def _offer(runner: GameRunner, game: str, timeout: float, say: Write) -> None:
    """Wait until the game's offer has arrived (saying so while it waits); :class:`Failure` if the relay has none."""
    where = relays_text(runner.link.addresses) if isinstance(runner.link, Links) else str(runner.link.address)
    say(
        f"Looking for game {game} on the relay{'s' if isinstance(runner.link, Links) else ''} at {where} "
        f"(for up to {timeout:g} s)..."
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while runner.core.session.phase is Phase.WAITING:
        cancelled_meanwhile()
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise Failure(
                f"no game {game} on the relay at {runner.link.address}: no offer came in {timeout:g} s "
                "(check the id, and the relay: --relay)"
            )
        runner.changed.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(min(remaining, 0.5)):
                await runner.changed.wait()


def rematch_refusal(session: GameSession, identity: Identity, expected: NextGame) -> str | None:
    """Why the offer of a rematch agreed to is not the one agreed (``None``: it is): its host, the invitation of this
    player alone, the kind, the terms (the last game's, colours swapped)."""
    if session.host != expected.host:
        return f"the offer of game {expected.game} is not your opponent's"
    if session.invite != identity.public:
        return f"the offer of game {expected.game} does not invite you alone"
    if session.kind != expected.kind or session.terms != expected.terms:
        return (
            f"the offer of game {expected.game} is not the rematch agreed: {session.kind} under {session.terms}, "
            f"not {expected.kind} under {expected.terms}"
        )
    return None


def joining(options: Options, identity: Identity, address: RelayAddress, expected: NextGame | None = None) -> FrontEnd:
    """Before the chosen front end: wait for the offer, show who hosts, journal it and ask for the seat (a rematch's
    ``expected`` offer: nothing is signed unless it is the one agreed)."""
    inner = front_end(options, True)

    async def run(runner: GameRunner) -> int:
        core = runner.core
        session = core.session
        game = session.game_id or ""
        await _offer(runner, game, options.timeout or OFFER_WAIT, options.write)
        assert session.host is not None and session.kind is not None
        refusal = core.join_refusal(identity.public)
        if refusal is None and expected is not None:
            refusal = rematch_refusal(session, identity, expected)
        if refusal is not None:
            raise Failure(refusal)
        try:  # our key's lines on the relay, if any, before anything is signed
            async with asyncio.timeout(options.timeout or OFFER_WAIT):
                await runner.caught_up.wait()
        except TimeoutError:
            raise Failure(
                f"the relay at {runner.link.address} did not send game {game}'s lines in time: nothing was "
                "signed; try again"
            ) from None
        if identity.public in session.joins or session.guest == identity.public:
            raise Failure(
                f"you joined game {game} before, from another journal (another machine, or a journal that "
                "was deleted): its coin secret is not here, so this seat cannot be played from here"
            )
        clock = "" if session.clock is None else f", {control_words(session.clock)}"  # the control it accepts
        options.say(
            f"Joining {session.kind} game {game}{clock}, hosted by {session.host.fingerprint}: "
            "check that it is the fingerprint your host told you."
        )
        for line in witness_words(session.witnesses, session.host, identity.public):
            options.say(line)
        runner.attach(
            _seat(
                Journal.create(
                    JournalMeta(
                        game,
                        session.kind,
                        Role.GUEST,
                        identity.public.text,
                        played_at(options, address),
                        cafile=_cafile(options),
                    ),
                    options.journal_dir,
                )
            )
        )
        try:
            await runner.apply(core.join())
        except IntentRefused as exc:
            raise Failure(str(exc)) from None
        return await inner(runner)

    return run


async def join(game: str, options: Options) -> int:
    game = _game_id(game)
    identity = load_identity(options)
    with contextlib.suppress(JournalError):
        journal = Journal.open(game, options.journal_dir)
        if journal.meta.role == Role.HOST and journal.meta.key == identity.public.text:
            raise Failure(
                f"you host game {game} yourself (this identity, {identity.fingerprint}): your opponent joins "
                f"with their own ({resume_text(game)}). To try both seats on one machine, give the second "
                "terminal its own identity and journal: XDG_CONFIG_HOME=/tmp/seat2/config "
                f"XDG_STATE_HOME=/tmp/seat2/state olixono join {game}{relay_words(options)}"
            )
        options.write(f"You are in game {game} already: taking it up again.")
        return await resume(game, options)
    address, _ = relay_address(options)
    await log_in(options, address, identity)
    core = GameCore(GameSession(game, identity), auto_claim=options.auto_claim)
    runner = GameRunner(core, make_link(options, address, identity))
    return await play_on(runner, joining(options, identity, address), options, address)


async def watch(game: str, options: Options) -> int:
    game = _game_id(game)
    address, _ = relay_address(options)
    account = account_identity(options)
    await log_in(options, address, account)
    core = GameCore(GameSession(game), watching=True)
    core.reach = relay_words(options)
    core.talker = account  # what the watcher says (say) it signs with its own key, beside the game
    runner = GameRunner(core, make_link(options, address, account))
    inner = front_end(options, False)

    async def run(runner: GameRunner) -> int:
        page = asyncio.create_task(
            relay_page(options, account)
        )  # meanwhile: where the relay serves the page, if it does
        await _offer(runner, game, options.timeout or OFFER_WAIT, options.write)
        for line in witness_words(
            core.session.witnesses, core.session.host, account.public if account is not None else None
        ):
            options.say(line)
        done, _ = await asyncio.wait({page}, timeout=PAGE_WAIT)  # (begun with the offer's wait: mostly over by now)
        options.page = page.result() if done else None
        page.cancel()
        watch_link(options, game)
        return await inner(runner)

    return await run_game(runner, run)


def played_on(journal: Journal, options: Options) -> str | None:
    """Where the command line names no relay, the one the journal's game was played on, with the CA its certificate
    was checked with then; the relay the command line named (``None``: none)."""
    given = options.relay
    if given is None:
        options.relay = journal.meta.relay
        if options.cafile is None and journal.meta.cafile is not None:
            options.cafile = Path(journal.meta.cafile)
    return given


def _cafile(options: Options) -> str | None:
    return None if options.cafile is None else str(options.cafile.resolve())


# -- resume ---------------------------------------------------------------------------------------------
def _seat(journal: Journal) -> Journal:
    """``journal``, its seat held by this process (one seat, one process), or :class:`Failure` naming the other."""
    try:
        journal.lock()
    except JournalError as exc:
        journal.close()
        raise Failure(str(exc)) from None
    return journal


def damage_text(damage: list[Damage], most: int = 3) -> str:
    """The damaged lines of a journal, in one sentence."""
    shown = "; ".join(str(item) for item in damage[:most])
    more = f"; and {len(damage) - most} more" if len(damage) > most else ""
    return f"{shown}{more}"


def journal_key(journal: Journal) -> PublicKey | None:
    """The key a journal's seat was played with (``None``: its header names none that reads)."""
    try:
        return PublicKey.from_text(journal.meta.key)
    except ValueError:
        return None


def unfinished(options: Options) -> list[tuple[Journal, GameSession | None, str]]:
    """The games a player can take up again: each journal, its game, and what is wrong with it (or "")."""
    found: list[tuple[Journal, GameSession | None, str]] = []
    for journal in journals(options.journal_dir):
        if journal.meta.role in ("watcher", LOCAL) or journal.meta.left_unseated:
            continue
        try:
            session, damage = journal.restore()
        except JournalError as exc:
            found.append((journal, None, str(exc)))
            continue
        if damage:
            found.append((journal, session, f"damaged: {damage_text(damage)}"))
        elif not session.over:
            found.append((journal, session, ""))
    return found


async def resume(game: str | None, options: Options) -> int:
    if game is None:
        games = unfinished(options)
        if not games:
            options.write("No unfinished game in the journal.")
            return 0
        options.write("Unfinished games (olixono resume GAME takes one up again):")
        for journal, session, problem in games:
            if session is None:
                state = "unreadable"
            elif session.over:
                assert session.result is not None
                state = f"finished: {session.result.sentence()}"
            else:
                state = moves_text(session.moves) if session.started else session.phase.value
            line = f"{journal.meta.game}  {journal.meta.kind}  {journal.meta.role}  {state}  {journal.meta.relay}"
            claim = open_claim_text(session, journal_key(journal)) if session is not None else None
            notes = [*([problem] if problem else []), *([f"a claim on time is open: {claim}"] if claim else [])]
            options.write("\n    ".join([line, *notes]))
        return 0
    game = _game_id(game)
    identity = load_identity(options)
    try:
        journal = Journal.open(game, options.journal_dir)
    except JournalError as exc:
        raise Failure(str(exc)) from None
    if journal.meta.role == LOCAL:
        raise Failure(
            f"game {game} was played at one terminal (olixono play): there is nothing to take up again, and "
            f"nobody to play it with; olixono replay {game} shows it"
        )
    if journal.meta.key != identity.public.text:
        raise Failure(f"game {game} in the journal was played with another key than your identity")
    bot = seat_bot(options)  # before the seat is taken up or a relay started
    _seat(journal)
    if journal.meta.left_unseated:
        journal.update(left_unseated=False)  # taken up again: open on this side too
    try:
        session, damage = journal.restore(identity)
    except JournalError as exc:
        raise Failure(str(exc)) from None
    if damage:
        options.say(
            f"warning: the journal of this game is damaged ({damage_text(damage)}); the relay has the "
            "game's lines: nothing is signed before they are in"
        )
    given = played_on(journal, options)
    # a host's game on the relay its own process ran, which ended with it: this process runs one again, as host did
    here = given is None and journal.meta.role == Role.HOST and journal.meta.ran_relay
    guest_knows = journal.meta.ran_relay and journal.meta.role != Role.HOST  # learnt from the host's presence
    async with relay_for_host(options, may_start=here, host_ran=game if guest_knows else None) as (address, running):
        core = GameCore(session, auto_claim=options.auto_claim)
        core.host_relay = journal.meta.ran_relay and (running or journal.meta.role != Role.HOST)
        await log_in(options, address, identity)
        runner = GameRunner(core, make_link(options, address, identity), journal)
        clocks = clocks_now_text(core)  # the turn's start is the journal's now: the clocks, the window as they stand
        options.say(
            f"Taking up {journal.meta.kind} game {game} again ({moves_text(session.moves)} so far"
            f"{'' if clocks is None else '; ' + clocks})."
        )
        claim = claim_text(core)
        if claim is not None:
            options.say(f"A claim on time is open: {claim}.")
        watch_link(options, game)
        return await play_on(runner, front_end(options, True, bot), options, address)


# -- games and export ------------------------------------------------------------------------------------
async def relays(options: Options) -> int:
    """The relays a game would go through, and where they were named (``--relay``, ``OLIXONO_RELAY``, the settings
    file, the default); with ``check``, whether each takes a session now; with ``public``, the public brokers."""
    if options.public:
        options.write(f"public brokers (--relay {PUBLIC}: every one at once; or one by its name, --relay emqx):")
        for broker in PUBLIC_BROKERS:
            options.write(f"  {broker.name:10} {broker.url}  run by {broker.operator}, {broker.page}")
            options.write(f"  {'':10} ports: {broker.ports}")
            options.write(f"  {'':10} limits: {broker.limits}")
        options.write(
            "Each is open to everyone: it sees nothing secret (a game holds none) and changes nothing "
            "unseen (every line is signed and chained); it can delay or drop lines, or go away, which "
            "another relay beside it makes up for."
        )
        return 0
    _, source = relay_choice(options)
    addresses, _ = relay_addresses(options)
    where = {
        "default": "none named: the default, which `olixono host` starts itself when nothing answers there",
        "--relay": "from --relay",
        RELAY_VARIABLE: f"from ${RELAY_VARIABLE}",
    }.get(source, f"from {source}")
    options.write(f"relays ({where}):")
    answers: list[RelayError | None] = [None] * len(addresses)
    if options.check:
        identity = account_identity(options) if any(address.user for address in addresses) else None
        answers = list(
            await asyncio.gather(
                *(
                    try_login(one, *credentials(options, one, identity), options.cafile, timeout=options.timeout or 5.0)
                    for one in addresses
                )
            )
        )
    for index, (address, answer) in enumerate(zip(addresses, answers, strict=True)):
        state = "" if not options.check else "  answers" if answer is None else f"  does not answer: {answer}"
        options.write(f"  {label(index)}  {address.url}  {'TLS' if address.tls else 'no TLS'}{state}")
    if source == "default" or source in ("--relay", RELAY_VARIABLE):
        options.write(
            f"(the settings file {settings_path(options.environ)} names the relays used when none is "
            'given: relays = ["mqtts://relay.example.org", "public"])'
        )
    return 1 if any(answer is not None for answer in answers) else 0


async def _collect(
    options: Options, filters: list[str], identity: Identity | None, *, logged_in: bool = False
) -> list[bytes]:
    """Everything the relay retains on ``filters``, once it has all come in (``logged_in``: the command has checked
    its login already)."""
    address, _ = relay_address(options)
    if not logged_in:
        await log_in(options, address, identity)
    done = asyncio.Event()
    ready: set[int] = set()

    async def settled(one: Link) -> None:
        """One relay's lines are in: done once every relay connected has sent its own (several: a relay may hold
        lines another lost)."""
        await one.settled()
        ready.add(id(one))
        if all(id(each) in ready for each in getattr(link, "links", [link]) if each.connected):
            done.set()

    link = make_link(options, address, identity)(on_connect=settled)
    for topic_filter in filters:
        await link.subscribe(topic_filter)
    try:
        async with link:
            async with asyncio.timeout((options.timeout or OFFER_WAIT) + 5):
                await done.wait()
    except RelayError as exc:
        raise Failure(str(exc)) from None
    except TimeoutError:
        raise Failure(f"the relay at {address} did not answer in time") from None
    return [payload for _, payload in link.drain()]


async def games(options: Options) -> int:
    """The open offers on the relay, newest first: id, kind, host, age, and for whom; with ``all_games``, every other
    game too, with the result its players confirmed (by both, by one, or not yet)."""
    identity = account_identity(options)
    filters = [lobby_filter(), slot_filter(1), slot_filter(2)]  # the offers, the joins and the hosts' accepts
    if options.all_games:
        filters += [slot_filter(f"confirm-{n}") for n in range(1, MAX_CONFIRMS + 1)]
    sessions: dict[str, GameSession] = {}
    later: list[bytes] = []
    for payload in await _collect(options, filters, identity):
        try:
            message = decode(payload)
        except ValueError:
            continue
        if message.type is MessageType.OFFER:
            session = sessions.setdefault(message.game, GameSession(message.game))
            session.receive(payload)
        else:
            later.append(payload)
    for payload in later:
        message = decode(payload, verify=False)
        if message.game in sessions:
            sessions[message.game].receive(payload)
    now = time.time()
    newest_first = sorted(sessions.values(), key=lambda s: -s.chain[0].at)
    offers = [s for s in newest_first if s.phase is Phase.OFFERED]
    if offers or (options.all_games and newest_first):
        options.write(
            f"{'GAME':22}  {'KIND':5}  {'CLOCK':14}  {'HOST':24}  {'AGE':>9}  "
            + ("STATE" if options.all_games else "FOR")
        )
    if options.all_games:
        for session in (s for s in newest_first if s.phase is not Phase.OFFERED):
            assert session.host is not None
            options.write(
                f"{session.game_id}  {session.kind:5}  {control_text(session.clock):14}  host "
                f"{session.host.fingerprint}  {_age(now - session.chain[0].at):>9}  {lobby_state(session)}"
            )
    if not offers:
        if not options.all_games:
            options.write(f"No open game on this relay. Host one with:  olixono host oxono{relay_words(options)}")
        return 0
    for session in offers:
        assert session.host is not None
        age = _age(now - session.chain[0].at)
        if session.invite is None:
            whom = "open to anyone"
        elif identity is not None and session.invite == identity.public:
            whom = "invites you"
        else:
            whom = f"invites {session.invite.fingerprint}"
        options.write(
            f"{session.game_id}  {session.kind:5}  {control_text(session.clock):14}  host "
            f"{session.host.fingerprint}  {age:>9}  {whom}"
        )
    return 0


def lobby_state(session: GameSession) -> str:
    """A started game as the lobby sees it: the result its players confirmed, or that none is confirmed yet."""
    players = [key for key in (session.host, session.guest) if key is not None]
    named = {key: f"{session.role_of(key)} {key.fingerprint}" for key in players}
    endings = {key: ending for key in players if (ending := session.confirmed_ending(key)) is not None}
    if not endings:
        return "no confirmed result yet"
    if len(set(endings.values())) > 1:
        return "disputed: " + ", ".join(
            f"{named[key]} confirms {code_text(code)}" for key, (_, code) in endings.items()
        )
    first, (_, code) = next(iter(endings.items()))
    who = "both players" if len(endings) == len(players) == 2 else f"{named[first]} only"
    return f"finished: {code_text(code)}, confirmed by {who}"


def _age(seconds: float) -> str:
    if seconds < 60:
        return "just now" if seconds < 5 else f"{int(seconds)} s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    return f"{int(seconds // 86400)} days ago"


async def _from_relay(game: str, options: Options, session: GameSession | None = None) -> GameSession:
    """The game as the relay has it (fed into ``session``, if given), asked for again as a late spectator would."""
    session = session or GameSession(game)
    for _ in range(3):  # again when lines were dropped for room
        events = session.receive_all(await _collect(options, [game_filter(game)], account_identity(options)))
        if not any(isinstance(event, ResyncNeeded) for event in events):
            break
    return session


async def export(game: str, options: Options) -> int:
    """The game's verified record on stdout (its transcript, and the lines of any proof): from the journal, else
    rebuilt from the relay. A damaged journal is completed from the relay, or refused; a record that holds a
    player's proof of equivocation exits 4 unless ``anyway``."""
    game = _game_id(game)
    try:
        journal: Journal | None = Journal.open(game, options.journal_dir)
    except JournalError:
        journal = None
    if journal is None:
        session = await _from_relay(game, options)
        if not session.chain:
            raise Failure(f"no game {game} in the journal, nor on the relay at {relay_address(options)[0]}")
    else:
        try:
            session, damage = journal.restore()
        except JournalError as exc:
            raise Failure(str(exc)) from None
        if damage and journal.meta.role == LOCAL:
            raise Failure(
                f"the journal of game {game} is damaged ({damage_text(damage)}), and a game played at one "
                "terminal is on no relay to complete it from: not exporting a shorter game"
            )
        if damage:
            relays = options.relay or journal.meta.relay  # every relay the game was played on
            address = relays_text(relay_addresses(replace(options, relay=relays))[0])
            merged = GameSession(game)
            merged.receive_all(journal.lines())
            try:
                await _from_relay(game, replace(options, relay=relays), merged)
            except Failure as exc:
                raise Failure(
                    f"the journal of game {game} is damaged ({damage_text(damage)}), and the relay cannot "
                    f"complete it ({exc}): not exporting a shorter game"
                ) from None
            if not repaired(damage, merged):
                raise Failure(
                    f"the journal of game {game} is damaged ({damage_text(damage)}), and the relay at "
                    f"{address} does not have what it lacks: not exporting a shorter game"
                )
            options.warn(
                f"the journal of game {game} is damaged ({damage_text(damage)}); the lines it lacks came "
                f"from the relay at {address}"
            )
            session = merged
    options.write("\n".join(session.record))
    confirmed = confirmation_text(session)
    if confirmed is not None:
        options.warn(f"{session.result.sentence() if session.result else 'not finished'}; {confirmed}")
    proofs = session.seated_proofs
    if proofs:
        for proof in proofs:
            options.warn(f"the record holds a proof: {proof_text(session, proof)}")
        if not options.anyway:
            options.warn(
                "written with the proof's lines (olixono verify reads them); exit status 4: a proof is in "
                "the record (--anyway exits 0)"
            )
            return PROVEN
    return 0


def _game_id(text: str) -> str:
    try:
        return check_game_id(text.strip())
    except JournalError as exc:
        raise Failure(str(exc)) from None


# -- a time witness ------------------------------------------------------------------------------------
WITNESS_KEY = "witness"
"""The time witness's key file in the config folder (apart from the player's identity: a witness run by a player
protects nobody from that player)."""


def witness_identity(path: Path | None, environ: dict[str, str]) -> Identity:
    """The time witness's key: ``path``, else the config folder's (made on first use)."""
    try:
        return get_identity(path or config_dir(environ) / WITNESS_KEY)[0]
    except (IdentityError, OSError) as exc:
        raise Failure(f"the time witness's key cannot be used: {exc}") from None


def witness_told(identity: Identity, reach: str = "") -> list[str]:
    """What a time witness says of itself when it starts: its key, as a host names it (``reach``: the options that
    reach its relay, :func:`relay_words`)."""
    return [
        f"time witness {identity.fingerprint}: it signs when it saw each line of every game that names it",
        f"  a host names it with:  olixono host oxono --witness {identity.public.text}{reach}",
    ]


async def witness(options: Options, key: Path | None, most: int | None) -> int:
    """``olixono witness``: be a time witness on a relay until Ctrl-C."""
    identity = witness_identity(key, options.environ)
    address, _ = relay_address(options)
    await log_in(options, address, identity)
    for line in witness_told(identity, relay_words(options)):
        options.write(line)
    options.write(f"  on the relay at {address}; stop with Ctrl-C")
    state = state_dir(options.environ)
    keeper = TimeWitness(
        identity,
        witness_folder(state, identity.public),
        most=most or MOST_GAMES,
        announce=options.write,
        lock=witness_lock(state, identity.public),
    )
    try:
        await keeper.run(make_link(options, address, identity), asyncio.Event())
    except (RelayError, WitnessBusy) as exc:
        raise Failure(str(exc)) from None
    return 0


def relay_witness(witness_key: Path | None, settings: RelaySettings) -> Beside:
    """``olixono relay --witness``: a time witness beside the relay, in its process (:data:`relay.cli.WitnessHook`),
    on a listener of its own (and in private mode an account of its own, in memory)."""
    import secrets

    identity = witness_identity(witness_key, dict(os.environ))
    settings.inner_listener = True
    password = secrets.token_urlsafe(24)  # an account of its own, in either mode: no owner's caps are the witness's
    settings.inner_accounts[identity.public.text] = password
    folder = witness_folder(settings.data_dir if settings.data_dir is not None else state_dir(), identity.public)
    lock = witness_lock(state_dir(), identity.public)
    try:  # another process witnessing with this key: said now, before the relay starts
        os.close(hold(lock))
    except WitnessBusy as exc:
        raise Failure(f"--witness: {exc}") from None

    def say(line: str) -> None:
        print(line, flush=True)

    async def run(relay: EmbeddedRelay, stop: asyncio.Event) -> None:
        address = RelayAddress.parse(relay.url)  # as hosts reach the relay: --relay unless it is the default
        reach = reach_words([address], address.url == RelayAddress.parse(DEFAULT_RELAY).url, cafile=settings.tls_cert)
        for line in witness_told(identity, reach):
            say(line)
        connect = functools.partial(
            Link, RelayAddress.parse(relay.inner_url), username=identity.public.text, password=password
        )
        delay = 1.0
        while not stop.is_set():  # the relay serves on whatever befalls its witness (a full disk, say)
            try:
                await TimeWitness(identity, folder, announce=say, lock=lock).run(connect, stop)
            except WitnessBusy as exc:  # another process took the key meanwhile: the relay serves on without it
                logging.getLogger("olixono.witness").error("the time witness stops: %s", exc)
                return
            except Exception as exc:  # said, and the witness starts again
                logging.getLogger("olixono.witness").error(
                    "the time witness failed: %r; starting again in %g s", exc, delay
                )
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await stop.wait()
                delay = min(delay * 2, 60.0)

    return run
