"""When the C extensions' tests may skip: only where no C compiler is (``tests/extensions.py``)."""

from __future__ import annotations

import sys
import sysconfig

import pytest
from extensions import BUILD, c_compiler, require_extension, when_missing

ABSENT = "olixono._no_such_extension"


def test_without_a_compiler_a_missing_extension_skips_and_says_why():
    missing = when_missing("olixono._oxono_fast", ImportError("No module named 'olixono._oxono_fast'"), None)
    assert missing.skip
    assert "olixono._oxono_fast" in missing.reason and "no C compiler" in missing.reason


def test_with_a_compiler_a_missing_extension_fails_and_says_how_to_build_it():
    missing = when_missing("olixono._olix_fast", ImportError("No module named 'olixono._olix_fast'"), "/usr/bin/cc")
    assert not missing.skip
    assert "olixono._olix_fast" in missing.reason and "/usr/bin/cc" in missing.reason and BUILD in missing.reason


def test_require_extension_imports_a_built_module_and_fails_or_skips_for_a_missing_one(monkeypatch):
    assert require_extension("json") is sys.modules["json"]
    monkeypatch.setattr("extensions.c_compiler", lambda: "/usr/bin/cc")
    with pytest.raises(pytest.fail.Exception, match="pip install -e"):
        require_extension(ABSENT)
    monkeypatch.setattr("extensions.c_compiler", lambda: None)
    with pytest.raises(pytest.skip.Exception, match="no C compiler"):
        require_extension(ABSENT)


def test_the_compiler_is_sysconfig_s_cc_or_cc_found_on_the_path(monkeypatch, tmp_path):
    compiler = tmp_path / "gcc-test"
    compiler.write_text("#!/bin/sh\n")
    compiler.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sysconfig, "get_config_var", lambda name: f"{compiler.name} -pthread" if name == "CC" else None)
    assert c_compiler() == str(compiler)
    monkeypatch.setattr(sysconfig, "get_config_var", lambda name: None)
    assert c_compiler() is None  # no cc on this PATH
    (tmp_path / "cc").symlink_to(compiler)
    assert c_compiler() == str(tmp_path / "cc")
