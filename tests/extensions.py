"""The C extensions the tests hold to their references: built wherever they can be.

setuptools builds them optionally (``optional = true`` in ``pyproject.toml``): where no C compiler is, the Python
references serve and the tests of the C helpers have nothing to test. Where a compiler is, an extension missing is a
mistake (the package installed before the extension was added, or its build failed), and its tests fail saying how
to build it rather than pass by skipping.
"""

from __future__ import annotations

import importlib
import shutil
import sysconfig
from dataclasses import dataclass
from types import ModuleType

import pytest

BUILD = "python3 -m pip install -e ."
"""How the extensions are built in a checkout."""


def c_compiler() -> str | None:
    """The path of the C compiler setuptools would build with (``sysconfig``'s ``CC``, else ``cc``), if it is on
    ``PATH``."""
    configured: list[str] = (sysconfig.get_config_var("CC") or "").split()
    for name in [*configured[:1], "cc"]:
        found = shutil.which(name)
        if found is not None:
            return found
    return None


@dataclass(frozen=True, slots=True)
class Missing:
    """What an extension that does not import means for its tests: they fail (``skip`` false) or skip, and why."""

    skip: bool
    reason: str


def when_missing(name: str, error: ImportError, compiler: str | None) -> Missing:
    """What the tests of extension ``name`` do when importing it raised ``error``, ``compiler`` being the C compiler
    found (:func:`c_compiler`), if any."""
    if compiler is None:
        return Missing(True, f"{name} is not built: no C compiler here, the Python reference serves ({error})")
    return Missing(
        False,
        f"{name} is not built, yet a C compiler is here ({compiler}): build it with `{BUILD}` ({error})",
    )


def require_extension(name: str) -> ModuleType:
    """The extension ``name``, imported; where it does not import, the tests of the module calling this fail (a C
    compiler is here) or skip (none is): see :func:`when_missing`."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        missing = when_missing(name, error, c_compiler())
    if missing.skip:
        pytest.skip(missing.reason, allow_module_level=True)
    pytest.fail(missing.reason, pytrace=False)
