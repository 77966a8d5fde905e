"""The layers of ``docs/architecture.md``, checked on the code: a module imports only layers below its own (never a
module of its own layer but where the table says so), and no front end imports another.

Every import counts, those inside functions too (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PACKAGES = {"olixono": 0, "protocol": 1, "relay": 2, "client": 2, "harness": 3}
"""The packages, lowest first: the engines know nothing of the protocol, the protocol nothing of MQTT's two sides, and
the relay and the client stand side by side on it (the client may start an embedded relay: the one exception)."""

CLIENT = {
    # what a person asks of a game, the same for a network game and a game at one terminal
    "intents": 0,
    # what a person reads and writes that needs no protocol
    "board_words": 0,
    # the cores, sans I/O: a network game's, a game at one terminal's; what the record says, what a quiet game needs
    "core": 1,
    "local_game": 1,
    "record": 1,
    "liveness": 1,
    "relays": 1,
    # what a person reads of a network game; what a person types, in either
    "words": 2,
    "commands": 2,
    "bell": 2,
    # the shells: files, sockets, the runner that joins them to the core
    "identity": 3,
    "journal": 3,
    "transport": 3,
    "thinking": 3,
    "settings": 4,
    "runner": 4,
    "local_record": 4,
    "witness": 4,
    "links": 4,
    # the full screen's drawing, shared by its tables
    "screen": 5,
    # the front ends, side by side
    "plain": 6,
    "console": 6,
    "network_screen": 6,
    "local_screen": 6,
    "replay": 6,
    "local": 6,
    # the commands' flows, which pick a front end
    "network": 7,
    "verify": 7,
    "analyze": 7,
    "history": 7,
    "cli": 8,
    "__main__": 9,
    "__init__": 9,
}
FRONT_ENDS = {name for name, layer in CLIENT.items() if layer == 6}

PROTOCOL = {
    # the protocol's words, keys, the frozen Unicode tables, the clock's rule
    "domain": 0,
    "keys": 0,
    "unicode_tables": 0,
    "clock": 0,
    # who is at fault; the grammar
    "errors": 1,
    "messages": 2,
    # what a receiver tells; where lines go on MQTT; lines waiting for their parent
    "events": 3,
    "topics": 3,
    "waiting": 3,
    # the table of who may send what, the limits, the coin
    "rules": 4,
    # the watchers' talk, beside the game and apart from the judge
    "gallery": 4,
    # the judge's owners, side by side: who may sit where, what each key signed, the receipts and claims on time, the
    # time witnesses' times
    "seating": 5,
    "evidence": 5,
    "claims": 5,
    "witness": 5,
    # the receiver, the signing session, whole records
    "judge": 6,
    "session": 7,
    "transcript": 8,
    "__init__": 9,
}


def imports(path: Path) -> set[str]:
    """The project modules ``path`` imports (``client.screen``, ``protocol``…), wherever in the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            if node.module in PACKAGES:  # ``from client import network``
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in PACKAGES}


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).glob("*.py"))


def test_every_client_module_has_a_layer():
    assert {path.stem for path in modules("client")} == set(CLIENT)


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_packages_import_only_the_packages_below(package):
    allowed = {other for other, layer in PACKAGES.items() if layer < PACKAGES[package]} | {package}
    if package == "client":
        allowed.add("relay")  # ``host`` starts the embedded relay where none runs; ``olixono relay`` is its command
    for path in modules(package):
        wrong = {name for name in imports(path) if name.split(".")[0] not in allowed}
        assert not wrong, f"{package}/{path.name} imports {sorted(wrong)}"


@pytest.mark.parametrize("path", modules("client"), ids=lambda path: path.stem)
def test_client_modules_import_only_the_layers_below(path):
    layer = CLIENT[path.stem]
    for name in imports(path):
        parts = name.split(".")
        if parts[0] != "client" or len(parts) < 2 or parts[1] not in CLIENT:
            continue
        other = parts[1]
        assert CLIENT[other] < layer, (
            f"client/{path.name} (layer {layer}) imports client.{other} (layer {CLIENT[other]})"
        )
        if path.stem in FRONT_ENDS:
            assert other not in FRONT_ENDS, f"the front end {path.stem} imports the front end {other}"


def test_every_protocol_module_has_a_layer():
    assert {path.stem for path in modules("protocol")} == set(PROTOCOL)


@pytest.mark.parametrize("path", modules("protocol"), ids=lambda path: path.stem)
def test_protocol_modules_import_only_the_layers_below(path):
    """The judge's owners stand side by side: none imports another, the receiver holds them together."""
    layer = PROTOCOL[path.stem]
    for name in imports(path):
        parts = name.split(".")
        if parts[0] != "protocol" or len(parts) < 2:
            continue
        assert PROTOCOL[parts[1]] < layer, (
            f"protocol/{path.name} (layer {layer}) imports protocol.{parts[1]} (layer {PROTOCOL[parts[1]]})"
        )


def test_local_play_never_loads_the_protocol():
    """``olixono play`` at one terminal (the line loop) needs no protocol: loading it and its cryptography cost a
    fifth of a second of start-up."""
    import subprocess
    import sys

    probe = "import sys, client.local; print(sorted(m for m in sys.modules if m.split('.')[0] == 'protocol'))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    )
    assert loaded.stdout.strip() == "[]"


def session_reads(source: str) -> list[int]:
    """The lines of ``source`` that read a core's session: ``.session`` of a ``core`` (``core.session``,
    ``runner.core.session``, ``self.core.session``)."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr == "session"
        and (
            (isinstance(node.value, ast.Name) and node.value.id == "core")
            or (isinstance(node.value, ast.Attribute) and node.value.attr == "core")
        )
    ]


@pytest.mark.parametrize("name", sorted(FRONT_ENDS))
def test_front_ends_read_a_game_through_its_core_never_its_session(name):
    """A front end renders events and sends intents: what it shows of a game it reads through the core's read-only
    views (``GameCore.turn``, ``.time_control``, …), never through the session the core owns."""
    lines = session_reads((ROOT / "client" / f"{name}.py").read_text())
    assert not lines, f"client/{name}.py reads a core's session on lines {lines}"


def test_a_read_of_a_core_s_session_is_found_wherever_it_stands():
    source = "clock = core.session.clock\nhost = runner.core.session.host\nkind = self.session.kind\n"
    assert session_reads(source) == [1, 2]
