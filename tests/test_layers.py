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
    # sans I/O: what a person asks of a game, the cores of a network game and of a game at one terminal
    "cores": 0,
    # what a person reads and types, in words
    "words": 1,
    # the shells: files, sockets, threads, the runner that joins them to a core
    "shell": 2,
    # the full screen's drawing, then the front ends side by side
    "frontends": 3,
    # the commands' flows, which pick a front end
    "flows": 4,
    # the argument parser and the entry points: ``client/cli.py``, ``client/__main__.py``
    "": 5,
}
"""The client's packages, lowest first (``""``: the modules at the top of ``client/``)."""

SHARED_FRONT_END = "screen"
"""The one module of ``client/frontends`` the others may import: the full screen's drawing they share."""

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


def imports_in(source: str, name: str = "<source>") -> set[str]:
    """The project modules ``source`` imports (``client.frontends.screen``, ``protocol``…), wherever in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            if node.module in PACKAGES or node.module.startswith("client."):  # ``from client.flows import network``
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
    # ``from client.words.board import status_text`` names the module and a function: only modules count
    return {name for name in found if name.split(".")[0] in PACKAGES and is_module(name)}


def is_module(name: str) -> bool:
    """Whether a dotted name is a module or package of ours (not a name inside one)."""
    path = ROOT.joinpath(*name.split("."))
    return path.is_dir() or path.with_suffix(".py").is_file() or len(name.split(".")) == 1


def imports(path: Path) -> set[str]:
    return imports_in(path.read_text(), str(path))


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def client_package(path: Path) -> str:
    """``cores`` for ``client/cores/clock.py``; ``""`` for ``client/cli.py``."""
    parts = path.relative_to(ROOT / "client").parts
    return parts[0] if len(parts) > 1 else ""


def test_every_client_module_stands_in_a_package_of_the_table():
    assert {client_package(path) for path in modules("client")} == set(CLIENT)
    assert all(len(path.relative_to(ROOT / "client").parts) <= 2 for path in modules("client")), "one level of packages"


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_packages_import_only_the_packages_below(package):
    allowed = {other for other, layer in PACKAGES.items() if layer < PACKAGES[package]} | {package}
    if package == "client":
        allowed.add("relay")  # ``host`` starts the embedded relay where none runs; ``olixono relay`` is its command
    for path in modules(package):
        wrong = {name for name in imports(path) if name.split(".")[0] not in allowed}
        assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"


@pytest.mark.parametrize("path", modules("client"), ids=lambda path: str(path.relative_to(ROOT / "client")))
def test_client_modules_import_only_their_package_and_the_packages_below(path):
    package = client_package(path)
    for name in imports(path):
        parts = name.split(".")
        if parts[0] != "client" or len(parts) < 2:
            continue
        other = parts[1] if parts[1] in CLIENT else ""
        where = path.relative_to(ROOT)
        assert CLIENT[other] <= CLIENT[package], f"{where} (package {package or 'client'}) imports {name}, above it"
        if package == "frontends" == other and path.stem != SHARED_FRONT_END and len(parts) > 2:
            assert parts[2] == SHARED_FRONT_END, f"the front end {path.stem} imports the front end {parts[2]}"


def test_the_client_packages_load_nothing_of_their_own():
    """A package's ``__init__.py`` imports nothing, so that loading one module loads only what that module asks for."""
    for path in (ROOT / "client").glob("*/__init__.py"):
        assert not imports(path), f"{path.relative_to(ROOT)} imports {sorted(imports(path))}"


def test_a_front_end_importing_another_is_found():
    """The rule above, on a made-up front end: the check reads ``from client.frontends import x`` as an import of x."""
    assert imports_in("from client.frontends import plain\n") == {"client.frontends", "client.frontends.plain"}


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

    probe = (
        "import sys, client.frontends.local_plain; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'protocol'))"
    )
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


@pytest.mark.parametrize("name", sorted(path.stem for path in (ROOT / "client" / "frontends").glob("[!_]*.py")))
def test_front_ends_read_a_game_through_its_core_never_its_session(name):
    """A front end renders events and sends intents: what it shows of a game it reads through the core's read-only
    views (``GameCore.turn``, ``.time_control``, …), never through the session the core owns."""
    lines = session_reads((ROOT / "client" / "frontends" / f"{name}.py").read_text())
    assert not lines, f"client/frontends/{name}.py reads a core's session on lines {lines}"


def test_a_read_of_a_core_s_session_is_found_wherever_it_stands():
    source = "clock = core.session.clock\nhost = runner.core.session.host\nkind = self.session.kind\n"
    assert session_reads(source) == [1, 2]
